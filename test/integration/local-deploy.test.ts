/**
 * The local deployment against moto: one small CDK stack synthesized into a cloud assembly,
 * deployed with deployCdkOut, and every promise checked through the SDK.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeContinuousBackupsCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  GetItemCommand,
} from '@aws-sdk/client-dynamodb';
import { GetEventSourceMappingCommand, GetFunctionConfigurationCommand } from '@aws-sdk/client-lambda';
import {
  GetBucketLifecycleConfigurationCommand,
  GetBucketVersioningCommand,
  GetObjectLockConfigurationCommand,
  GetPublicAccessBlockCommand,
} from '@aws-sdk/client-s3';
import { DescribeExecutionCommand, type ExecutionStatus, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { PublishCommand } from '@aws-sdk/client-sns';
import {
  GetQueueAttributesCommand,
  ListQueuesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { App, type CfnElement, Duration, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AwsClients, createClients } from '../../lambdas/adapters/clients';
import { deployCdkOut, deployTemplate, type LocalStack } from '../../tools/local-aws/deploy';
import { LOCAL_CREDENTIALS, type LocalAws, startLocalAws } from '../../tools/local-aws/moto';

const STACK_NAME = 'LocalDeployTest';

/** The synthesized stack, and the logical id of each construct the tests look at. */
function synthesizeStack() {
  const outdir = mkdtempSync(join(tmpdir(), 'pq-local-deploy-'));
  const codeDir = mkdtempSync(join(tmpdir(), 'pq-local-deploy-code-'));
  writeFileSync(join(codeDir, 'index.js'), 'exports.handler = async () => ({ batchItemFailures: [] });\n');
  // The CDK CLI turns asset metadata on; an in-process App has to ask for it.
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, STACK_NAME);

  const workDlq = new sqs.Queue(stack, 'WorkDlq');
  const work = new sqs.Queue(stack, 'Work', {
    visibilityTimeout: Duration.seconds(60),
    deadLetterQueue: { queue: workDlq, maxReceiveCount: 10 },
  });
  const orderedDlq = new sqs.Queue(stack, 'OrderedDlq', { fifo: true });
  const ordered = new sqs.Queue(stack, 'Ordered', {
    fifo: true,
    contentBasedDeduplication: true,
    visibilityTimeout: Duration.seconds(90),
    retentionPeriod: Duration.days(14),
    maxMessageSizeBytes: 262_144,
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    deadLetterQueue: { queue: orderedDlq, maxReceiveCount: 12 },
  });
  const ledger = new dynamodb.TableV2(stack, 'Ledger', {
    partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
    timeToLiveAttribute: 'expiresAt',
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    globalSecondaryIndexes: [
      {
        indexName: 'byEnv',
        partitionKey: { name: 'envId', type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType.KEYS_ONLY,
      },
    ],
  });
  const control = new dynamodb.Table(stack, 'Control', {
    partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
    sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: 'expiresAt',
  });
  const bucket = new s3.Bucket(stack, 'Content', {
    versioned: true,
    enforceSSL: true,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    encryption: s3.BucketEncryption.S3_MANAGED,
    objectLockEnabled: true,
    objectLockDefaultRetention: s3.ObjectLockRetention.governance(Duration.days(1)),
    lifecycleRules: [{ expiration: Duration.days(30), noncurrentVersionExpiration: Duration.days(7) }],
  });
  const topic = new sns.Topic(stack, 'Topic', {
    masterKey: new kms.Key(stack, 'TopicKey'),
    enforceSSL: true,
  });
  const fanout = new sqs.Queue(stack, 'Fanout');
  topic.addSubscription(new SqsSubscription(fanout, { rawMessageDelivery: true }));

  const consumer = new lambda.Function(stack, 'Consumer', {
    runtime: lambda.Runtime.NODEJS_LATEST,
    handler: 'index.handler',
    code: lambda.Code.fromAsset(codeDir),
    timeout: Duration.seconds(10),
    memorySize: 256,
    logGroup: new logs.LogGroup(stack, 'ConsumerLogs'),
    environment: {
      LEDGER_TABLE: ledger.tableName,
      WORK_QUEUE_URL: work.queueUrl,
      TOPIC_ARN: topic.topicArn,
      BUCKET_ARN: bucket.bucketArn,
    },
  });
  const workSource = new SqsEventSource(work, {
    batchSize: 5,
    maxBatchingWindow: Duration.seconds(2),
    maxConcurrency: 2,
    reportBatchItemFailures: true,
  });
  consumer.addEventSource(workSource);
  consumer.addEventSource(new SqsEventSource(ordered, { batchSize: 10, enabled: false }));

  const markSeen = new tasks.CallAwsService(stack, 'MarkSeen', {
    service: 'dynamodb',
    action: 'updateItem',
    parameters: {
      TableName: ledger.tableName,
      Key: { pk: { S: sfn.JsonPath.stringAt('$.key') } },
      UpdateExpression: 'SET seen = :seen',
      ExpressionAttributeValues: { ':seen': { S: sfn.JsonPath.stringAt('$.note') } },
    },
    iamResources: [ledger.tableArn],
    resultPath: sfn.JsonPath.DISCARD,
  });
  const recorder = new sfn.StateMachine(stack, 'Recorder', {
    definitionBody: sfn.DefinitionBody.fromChainable(
      new sfn.Pass(stack, 'AddNote', {
        parameters: { 'key.$': '$.key', note: 'seen by the state machine' },
      }).next(markSeen),
    ),
    logs: { destination: new logs.LogGroup(stack, 'RecorderLogs'), level: sfn.LogLevel.ALL },
    tracingEnabled: true,
  });
  // As the pause state machine (lib/operations/steps.ts) writes it: the AWS spelling, Uuid.
  const pauseConsumer = new sfn.StateMachine(stack, 'PauseConsumer', {
    definitionBody: sfn.DefinitionBody.fromChainable(
      new tasks.CallAwsService(stack, 'DisableMapping', {
        service: 'lambda',
        action: 'updateEventSourceMapping',
        parameters: { Uuid: workSource.eventSourceMappingId, Enabled: false },
        iamResources: [workSource.eventSourceMappingArn],
        // moto answers DescribeExecution with HTTP 500 when the output holds the SDK's LastModified date.
        resultPath: sfn.JsonPath.DISCARD,
      }),
    ),
  });

  app.synth();
  const id = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
  return {
    outdir,
    codeDir,
    ids: {
      work: id(work),
      workDlq: id(workDlq),
      ordered: id(ordered),
      orderedDlq: id(orderedDlq),
      ledger: id(ledger),
      control: id(control),
      bucket: id(bucket),
      bucketPolicy: id(bucket.policy as IConstruct),
      topic: id(topic),
      fanout: id(fanout),
      consumer: id(consumer),
      recorder: id(recorder),
      pauseConsumer: id(pauseConsumer),
    },
  };
}

let aws: LocalAws;
let clients: AwsClients;
let synthesized: ReturnType<typeof synthesizeStack>;
let local: LocalStack;

const physical = (logicalId: string) => local.resources[logicalId].physicalId;
const attribute = (logicalId: string, name: string) => local.resources[logicalId].attributes[name];

beforeAll(async () => {
  synthesized = synthesizeStack();
  aws = await startLocalAws();
  clients = createClients({ region: aws.region, endpoint: aws.endpoint, credentials: LOCAL_CREDENTIALS });
  local = await deployCdkOut(STACK_NAME, { clients, region: aws.region, cdkOutDir: synthesized.outdir });
});
afterAll(async () => {
  await aws?.stop();
  for (const dir of [synthesized?.outdir, synthesized?.codeDir])
    if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('queues', () => {
  it('creates a standard queue with its redrive policy naming the DLQ', async () => {
    const { ids } = synthesized;
    const { Attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: physical(ids.work), AttributeNames: ['All'] }),
    );
    expect(Attributes?.VisibilityTimeout).toBe('60');
    expect(JSON.parse(Attributes?.RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: attribute(ids.workDlq, 'Arn'),
      maxReceiveCount: 10,
    });
  });

  it('creates a FIFO queue with every attribute the template sets', async () => {
    const { ids } = synthesized;
    const queueUrl = physical(ids.ordered);
    const { Attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }),
    );
    expect(queueUrl).toMatch(/\.fifo$/);
    expect(Attributes).toMatchObject({
      FifoQueue: 'true',
      ContentBasedDeduplication: 'true',
      VisibilityTimeout: '90',
      MessageRetentionPeriod: '1209600',
      MaximumMessageSize: '262144',
      SqsManagedSseEnabled: 'true',
    });
    expect(JSON.parse(Attributes?.RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: attribute(ids.orderedDlq, 'Arn'),
      maxReceiveCount: 12,
    });
    expect(local.resources[ids.ordered].attributes).toMatchObject({ Ref: queueUrl, QueueUrl: queueUrl });
  });
});

describe('tables', () => {
  it('creates a TableV2 (GlobalTable) with its key, sparse index, TTL and point-in-time recovery', async () => {
    const TableName = physical(synthesized.ids.ledger);
    const { Table } = await clients.dynamodb.send(new DescribeTableCommand({ TableName }));
    expect(Table?.KeySchema).toEqual([{ AttributeName: 'pk', KeyType: 'HASH' }]);
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(
      Table?.GlobalSecondaryIndexes?.map((index) => [index.IndexName, index.KeySchema, index.Projection]),
    ).toEqual([['byEnv', [{ AttributeName: 'envId', KeyType: 'HASH' }], { ProjectionType: 'KEYS_ONLY' }]]);
    const ttl = await clients.dynamodb.send(new DescribeTimeToLiveCommand({ TableName }));
    expect(ttl.TimeToLiveDescription).toMatchObject({
      AttributeName: 'expiresAt',
      TimeToLiveStatus: 'ENABLED',
    });
    const backups = await clients.dynamodb.send(new DescribeContinuousBackupsCommand({ TableName }));
    expect(
      backups.ContinuousBackupsDescription?.PointInTimeRecoveryDescription?.PointInTimeRecoveryStatus,
    ).toBe('ENABLED');
  });

  it('creates a Table with partition and sort key and TTL', async () => {
    const TableName = physical(synthesized.ids.control);
    const { Table } = await clients.dynamodb.send(new DescribeTableCommand({ TableName }));
    expect(Table?.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(attribute(synthesized.ids.control, 'Arn')).toBe(Table?.TableArn);
    const ttl = await clients.dynamodb.send(new DescribeTimeToLiveCommand({ TableName }));
    expect(ttl.TimeToLiveDescription?.TimeToLiveStatus).toBe('ENABLED');
  });
});

describe('bucket', () => {
  it('applies versioning, public access block, lifecycle and Object Lock', async () => {
    const Bucket = physical(synthesized.ids.bucket);
    const versioning = await clients.s3.send(new GetBucketVersioningCommand({ Bucket }));
    expect(versioning.Status).toBe('Enabled');
    const publicAccess = await clients.s3.send(new GetPublicAccessBlockCommand({ Bucket }));
    expect(publicAccess.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    const lifecycle = await clients.s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket }));
    expect(lifecycle.Rules?.[0]).toMatchObject({
      Status: 'Enabled',
      Expiration: { Days: 30 },
      NoncurrentVersionExpiration: { NoncurrentDays: 7 },
    });
    const lock = await clients.s3.send(new GetObjectLockConfigurationCommand({ Bucket }));
    // moto adds Years: 0 beside Days.
    expect(lock.ObjectLockConfiguration).toMatchObject({
      ObjectLockEnabled: 'Enabled',
      Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: 1 } },
    });
  });

  it('records the bucket policy as not instantiated, with the reason', () => {
    expect(local.resources[synthesized.ids.bucketPolicy]).toMatchObject({
      type: 'AWS::S3::BucketPolicy',
      notInstantiated: expect.stringMatching(/resource policies/),
    });
  });
});

describe('topic', () => {
  it('delivers a publish to the subscribed queue', async () => {
    const { ids } = synthesized;
    await clients.sns.send(new PublishCommand({ TopicArn: physical(ids.topic), Message: 'fan me out' }));
    const { Messages } = await clients.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: physical(ids.fanout), WaitTimeSeconds: 1 }),
    );
    expect(Messages?.map((message) => message.Body)).toEqual(['fan me out']);
  });
});

describe('function', () => {
  it('creates the function with its settings and the environment resolved to the local resources', async () => {
    const { ids } = synthesized;
    const localFunction = local.functions.find((candidate) => candidate.logicalId === ids.consumer);
    expect(localFunction).toMatchObject({
      handler: 'index.handler',
      runtime: 'nodejs24.x',
      timeoutSeconds: 10,
      memoryMiB: 256,
      environment: {
        LEDGER_TABLE: physical(ids.ledger),
        WORK_QUEUE_URL: physical(ids.work),
        TOPIC_ARN: physical(ids.topic),
        BUCKET_ARN: `arn:aws:s3:::${physical(ids.bucket)}`,
      },
    });
    expect(existsSync(join(localFunction?.assetPath ?? '', 'index.js'))).toBe(true);
    const configuration = await clients.lambda.send(
      new GetFunctionConfigurationCommand({ FunctionName: localFunction?.functionName }),
    );
    expect(configuration).toMatchObject({ FunctionArn: localFunction?.arn, Timeout: 10, MemorySize: 256 });
    expect(configuration.Environment?.Variables).toEqual(localFunction?.environment);
  });
});

describe('event source mappings', () => {
  it('points moto at a decoy queue and records the real source and the template settings', async () => {
    const { ids } = synthesized;
    const [mapping] = local.eventSourceMappings.filter(
      (candidate) => candidate.eventSourceArn === attribute(ids.work, 'Arn'),
    );
    expect(mapping).toMatchObject({
      functionName: physical(ids.consumer),
      decoyQueueUrl: expect.stringMatching(/-esm-decoy$/),
      batchSize: 5,
      maximumBatchingWindowInSeconds: 2,
      maximumConcurrency: 2,
      functionResponseTypes: ['ReportBatchItemFailures'],
      enabled: true,
    });
    const inMoto = await clients.lambda.send(new GetEventSourceMappingCommand({ UUID: mapping.uuid }));
    expect(inMoto).toMatchObject({
      EventSourceArn: expect.stringMatching(/-esm-decoy$/),
      State: 'Enabled',
      BatchSize: 5,
      MaximumBatchingWindowInSeconds: 2,
      ScalingConfig: { MaximumConcurrency: 2 },
    });
  });

  it('keeps a FIFO decoy FIFO and a disabled mapping disabled', async () => {
    const { ids } = synthesized;
    const [mapping] = local.eventSourceMappings.filter(
      (candidate) => candidate.eventSourceArn === attribute(ids.ordered, 'Arn'),
    );
    expect(mapping.decoyQueueUrl).toMatch(/-esm-decoy\.fifo$/);
    const inMoto = await clients.lambda.send(new GetEventSourceMappingCommand({ UUID: mapping.uuid }));
    expect(inMoto.State).toBe('Disabled');
  });

  it('leaves a message sent to the real queue there, untouched, while the mapping is enabled', async () => {
    const QueueUrl = physical(synthesized.ids.work);
    await clients.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'still here' }));
    const { Messages } = await clients.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl,
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      }),
    );
    expect(Messages?.map((message) => [message.Body, message.Attributes?.ApproximateReceiveCount])).toEqual([
      ['still here', '1'],
    ]);
  });
});

describe('state machines', () => {
  it('runs an aws-sdk:dynamodb:updateItem task that really updates the table', async () => {
    const { ids } = synthesized;
    const status = await execute(physical(ids.recorder), { key: 'message-1' });
    expect(status).toBe('SUCCEEDED');
    const { Item } = await clients.dynamodb.send(
      new GetItemCommand({ TableName: physical(ids.ledger), Key: { pk: { S: 'message-1' } } }),
    );
    expect(Item?.seen).toEqual({ S: 'seen by the state machine' });
  });

  it('disables the mapping in moto through aws-sdk:lambda:updateEventSourceMapping written with Uuid', async () => {
    const { ids } = synthesized;
    const machine = local.stateMachines.find((candidate) => candidate.logicalId === ids.pauseConsumer);
    const [mapping] = local.eventSourceMappings.filter(
      (candidate) => candidate.eventSourceArn === attribute(ids.work, 'Arn'),
    );
    expect(JSON.parse(machine?.definition ?? '{}').States.DisableMapping.Parameters).toEqual({
      UUID: mapping.uuid,
      Enabled: false,
    });
    expect(await execute(String(machine?.arn), {})).toBe('SUCCEEDED');
    const inMoto = await clients.lambda.send(new GetEventSourceMappingCommand({ UUID: mapping.uuid }));
    expect(inMoto.State).toBe('Disabled');
  });
});

describe('templates', () => {
  it('skips a resource whose Condition is false, resolves Outputs and asks STS for the account', async () => {
    const template = {
      Parameters: { Stage: { Type: 'String', Default: 'dev' } },
      Conditions: { IsProd: { 'Fn::Equals': [{ Ref: 'Stage' }, 'prod'] } },
      Resources: {
        Always: {
          Type: 'AWS::SQS::Queue',
          Properties: { QueueName: { 'Fn::Join': ['-', [{ Ref: 'AWS::StackName' }, 'always']] } },
        },
        ProdOnly: { Type: 'AWS::SQS::Queue', Condition: 'IsProd', Properties: { QueueName: 'prod-only' } },
      },
      Outputs: { AlwaysArn: { Value: { 'Fn::GetAtt': ['Always', 'Arn'] } } },
    };
    const deployed = await deployTemplate(template, {
      clients,
      region: aws.region,
      stackName: 'Conditional',
    });
    expect(Object.keys(deployed.resources)).toEqual(['Always']);
    expect(deployed.accountId).toBe('123456789012');
    expect(deployed.outputs).toEqual({ AlwaysArn: 'arn:aws:sqs:us-east-1:123456789012:Conditional-always' });
  });
});

describe('refusals', () => {
  it('names the logical id and type of a resource type it does not know, before creating anything', async () => {
    const template = {
      Resources: {
        EarlyQueue: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'never-created' } },
        Mystery: { Type: 'AWS::Foo::Bar', Properties: {} },
      },
    };
    await expect(deployTemplate(template, { clients, region: aws.region })).rejects.toThrow(
      /Mystery \(AWS::Foo::Bar\).*registry\.ts/,
    );
    const { QueueUrls } = await clients.sqs.send(new ListQueuesCommand({ QueueNamePrefix: 'never-created' }));
    expect(QueueUrls ?? []).toEqual([]);
  });

  it('names the logical id and property it does not handle', async () => {
    const template = {
      Resources: { Odd: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'odd', Unheard: 1 } } },
    };
    await expect(deployTemplate(template, { clients, region: aws.region })).rejects.toThrow(
      'Odd (AWS::SQS::Queue): the local deployment does not handle Unheard',
    );
  });
});

async function execute(stateMachineArn: string, input: object): Promise<ExecutionStatus | undefined> {
  const { executionArn } = await clients.sfn.send(
    new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(input) }),
  );
  for (let polls = 0; polls < 100; polls += 1) {
    const { status } = await clients.sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (status !== 'RUNNING') return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`execution ${executionArn} still running after 10 s`);
}
