/**
 * Pipelines reading a Kafka topic, for the template tests (kafka-source.test.ts) and the
 * cdk-nag and cfn-lint checks (kafka-source-checks.test.ts): one on an Amazon MSK cluster, one on
 * a self-managed cluster in a VPC.
 */
import { type App, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { AuthenticationMethod } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { KafkaSourceProps } from '../../lib/kafka-source-props';
import { PoisonQuarantine } from '../../lib/poison-quarantine';
import type { PoisonQuarantineProps } from '../../lib/poison-quarantine-props';
import { FIXTURE_PROCESSOR, templateApp } from './synth';

export const STACK_ENV = { account: '111111111111', region: 'eu-west-1' };
export const CLUSTER_ARN =
  'arn:aws:kafka:eu-west-1:111111111111:cluster/orders/0a1b2c3d-4e5f-6789-abcd-ef0123456789-3';
export const TOPIC = 'orders';
/** An MSK SASL/SCRAM secret's name starts with AmazonMSK_. */
export const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:AmazonMSK_orders-AbCdEf';
export const BOOTSTRAP_SERVERS = ['b-1.kafka.example.com:9096', 'b-2.kafka.example.com:9096'];
export const SUBNETS = ['subnet-0a0a0a0a0a0a0a0a0', 'subnet-0b0b0b0b0b0b0b0b0'];
export const SECURITY_GROUP = 'sg-0c0c0c0c0c0c0c0c0';

/** A stack holding one pipeline whose props may use constructs of the stack. */
export function kafkaPipeline(
  props: (stack: Stack) => Partial<PoisonQuarantineProps>,
  app: App = templateApp(),
  id = 'Kafka',
) {
  const stack = new Stack(app, id, { env: STACK_ENV });
  const pipeline = new PoisonQuarantine(stack, 'Pipeline', {
    processorEntry: FIXTURE_PROCESSOR,
    ...props(stack),
  });
  return { app, stack, pipeline };
}

export const credentials = (stack: Stack) =>
  secretsmanager.Secret.fromSecretCompleteArn(stack, 'Credentials', SECRET_ARN);

/** A VPC of two private subnets and the pollers' security group, imported. */
export function network(stack: Stack) {
  const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
    vpcId: 'vpc-0a1b2c3d4e5f60718',
    availabilityZones: ['eu-west-1a', 'eu-west-1b'],
    privateSubnetIds: SUBNETS,
  });
  const securityGroup = ec2.SecurityGroup.fromSecurityGroupId(stack, 'Pollers', SECURITY_GROUP);
  return { vpc, securityGroup };
}

/** MSK with IAM authentication (no secret), every other setting its default. */
export const mskSource = (): KafkaSourceProps => ({ clusterArn: CLUSTER_ARN, topic: TOPIC });

/** A self-managed cluster in a VPC, SASL/PLAIN credentials, a consumer group of its own. */
export const selfManagedSource = (stack: Stack): KafkaSourceProps => ({
  bootstrapServers: BOOTSTRAP_SERVERS,
  topic: TOPIC,
  consumerGroupId: 'pq-orders',
  secret: credentials(stack),
  authenticationMethod: AuthenticationMethod.BASIC_AUTH,
  ...network(stack),
});
