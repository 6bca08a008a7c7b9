/**
 * AWS::DynamoDB::Table and AWS::DynamoDB::GlobalTable (what TableV2 synthesizes; only the replica
 * of the local region is created) -> CreateTable, then UpdateTimeToLive and UpdateContinuousBackups,
 * which CreateTable cannot set.
 */
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  type GlobalSecondaryIndex,
  type SSESpecification,
  type StreamSpecification,
  UpdateContinuousBackupsCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { LocalDeployError } from './errors';
import { Properties } from './properties';
import type { CreateContext, Created, InstantiatedType } from './resource-type';

const NO_METRICS = 'no metrics flow locally';
const NO_THROTTLING = 'moto does not throttle: capacity has no local effect';
const NO_RESOURCE_POLICIES = 'moto does not enforce resource policies';

/** Properties both table types share, in the same shape. */
const COMMON = ['TableName', 'KeySchema', 'AttributeDefinitions', 'BillingMode', 'GlobalSecondaryIndexes'];
const COMMON_OPTIONAL = [
  'LocalSecondaryIndexes',
  'StreamSpecification',
  'SSESpecification',
  'TimeToLiveSpecification',
];

export const dynamodbTable: InstantiatedType = {
  applies: [
    ...COMMON,
    ...COMMON_OPTIONAL,
    'ProvisionedThroughput',
    'PointInTimeRecoverySpecification',
    'DeletionProtectionEnabled',
    'TableClass',
    'Tags',
  ],
  ignores: {
    ContributorInsightsSpecification: NO_METRICS,
    ResourcePolicy: NO_RESOURCE_POLICIES,
    OnDemandThroughput: NO_THROTTLING,
    WarmThroughput: NO_THROTTLING,
  },
  create: (properties, context) =>
    createTable(properties, properties, context, {
      ProvisionedThroughput: properties.object(
        'ProvisionedThroughput',
      ) as CreateTableCommandInput['ProvisionedThroughput'],
      SSESpecification: sseSpecification(properties.object('SSESpecification')),
    }),
};

export const dynamodbGlobalTable: InstantiatedType = {
  applies: [...COMMON, ...COMMON_OPTIONAL, 'Replicas'],
  ignores: {
    WriteProvisionedThroughputSettings: NO_THROTTLING,
    WriteOnDemandThroughputSettings: NO_THROTTLING,
    WarmThroughput: NO_THROTTLING,
  },
  create(properties, context) {
    const replica = localReplica(properties, context.region);
    return createTable(properties, replica, context, {
      // CreateTable wants a capacity for PROVISIONED tables; moto does not throttle, any value will do.
      ProvisionedThroughput:
        properties.string('BillingMode') === 'PROVISIONED'
          ? { ReadCapacityUnits: 5, WriteCapacityUnits: 5 }
          : undefined,
      SSESpecification: sseSpecification({
        ...properties.object('SSESpecification'),
        ...replica.object('SSESpecification'),
      }),
    });
  },
};

/** `table` holds the key schema and indexes; `settings` the per-table settings (a replica, for a GlobalTable). */
async function createTable(
  table: Properties,
  settings: Properties,
  context: CreateContext,
  overrides: Pick<CreateTableCommandInput, 'ProvisionedThroughput' | 'SSESpecification'>,
): Promise<Created> {
  const tableName = table.string('TableName') ?? context.generatedName({ maxLength: 255 });
  const billingMode = table.string('BillingMode') ?? 'PROVISIONED';
  const { TableDescription } = await context.clients.dynamodb.send(
    new CreateTableCommand({
      TableName: tableName,
      KeySchema: table.list('KeySchema') as CreateTableCommandInput['KeySchema'],
      AttributeDefinitions: table.list(
        'AttributeDefinitions',
      ) as CreateTableCommandInput['AttributeDefinitions'],
      BillingMode: billingMode as CreateTableCommandInput['BillingMode'],
      GlobalSecondaryIndexes: indexes(table.list('GlobalSecondaryIndexes'), overrides.ProvisionedThroughput),
      LocalSecondaryIndexes: table.list(
        'LocalSecondaryIndexes',
      ) as CreateTableCommandInput['LocalSecondaryIndexes'],
      StreamSpecification: streamSpecification(table.object('StreamSpecification')),
      DeletionProtectionEnabled: settings.boolean('DeletionProtectionEnabled'),
      TableClass: settings.string('TableClass') as CreateTableCommandInput['TableClass'],
      Tags: settings.list('Tags') as CreateTableCommandInput['Tags'],
      ...overrides,
    }),
  );
  const timeToLive = table.object('TimeToLiveSpecification');
  if (timeToLive?.Enabled === true || timeToLive?.Enabled === 'true') {
    await context.clients.dynamodb.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: String(timeToLive.AttributeName), Enabled: true },
      }),
    );
  }
  const pointInTimeRecovery = settings.object('PointInTimeRecoverySpecification');
  if (pointInTimeRecovery) {
    await context.clients.dynamodb.send(
      new UpdateContinuousBackupsCommand({
        TableName: tableName,
        PointInTimeRecoverySpecification: {
          PointInTimeRecoveryEnabled: pointInTimeRecovery.PointInTimeRecoveryEnabled === true,
          RecoveryPeriodInDays: pointInTimeRecovery.RecoveryPeriodInDays as number | undefined,
        },
      }),
    );
  }
  const attributes: Record<string, string> = { Ref: tableName, Arn: String(TableDescription?.TableArn) };
  if (TableDescription?.LatestStreamArn) attributes.StreamArn = TableDescription.LatestStreamArn;
  if (TableDescription?.TableId) attributes.TableId = TableDescription.TableId;
  return { physicalId: tableName, attributes };
}

/** The replica in the local region: it carries PITR, deletion protection, table class and tags. */
function localReplica(properties: Properties, region: string): Properties {
  const replicas = (properties.list('Replicas') ?? []) as Record<string, unknown>[];
  const replica = replicas.find((candidate) => candidate.Region === region);
  if (!replica) {
    const regions = replicas.map((candidate) => String(candidate.Region)).join(', ');
    throw new LocalDeployError(
      `${properties.where}: no replica in the local region ${region} (replicas: ${regions})`,
    );
  }
  const replicaProperties = new Properties(replica, `${properties.where} replica ${region}`);
  replicaProperties.expectOnly(
    [
      'Region',
      'PointInTimeRecoverySpecification',
      'DeletionProtectionEnabled',
      'TableClass',
      'Tags',
      'SSESpecification',
    ],
    {
      GlobalSecondaryIndexes: 'per-replica index settings are capacity and metrics only',
      ContributorInsightsSpecification: NO_METRICS,
      ReadProvisionedThroughputSettings: NO_THROTTLING,
      ReadOnDemandThroughputSettings: NO_THROTTLING,
      ResourcePolicy: NO_RESOURCE_POLICIES,
      KinesisStreamSpecification: 'no Kinesis locally',
    },
  );
  return replicaProperties;
}

/** The template's index shape carries metrics and warm-throughput settings CreateTable does not take. */
function indexes(
  templateIndexes: unknown[] | undefined,
  provisionedThroughput: CreateTableCommandInput['ProvisionedThroughput'],
): GlobalSecondaryIndex[] | undefined {
  return (templateIndexes as Record<string, unknown>[] | undefined)?.map((index) => ({
    IndexName: index.IndexName as string,
    KeySchema: index.KeySchema as GlobalSecondaryIndex['KeySchema'],
    Projection: index.Projection as GlobalSecondaryIndex['Projection'],
    ProvisionedThroughput:
      (index.ProvisionedThroughput as GlobalSecondaryIndex['ProvisionedThroughput']) ?? provisionedThroughput,
  }));
}

/** The template says SSEEnabled where the API says Enabled. */
function sseSpecification(template: Record<string, unknown> | undefined): SSESpecification | undefined {
  if (!template || Object.keys(template).length === 0) return undefined;
  return {
    Enabled: template.SSEEnabled === true || template.SSEEnabled === 'true',
    SSEType: template.SSEType as SSESpecification['SSEType'],
    KMSMasterKeyId: template.KMSMasterKeyId as string | undefined,
  };
}

/** A template stream specification enables the stream by being there. */
function streamSpecification(template: Record<string, unknown> | undefined): StreamSpecification | undefined {
  return (
    template && {
      StreamEnabled: true,
      StreamViewType: template.StreamViewType as StreamSpecification['StreamViewType'],
    }
  );
}
