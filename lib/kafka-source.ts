/**
 * The consumer's Kafka event source mapping and what Lambda needs of the consumer's role to read
 * through it. Built on lambda.EventSourceMapping rather than aws-lambda-event-sources'
 * ManagedKafkaEventSource and SelfManagedKafkaEventSource: the managed one attaches the
 * AWSLambdaMSKExecutionRole managed policy (logs:* and kafka:* on every resource, where the
 * consumer's role is ours and names each resource) and authenticates a secret by SASL/SCRAM
 * only; the self-managed one does not expose its mapping's UUID, which the pause disables.
 * The authentication method is theirs (AuthenticationMethod), so is its meaning.
 */
import { type Duration, Fn, Stack, Token, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AuthenticationMethod } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import { kafkaSourceName as sourceName } from '../contract/sources';
import type { KafkaSourceProps } from './kafka-source-props';

/** What the mapping takes from the construct's shared props. */
export interface KafkaMappingSettings {
  readonly batchSize: number;
  readonly maxBatchingWindow?: Duration;
}

/**
 * Where the records come from, as the consumer's environment names it (contract/env.ts
 * `PQ_KAFKA_CLUSTER`): the MSK cluster's ARN, or the bootstrap servers joined by commas.
 */
export function kafkaCluster(kafka: KafkaSourceProps): string {
  if (kafka.clusterArn !== undefined) return kafka.clusterArn;
  const servers = kafka.bootstrapServers ?? [];
  const unresolved = Token.isUnresolved(servers) || servers.some((server) => Token.isUnresolved(server));
  return unresolved ? Fn.join(',', servers) : servers.join(',');
}

/**
 * The name of a Kafka pipeline's metric series (the `Queue` dimension an SQS pipeline fills with
 * its queue's ARN): the cluster and the topic, `<cluster>/<topic>`, so two pipelines on one
 * cluster keep their alarms apart. The consumer must publish under the same name.
 */
export function kafkaSourceName(kafka: KafkaSourceProps): string {
  return sourceName(kafkaCluster(kafka), kafka.topic);
}

/**
 * Adds the Kafka mapping to the consumer, with the grants it needs. Lambda's defaults otherwise:
 * on-demand pollers, no partial batch response, retries for ever, no maximum record age. The
 * consumer fails a batch whole when a record stays (lambdas/sources/kafka.ts, RecordsHeldError),
 * so the mapping delivers it again from there whatever its retry settings (docs/behaviour.md,
 * "Kafka sources"); with provisioned pollers it answers where each held partition resumes
 * instead, and the mapping reads that (`ReportBatchItemFailures`).
 */
export function addKafkaSource(
  consumer: lambda.Function,
  kafka: KafkaSourceProps,
  settings: KafkaMappingSettings,
): lambda.EventSourceMapping {
  const mapping = consumer.addEventSourceMapping('KafkaSource', {
    eventSourceArn: kafka.clusterArn,
    kafkaBootstrapServers: kafka.bootstrapServers,
    kafkaTopic: kafka.topic,
    kafkaConsumerGroupId: kafka.consumerGroupId,
    startingPosition: kafka.startingPosition ?? lambda.StartingPosition.TRIM_HORIZON,
    sourceAccessConfigurations: accessConfigurations(kafka),
    batchSize: settings.batchSize,
    maxBatchingWindow: settings.maxBatchingWindow,
    // Provisioned mode reads partial batch responses; the consumer answers them (PQ_KAFKA_PARTIAL_BATCH_RESPONSE).
    ...(kafka.provisionedPollerConfig === undefined
      ? {}
      : { provisionedPollerConfig: kafka.provisionedPollerConfig, reportBatchItemFailures: true }),
  });
  grantKafkaReads(consumer.role as iam.IRole, kafka);
  return mapping;
}

/** The secret by its method, and for a self-managed cluster in a VPC its subnets and security group. */
function accessConfigurations(kafka: KafkaSourceProps): lambda.SourceAccessConfiguration[] | undefined {
  const configurations: lambda.SourceAccessConfiguration[] = [];
  if (kafka.secret !== undefined) {
    configurations.push({ type: secretType(kafka.authenticationMethod), uri: kafka.secret.secretArn });
  }
  if (kafka.bootstrapServers !== undefined && kafka.vpc !== undefined && kafka.securityGroup !== undefined) {
    configurations.push({
      type: lambda.SourceAccessConfigurationType.VPC_SECURITY_GROUP,
      uri: kafka.securityGroup.securityGroupId,
    });
    for (const subnetId of kafka.vpc.selectSubnets(kafka.vpcSubnets).subnetIds) {
      configurations.push({ type: lambda.SourceAccessConfigurationType.VPC_SUBNET, uri: subnetId });
    }
  }
  return configurations.length > 0 ? configurations : undefined;
}

function secretType(method = AuthenticationMethod.SASL_SCRAM_512_AUTH): lambda.SourceAccessConfigurationType {
  switch (method) {
    case AuthenticationMethod.SASL_SCRAM_256_AUTH:
      return lambda.SourceAccessConfigurationType.SASL_SCRAM_256_AUTH;
    case AuthenticationMethod.BASIC_AUTH:
      return lambda.SourceAccessConfigurationType.BASIC_AUTH;
    case AuthenticationMethod.CLIENT_CERTIFICATE_TLS_AUTH:
      return lambda.SourceAccessConfigurationType.CLIENT_CERTIFICATE_TLS_AUTH;
    default:
      return lambda.SourceAccessConfigurationType.SASL_SCRAM_512_AUTH;
  }
}

/**
 * What Lambda's pollers do as the consumer's role: read the secret; for MSK, describe the cluster
 * and fetch its brokers, and with IAM authentication (no secret) connect, read the topic and
 * commit the group's offsets; for MSK, and for a self-managed cluster in a VPC, manage the
 * network interfaces they reach the brokers through.
 */
function grantKafkaReads(role: iam.IRole, kafka: KafkaSourceProps): void {
  const allow = (actions: string[], resources: string[]) =>
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions, resources }));
  const acknowledgements: { id: string; reason: string }[] = [];
  kafka.secret?.grantRead(role);
  const clusterArn = mskClusterArn(kafka);
  if (clusterArn !== undefined) {
    allow(['kafka:DescribeClusterV2', 'kafka:GetBootstrapBrokers'], [clusterArn]);
    if (kafka.secret === undefined) acknowledgements.push(...grantIamAuthentication(role, kafka, clusterArn));
  }
  if (clusterArn !== undefined || kafka.vpc !== undefined) {
    allow(
      [
        'ec2:CreateNetworkInterface',
        'ec2:DescribeNetworkInterfaces',
        'ec2:DescribeVpcs',
        'ec2:DeleteNetworkInterface',
        'ec2:DescribeSubnets',
        'ec2:DescribeSecurityGroups',
      ],
      ['*'],
    );
    acknowledgements.push({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        "Lambda's Kafka pollers reach the brokers through network interfaces in the cluster's VPC; " +
        'the EC2 network interface actions support no resource-level permissions.',
    });
  }
  if (acknowledgements.length > 0) Validations.of(role).acknowledge(...acknowledgements);
}

/**
 * MSK IAM authentication: the cluster, the one topic, and the consumer group. Lambda names the
 * group after the mapping's UUID by default, which the role cannot name (the mapping is created
 * after the role's policy): then any group of the cluster.
 */
function grantIamAuthentication(
  role: iam.IRole,
  kafka: KafkaSourceProps,
  clusterArn: string,
): { id: string; reason: string }[] {
  const allow = (actions: string[], resource: string) =>
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions, resources: [resource] }));
  allow(['kafka-cluster:Connect', 'kafka-cluster:DescribeClusterDynamicConfiguration'], clusterArn);
  allow(
    ['kafka-cluster:DescribeTopic', 'kafka-cluster:ReadData'],
    mskResourceArn(clusterArn, 'topic', kafka.topic),
  );
  const group = mskResourceArn(clusterArn, 'group', kafka.consumerGroupId ?? '*');
  allow(['kafka-cluster:DescribeGroup', 'kafka-cluster:AlterGroup'], group);
  return kafka.consumerGroupId !== undefined
    ? []
    : [
        {
          id: `AwsSolutions-IAM5[Resource::${nagResource(role, group)}]`,
          reason:
            "The mapping's consumer group is Lambda's default, named after the mapping's UUID, which " +
            "exists only once the role's policy does; the grant covers the cluster's groups only.",
        },
      ];
}

/** The MSK cluster's ARN; undefined for a self-managed cluster. */
export function mskClusterArn(kafka: KafkaSourceProps): string | undefined {
  return kafka.bootstrapServers === undefined ? kafka.clusterArn : undefined;
}

/**
 * An MSK topic or group ARN from the cluster's: `...:cluster/<name>/<uuid>` becomes
 * `...:<kind>/<name>/<uuid>/<name of the topic or group>`, in CloudFormation when the cluster's
 * ARN is only known at deployment. The operator's grants use it too (poison-quarantine.ts).
 */
export function mskResourceArn(clusterArn: string, kind: 'topic' | 'group', name: string): string {
  if (!Token.isUnresolved(clusterArn)) return `${clusterArn.replace(':cluster/', `:${kind}/`)}/${name}`;
  const parts = Fn.split(':cluster/', clusterArn, 2);
  return Fn.join('', [parts[0] as string, `:${kind}/`, parts[1] as string, `/${name}`]);
}

/**
 * A resource as cdk-nag names it in a finding (its flattenCfnReference): the resolved value,
 * joins joined, `<Id>` for a Ref, `<Id.Attribute>` for a GetAtt, JSON for any other function.
 */
function nagResource(scope: Construct, resource: string): string {
  const flatten = (node: unknown): string => {
    if (node === undefined) return '';
    if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
    const fn = node as Record<string, unknown>;
    if (fn['Fn::Join']) {
      const [delimiter, items] = fn['Fn::Join'] as [string, unknown[]];
      return items.map(flatten).join(delimiter);
    }
    if (fn['Fn::Sub']) return flatten(fn['Fn::Sub']);
    if (fn['Fn::GetAtt']) {
      const [id, attribute] = fn['Fn::GetAtt'] as [unknown, unknown];
      return `<${flatten(id)}.${flatten(attribute)}>`;
    }
    if (fn['Fn::ImportValue']) return flatten(fn['Fn::ImportValue']);
    if (fn.Ref) return `<${flatten(fn.Ref)}>`;
    return JSON.stringify(node);
  };
  return flatten(Stack.of(scope).resolve(resource));
}
