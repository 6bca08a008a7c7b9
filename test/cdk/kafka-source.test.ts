/**
 * Issue 38, item 1: a Kafka topic as the construct's source, beside today's SQS queue. The
 * mapping's settings, the consumer's environment, what is not created for a topic, the grants
 * Lambda needs, the pause's hold on the mapping, and every refused combination.
 */
import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AuthenticationMethod } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../contract/defaults';
import { ENV } from '../../contract/env';
import { SOURCE_KIND } from '../../contract/sources';
import type { KafkaSourceProps } from '../../lib/kafka-source-props';
import type { PoisonQuarantineProps } from '../../lib/poison-quarantine-props';
import {
  BOOTSTRAP_SERVERS,
  CLUSTER_ARN,
  credentials,
  kafkaPipeline,
  mskSource,
  network,
  SECRET_ARN,
  SECURITY_GROUP,
  SUBNETS,
  selfManagedSource,
  TOPIC,
} from './kafka-fixtures';
import { actionsOf, joinedText, stateMachineDefinition, statementsOfRole, synthPipeline } from './synth';

const MAPPING = 'AWS::Lambda::EventSourceMapping';
/** The names of the SQS source's environment, none of which a Kafka consumer gets. */
const QUEUE_VARIABLES: readonly string[] = [
  ENV.sourceQueueUrl,
  ENV.sourceQueueArn,
  ENV.fifo,
  ENV.backstopMaxReceiveCount,
];

function consumerVariables(template: Template): Record<string, unknown> {
  const [consumer] = Object.values(
    template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: Match.objectLike({ [ENV.attemptsTable]: Match.anyValue() }) } },
    }),
  );
  return consumer?.Properties.Environment.Variables;
}

function onlyMapping(template: Template) {
  const mappings = Object.entries(template.findResources(MAPPING));
  expect(mappings).toHaveLength(1);
  const [[id, mapping]] = mappings;
  return { id, properties: mapping.Properties };
}

/** The actions granted on exactly this resource (compared as JSON). */
function actionsOn(template: Template, role: string, resource: unknown): string[] {
  const text = JSON.stringify(resource);
  return actionsOf(
    statementsOfRole(template, role).filter((s) => JSON.stringify(s.Resource) === text),
  ).sort();
}

describe('a pipeline reading a topic on Amazon MSK (IAM authentication, defaults)', () => {
  const { stack, pipeline } = kafkaPipeline(() => ({ kafka: mskSource() }));
  const template = Template.fromStack(stack);

  it("maps the cluster and topic from the oldest record, and leaves the rest to Lambda's defaults", () => {
    // Assess
    const { properties } = onlyMapping(template);
    expect(properties).toStrictEqual({
      FunctionName: { Ref: expect.stringMatching(/^PipelineConsumer[0-9A-F]{8}$/) },
      EventSourceArn: CLUSTER_ARN,
      Topics: [TOPIC],
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: DEFAULTS.batchSize,
    });
    template.hasResourceProperties(MAPPING, {
      // Lambda's defaults: the mapping's UUID as the consumer group, IAM authentication; on-demand
      // pollers and no partial batch response, since the consumer fails a batch that holds a
      // record whole (lambdas/sources/kafka.ts).
      FunctionResponseTypes: Match.absent(),
      ProvisionedPollerConfig: Match.absent(),
      AmazonManagedKafkaEventSourceConfig: Match.absent(),
      SourceAccessConfigurations: Match.absent(),
      SelfManagedEventSource: Match.absent(),
      ScalingConfig: Match.absent(),
    });
  });

  it('tells the consumer its source is Kafka, the cluster, the topic and the failed probes a record may have, and nothing of a queue', () => {
    // Assess
    const variables = consumerVariables(template);
    expect(variables).toMatchObject({
      [ENV.sourceKind]: SOURCE_KIND.kafka,
      [ENV.kafkaCluster]: CLUSTER_ARN,
      [ENV.kafkaTopic]: TOPIC,
      [ENV.kafkaMaxFailedProbes]: String(DEFAULTS.kafkaMaxFailedProbes),
      [ENV.kafkaPartialBatchResponse]: 'false',
    });
    expect(Object.keys(variables).filter((name) => QUEUE_VARIABLES.includes(name))).toStrictEqual([]);
  });

  it('creates no queue, no queue alarm and no queue widget, and keeps tables, bucket, machines and consumer alarms', () => {
    // Assess
    template.resourceCountIs('AWS::SQS::Queue', 0);
    template.resourceCountIs('AWS::SQS::QueuePolicy', 0);
    template.resourceCountIs('AWS::DynamoDB::Table', 3);
    template.resourceCountIs('AWS::S3::Bucket', 1);
    template.resourceCountIs('AWS::StepFunctions::StateMachine', 2);
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms.filter((alarm) => alarm.Properties.Namespace === 'AWS/SQS')).toStrictEqual([]);
    expect(pipeline.alarms.alarms.map((alarm) => alarm.node.id)).toStrictEqual([
      'Quarantined',
      'ConsumerErrors',
      'OutcomeUnknown',
      'BreakerTripped',
      'BreakerUnreadable',
      'PausedTooLong',
      'OperatorDecisionOverdue',
      'PauseExecutionsFailed',
      'PauseExecutionsTimedOut',
      'PauseExecutionsAborted',
      'VerificationExecutionsFailed',
      'VerificationExecutionsTimedOut',
      'VerificationExecutionsAborted',
    ]);
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    const body = joinedText(dashboard?.Properties.DashboardBody);
    expect(body).not.toMatch(/AWS\/SQS|Source queue|Backstop/);
    expect(body).toContain('Quarantines by reason');
  });

  it('names its metric series after the cluster and topic, in the alarms and in the state machines', () => {
    // Assess: the Queue dimension an SQS pipeline fills with its queue's ARN.
    const series = `${CLUSTER_ARN}/${TOPIC}`;
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Quarantined',
      Dimensions: [{ Name: 'Queue', Value: series }],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'OutcomeUnknown',
      Dimensions: Match.arrayWith([{ Name: 'Queue', Value: series }]),
    });
    const { states } = stateMachineDefinition(template, 'Pause');
    expect(JSON.stringify(states.PublishPausedTime.Parameters)).toContain(`"Value":"${series}"`);
    expect(pipeline.metricQuarantined().dimensions).toMatchObject({ Queue: series });
  });

  it("lets Lambda describe the cluster, fetch its brokers, read the topic and commit the group's offsets", () => {
    // Assess
    expect(actionsOn(template, 'ConsumerRole', CLUSTER_ARN)).toStrictEqual([
      'kafka-cluster:Connect',
      'kafka-cluster:DescribeClusterDynamicConfiguration',
      'kafka:DescribeClusterV2',
      'kafka:GetBootstrapBrokers',
    ]);
    const topicArn = CLUSTER_ARN.replace(':cluster/', ':topic/');
    expect(actionsOn(template, 'ConsumerRole', `${topicArn}/${TOPIC}`)).toStrictEqual([
      'kafka-cluster:DescribeTopic',
      'kafka-cluster:ReadData',
    ]);
    // The default group is named after the mapping's UUID, which exists after the role's policy.
    const groupArn = CLUSTER_ARN.replace(':cluster/', ':group/');
    expect(actionsOn(template, 'ConsumerRole', `${groupArn}/*`)).toStrictEqual([
      'kafka-cluster:AlterGroup',
      'kafka-cluster:DescribeGroup',
    ]);
    expect(actionsOn(template, 'ConsumerRole', '*')).toStrictEqual([
      'ec2:CreateNetworkInterface',
      'ec2:DeleteNetworkInterface',
      'ec2:DescribeNetworkInterfaces',
      'ec2:DescribeSecurityGroups',
      'ec2:DescribeSubnets',
      'ec2:DescribeVpcs',
    ]);
  });

  it("grants no queue actions and attaches no managed policy (AWSLambdaMSKExecutionRole's logs:* on *)", () => {
    // Assess
    const actions = actionsOf(statementsOfRole(template, 'ConsumerRole'));
    expect(actions.filter((action) => action.startsWith('sqs:'))).toStrictEqual([]);
    const [role] = Object.values(
      template.findResources('AWS::IAM::Role', { Properties: { Description: 'poison-quarantine consumer' } }),
    );
    expect(role?.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it("gives the pause machine the Kafka mapping's UUID and ARN, exactly as an SQS mapping's", () => {
    // Assess
    const { id } = onlyMapping(template);
    const { states } = stateMachineDefinition(template, 'Pause');
    for (const name of [
      'GetMappingSettings',
      'DisableMapping',
      'ReadMappingState',
      'EnableForProbe',
      'RestoreMapping',
    ]) {
      expect(states[name]?.Parameters).toMatchObject({ Uuid: `{{Ref ${id}}}` });
    }
    const pause = statementsOfRole(template, 'PipelinePauseRole');
    for (const action of ['lambda:getEventSourceMapping', 'lambda:updateEventSourceMapping']) {
      const resources = pause
        .filter((s) => actionsOf([s]).includes(action))
        .map((s) => JSON.stringify(s.Resource));
      expect(resources).toStrictEqual([
        expect.stringMatching(new RegExp(`event-source-mapping:.*"Ref":"${id}"`)),
      ]);
    }
    expect(pipeline.kafkaEventSourceMapping?.eventSourceMappingId).toBeDefined();
  });

  it('probes and restores the mapping by its batch size alone: a Kafka mapping takes no ScalingConfig', () => {
    // Assess
    const { states } = stateMachineDefinition(template, 'Pause');
    const scaling = Object.entries(states).filter(([, state]) =>
      JSON.stringify(state.Parameters ?? {}).includes('ScalingConfig'),
    );
    expect(scaling.map(([name]) => name)).toStrictEqual([]);
    expect(states.EnableForProbe.Parameters).toStrictEqual({
      Uuid: expect.any(String),
      BatchSize: 1,
      Enabled: true,
    });
    expect(states.RestoreMapping.Parameters).toStrictEqual({
      Uuid: expect.any(String),
      'BatchSize.$': '$.original.batchSize',
      Enabled: true,
    });
    expect(states.RestoreMapping.Next).toBe('RecordClosed');
    expect(states.RestoreUnscaledMapping).toBeUndefined();
  });

  it('has no queue, SQS event source or queue age alarm to hand out: reading them throws, naming the topic', () => {
    // Assess
    expect(() => pipeline.queue).toThrow(/Kafka\/Pipeline reads the Kafka topic orders: it has no queue/);
    expect(() => pipeline.eventSource).toThrow(/it has no eventSource/);
    expect(() => pipeline.alarms.oldestMessageAge).toThrow(/no oldestMessageAge alarm/);
    expect(pipeline.deadLetterQueue).toBeUndefined();
    expect(pipeline.alarms.backstopNotEmpty).toBeUndefined();
  });
});

describe('a pipeline reading a topic on Amazon MSK, its settings given', () => {
  it('joins the given consumer group from the newest record with SASL/SCRAM, the batch settings, and reads the secret', () => {
    // Prepare
    const { stack } = kafkaPipeline((scope) => ({
      kafka: {
        ...mskSource(),
        consumerGroupId: 'pq-orders',
        startingPosition: lambda.StartingPosition.LATEST,
        secret: credentials(scope),
        maxFailedProbes: 4,
      },
      batchSize: 100,
      maxBatchingWindow: Duration.seconds(5),
    }));
    // Act
    const template = Template.fromStack(stack);
    // Assess
    template.hasResourceProperties(MAPPING, {
      EventSourceArn: CLUSTER_ARN,
      StartingPosition: 'LATEST',
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 5,
      AmazonManagedKafkaEventSourceConfig: { ConsumerGroupId: 'pq-orders' },
      SourceAccessConfigurations: [{ Type: 'SASL_SCRAM_512_AUTH', URI: SECRET_ARN }],
    });
    expect(actionsOn(template, 'ConsumerRole', SECRET_ARN)).toStrictEqual([
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
    ]);
    // No IAM authentication with a secret: no kafka-cluster data-plane grants.
    const actions = actionsOf(statementsOfRole(template, 'ConsumerRole'));
    expect(actions.filter((action) => action.startsWith('kafka-cluster:'))).toStrictEqual([]);
    expect(consumerVariables(template)[ENV.batchingWindowSeconds]).toBe('5');
    expect(consumerVariables(template)[ENV.kafkaMaxFailedProbes]).toBe('4');
  });

  it('authenticates with an mTLS client certificate', () => {
    // Act
    const { stack } = kafkaPipeline((scope) => ({
      kafka: {
        ...mskSource(),
        secret: credentials(scope),
        authenticationMethod: AuthenticationMethod.CLIENT_CERTIFICATE_TLS_AUTH,
      },
    }));
    // Assess
    Template.fromStack(stack).hasResourceProperties(MAPPING, {
      SourceAccessConfigurations: [{ Type: 'CLIENT_CERTIFICATE_TLS_AUTH', URI: SECRET_ARN }],
    });
  });

  it('grants IAM authentication on the named consumer group only', () => {
    // Act
    const { stack } = kafkaPipeline(() => ({ kafka: { ...mskSource(), consumerGroupId: 'pq-orders' } }));
    // Assess
    const template = Template.fromStack(stack);
    const groupArn = `${CLUSTER_ARN.replace(':cluster/', ':group/')}/pq-orders`;
    expect(actionsOn(template, 'ConsumerRole', groupArn)).toStrictEqual([
      'kafka-cluster:AlterGroup',
      'kafka-cluster:DescribeGroup',
    ]);
    expect(JSON.stringify(statementsOfRole(template, 'ConsumerRole'))).not.toContain(
      ':group/orders/0a1b2c3d-4e5f-6789-abcd-ef0123456789-3/*',
    );
  });
});

describe('a pipeline reading a topic on Amazon MSK with provisioned pollers', () => {
  const provisionedPollerConfig = { minimumPollers: 1, maximumPollers: 4 };
  const { stack } = kafkaPipeline(() => ({ kafka: { ...mskSource(), provisionedPollerConfig } }));
  const template = Template.fromStack(stack);

  it('keeps the pollers and turns on partial batch responses, and tells the consumer to answer them', () => {
    // Assess: the mapping reads the consumer's answer only with ReportBatchItemFailures, and the
    // consumer answers only when told so: one prop sets both.
    template.hasResourceProperties(MAPPING, {
      ProvisionedPollerConfig: { MinimumPollers: 1, MaximumPollers: 4 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(consumerVariables(template)[ENV.kafkaPartialBatchResponse]).toBe('true');
  });
});

describe('a pipeline reading a topic on a self-managed cluster in a VPC', () => {
  const { stack } = kafkaPipeline((scope) => ({ kafka: selfManagedSource(scope) }));
  const template = Template.fromStack(stack);

  it('maps the bootstrap servers, the credentials, the security group and the subnets', () => {
    // Assess
    const { properties } = onlyMapping(template);
    expect(properties).toStrictEqual({
      FunctionName: { Ref: expect.stringMatching(/^PipelineConsumer[0-9A-F]{8}$/) },
      SelfManagedEventSource: { Endpoints: { KafkaBootstrapServers: BOOTSTRAP_SERVERS } },
      SelfManagedKafkaEventSourceConfig: { ConsumerGroupId: 'pq-orders' },
      Topics: [TOPIC],
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: DEFAULTS.batchSize,
      SourceAccessConfigurations: [
        { Type: 'BASIC_AUTH', URI: SECRET_ARN },
        { Type: 'VPC_SECURITY_GROUP', URI: SECURITY_GROUP },
        { Type: 'VPC_SUBNET', URI: SUBNETS[0] },
        { Type: 'VPC_SUBNET', URI: SUBNETS[1] },
      ],
    });
  });

  it('tells the consumer the bootstrap servers, joined by commas, and the topic', () => {
    // Assess
    const variables = consumerVariables(template);
    expect(variables).toMatchObject({
      [ENV.sourceKind]: SOURCE_KIND.kafka,
      [ENV.kafkaCluster]: BOOTSTRAP_SERVERS.join(','),
      [ENV.kafkaTopic]: TOPIC,
    });
    expect(Object.keys(variables).filter((name) => QUEUE_VARIABLES.includes(name))).toStrictEqual([]);
    template.resourceCountIs('AWS::SQS::Queue', 0);
  });

  it('lets Lambda read the secret and manage its network interfaces, and nothing of MSK', () => {
    // Assess
    expect(actionsOn(template, 'ConsumerRole', SECRET_ARN)).toStrictEqual([
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
    ]);
    expect(actionsOn(template, 'ConsumerRole', '*')).toContain('ec2:CreateNetworkInterface');
    const actions = actionsOf(statementsOfRole(template, 'ConsumerRole'));
    expect(actions.filter((action) => /^(kafka|kafka-cluster|sqs):/.test(action))).toStrictEqual([]);
  });

  it('grants no network interfaces to reach brokers on the internet', () => {
    // Act
    const { stack: internet } = kafkaPipeline((scope) => ({
      kafka: { bootstrapServers: BOOTSTRAP_SERVERS, topic: TOPIC, secret: credentials(scope) },
    }));
    // Assess
    const template = Template.fromStack(internet);
    template.hasResourceProperties(MAPPING, {
      SourceAccessConfigurations: [{ Type: 'SASL_SCRAM_512_AUTH', URI: SECRET_ARN }],
    });
    expect(
      actionsOf(statementsOfRole(template, 'ConsumerRole')).filter((a) => a.startsWith('ec2:')),
    ).toStrictEqual([]);
  });

  it('grants an operator the records and content, no queue, backstop or queue metric', () => {
    // Prepare
    const { stack: withOperator, pipeline } = kafkaPipeline((scope) => ({ kafka: selfManagedSource(scope) }));
    const role = new iam.Role(withOperator, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() });
    // Act
    pipeline.grantOperator(role);
    // Assess
    const actions = actionsOf(statementsOfRole(Template.fromStack(withOperator), 'OnCall'));
    expect(actions.filter((action) => /^(sqs|cloudwatch|s3:Put)/.test(action))).toStrictEqual([]);
    expect(actions).toEqual(expect.arrayContaining(['s3:GetObject', 'lambda:ListEventSourceMappings']));
  });

  it("grants an operator's replay the mapping's secret, which it authenticates with, and nothing of MSK", () => {
    // Prepare
    const { stack: withOperator, pipeline } = kafkaPipeline((scope) => ({ kafka: selfManagedSource(scope) }));
    const role = new iam.Role(withOperator, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() });
    // Act
    pipeline.grantOperator(role);
    // Assess
    const template = Template.fromStack(withOperator);
    expect(actionsOn(template, 'OnCall', SECRET_ARN)).toStrictEqual([
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
    ]);
    const actions = actionsOf(statementsOfRole(template, 'OnCall'));
    expect(actions.filter((action) => /^kafka(-cluster)?:/.test(action))).toStrictEqual([]);
  });
});

describe("an operator's replay to a topic on Amazon MSK", () => {
  /** The operator role's grants on a pipeline of `kafka`. */
  function operatorOf(kafka: (stack: ReturnType<typeof kafkaPipeline>['stack']) => KafkaSourceProps) {
    const { stack, pipeline } = kafkaPipeline((scope) => ({ kafka: kafka(scope) }));
    pipeline.grantOperator(new iam.Role(stack, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() }));
    const template = Template.fromStack(stack);
    return { template, actions: actionsOf(statementsOfRole(template, 'OnCall')) };
  }

  it('grants, with IAM authentication, the broker lookup, connecting, and describing and writing the topic (idempotently), nothing more', () => {
    // Act
    const { template, actions } = operatorOf(() => mskSource());
    // Assess
    expect(actionsOn(template, 'OnCall', CLUSTER_ARN)).toStrictEqual([
      'kafka-cluster:Connect',
      'kafka-cluster:WriteDataIdempotently',
      'kafka:GetBootstrapBrokers',
    ]);
    const topicArn = `${CLUSTER_ARN.replace(':cluster/', ':topic/')}/${TOPIC}`;
    expect(actionsOn(template, 'OnCall', topicArn)).toStrictEqual([
      'kafka-cluster:DescribeTopic',
      'kafka-cluster:WriteData',
    ]);
    expect(
      actions.filter((action) => /^(kafka(-cluster)?|secretsmanager):/.test(action)).sort(),
    ).toStrictEqual([
      'kafka-cluster:Connect',
      'kafka-cluster:DescribeTopic',
      'kafka-cluster:WriteData',
      'kafka-cluster:WriteDataIdempotently',
      'kafka:GetBootstrapBrokers',
    ]);
  });

  it('grants, with SASL/SCRAM, the broker lookup and the secret, and no IAM data-plane action', () => {
    // Act
    const { template, actions } = operatorOf((scope) => ({ ...mskSource(), secret: credentials(scope) }));
    // Assess
    expect(actionsOn(template, 'OnCall', CLUSTER_ARN)).toStrictEqual(['kafka:GetBootstrapBrokers']);
    expect(actionsOn(template, 'OnCall', SECRET_ARN)).toStrictEqual([
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
    ]);
    expect(actions.filter((action) => action.startsWith('kafka-cluster:'))).toStrictEqual([]);
  });

  it('grants, with an mTLS client certificate (which pq does not use), the broker lookup only: never the private key', () => {
    // Act
    const { template, actions } = operatorOf((scope) => ({
      ...mskSource(),
      secret: credentials(scope),
      authenticationMethod: AuthenticationMethod.CLIENT_CERTIFICATE_TLS_AUTH,
    }));
    // Assess
    expect(actionsOn(template, 'OnCall', CLUSTER_ARN)).toStrictEqual(['kafka:GetBootstrapBrokers']);
    expect(actions.filter((action) => /^(kafka-cluster|secretsmanager):/.test(action))).toStrictEqual([]);
  });
});

describe('an SQS pipeline, next to the Kafka source', () => {
  it('states its source kind explicitly and keeps its queue environment', () => {
    // Act
    const { template, pipeline } = synthPipeline();
    // Assess
    expect(consumerVariables(template)).toMatchObject({
      [ENV.sourceKind]: SOURCE_KIND.sqs,
      [ENV.fifo]: 'false',
      [ENV.backstopMaxReceiveCount]: '10',
    });
    expect(pipeline.kafkaEventSourceMapping).toBeUndefined();
    expect(pipeline.queue).toBeDefined();
  });
});

describe('Kafka source prop validation', () => {
  const refused =
    (props: (stack: ReturnType<typeof kafkaPipeline>['stack']) => Partial<PoisonQuarantineProps>) => () =>
      kafkaPipeline(props);
  const kafka = (extra: Partial<KafkaSourceProps>) => () => ({ kafka: { ...mskSource(), ...extra } });

  it.each<[string, Parameters<typeof refused>[0], RegExp]>([
    [
      'neither clusterArn nor bootstrapServers',
      () => ({ kafka: { topic: TOPIC } }),
      /kafka needs either clusterArn \(Amazon MSK\) or bootstrapServers \(self-managed\) \(given neither\)/,
    ],
    [
      'both clusterArn and bootstrapServers',
      (stack) => ({ kafka: { ...mskSource(), bootstrapServers: ['b:9092'], secret: credentials(stack) } }),
      /kafka takes either clusterArn or bootstrapServers, not both \(given clusterArn arn:aws:kafka:.*cluster\/orders\/.* and bootstrapServers b:9092\)/,
    ],
    [
      'an empty topic',
      kafka({ topic: '' }),
      /kafka\.topic must be 1 to 249 characters of A-Z a-z 0-9 \. _ - \(given ""\)/,
    ],
    ['a topic Kafka cannot name', kafka({ topic: 'orders!' }), /kafka\.topic .* \(given "orders!"\)/],
    [
      'a cluster ARN that is no MSK cluster',
      kafka({ clusterArn: 'arn:aws:sqs:eu-west-1:111111111111:orders' }),
      /kafka\.clusterArn must be an MSK cluster ARN.*\(given "arn:aws:sqs:eu-west-1:111111111111:orders"\)/,
    ],
    [
      'no bootstrap server',
      (stack) => ({ kafka: { bootstrapServers: [], topic: TOPIC, secret: credentials(stack) } }),
      /kafka\.bootstrapServers must list 1 to 10 brokers \(given 0\)/,
    ],
    [
      'a bootstrap server without its port',
      (stack) => ({
        kafka: { bootstrapServers: ['b-1.example.com'], topic: TOPIC, secret: credentials(stack) },
      }),
      /kafka\.bootstrapServers must be host:port each \(given "b-1\.example\.com"\)/,
    ],
    [
      'a consumer group Lambda cannot name',
      kafka({ consumerGroupId: 'orders group' }),
      /kafka\.consumerGroupId must be 1 to 200 characters .* \(given "orders group"\)/,
    ],
    [
      'a starting position at a timestamp',
      kafka({ startingPosition: lambda.StartingPosition.AT_TIMESTAMP }),
      /kafka\.startingPosition must be TRIM_HORIZON or LATEST \(given AT_TIMESTAMP\)/,
    ],
    [
      'no failed probe allowed',
      kafka({ maxFailedProbes: 0 }),
      /kafka\.maxFailedProbes must be an integer from 1 to 1000 \(given 0\)/,
    ],
    [
      'more failed probes than a redrive allows receives',
      kafka({ maxFailedProbes: 1001 }),
      /kafka\.maxFailedProbes must be an integer from 1 to 1000 \(given 1001\)/,
    ],
    ['a fraction of a probe', kafka({ maxFailedProbes: 2.5 }), /kafka\.maxFailedProbes .* \(given 2\.5\)/],
    [
      'no provisioned poller',
      kafka({ provisionedPollerConfig: { minimumPollers: 0, maximumPollers: 2 } }),
      /kafka\.provisionedPollerConfig\.minimumPollers must be an integer from 1 to 200 \(given 0\)/,
    ],
    [
      'more pollers than Lambda provisions',
      kafka({ provisionedPollerConfig: { minimumPollers: 1, maximumPollers: 2001 } }),
      /kafka\.provisionedPollerConfig\.maximumPollers must be an integer from 1 to 2000 \(given 2001\)/,
    ],
    [
      'a minimum above the maximum',
      kafka({ provisionedPollerConfig: { minimumPollers: 3, maximumPollers: 2 } }),
      /kafka\.provisionedPollerConfig\.minimumPollers must not exceed maximumPollers \(given 3 and 2\)/,
    ],
    [
      'an authentication method without a secret',
      kafka({ authenticationMethod: AuthenticationMethod.SASL_SCRAM_256_AUTH }),
      /kafka\.authenticationMethod needs a secret \(given authenticationMethod SASL_SCRAM_256_AUTH and no secret\)/,
    ],
    [
      'an authentication method MSK does not take',
      (stack) => ({
        kafka: {
          ...mskSource(),
          secret: credentials(stack),
          authenticationMethod: AuthenticationMethod.BASIC_AUTH,
        },
      }),
      /kafka\.authenticationMethod of an MSK cluster must be SASL_SCRAM_512_AUTH or CLIENT_CERTIFICATE_TLS_AUTH \(given BASIC_AUTH\)/,
    ],
    [
      'a VPC for an MSK cluster',
      (stack) => ({ kafka: { ...mskSource(), ...network(stack) } }),
      /kafka\.vpc, kafka\.securityGroup: Lambda reaches an MSK cluster through the cluster's own network.*\(given clusterArn and vpc, securityGroup\)/,
    ],
    [
      'a security group without a VPC',
      (stack) => ({
        kafka: {
          bootstrapServers: BOOTSTRAP_SERVERS,
          topic: TOPIC,
          secret: credentials(stack),
          securityGroup: network(stack).securityGroup,
        },
      }),
      /kafka\.securityGroup needs kafka\.vpc \(given securityGroup and no vpc\)/,
    ],
    [
      'a VPC without the pollers’ security group',
      (stack) => ({ kafka: { bootstrapServers: BOOTSTRAP_SERVERS, topic: TOPIC, vpc: network(stack).vpc } }),
      /kafka\.vpc needs kafka\.securityGroup.*\(given vpc and no securityGroup\)/,
    ],
    [
      'brokers on the internet without credentials',
      () => ({ kafka: { bootstrapServers: BOOTSTRAP_SERVERS, topic: TOPIC } }),
      /kafka needs a secret for brokers reached over the internet, or a vpc to reach them in \(given bootstrapServers, no secret and no vpc\)/,
    ],
    [
      'a consumer timeout above the 14 minutes of a Kafka mapping',
      () => ({ kafka: mskSource(), consumerTimeout: Duration.seconds(900) }),
      /consumerTimeout must be at most 840 seconds with kafka.*\(given 900 s\)/,
    ],
    [
      'a queue beside it',
      (stack) => ({
        kafka: mskSource(),
        queue: new sqs.Queue(stack, 'Orders', { visibilityTimeout: Duration.minutes(3) }),
      }),
      /queue is a setting of an SQS source, refused with kafka \(given queue Kafka\/Orders\)/,
    ],
    [
      'an imported queue beside it',
      (stack) => ({
        kafka: mskSource(),
        queue: sqs.Queue.fromQueueArn(stack, 'Orders', 'arn:aws:sqs:eu-west-1:111111111111:orders'),
      }),
      /queue is a setting of an SQS source, refused with kafka \(given queue arn:aws:sqs:eu-west-1:111111111111:orders\)/,
    ],
    [
      'fifo',
      () => ({ kafka: mskSource(), fifo: true }),
      /fifo is a setting of an SQS source, refused with kafka \(given fifo true\)/,
    ],
    [
      'a visibility timeout',
      () => ({ kafka: mskSource(), visibilityTimeout: Duration.minutes(3) }),
      /visibilityTimeout is a setting of an SQS source, refused with kafka \(given visibilityTimeout 180 s\)/,
    ],
    [
      'a backstop receive count',
      () => ({ kafka: mskSource(), backstopMaxReceiveCount: 12 }),
      /backstopMaxReceiveCount is a setting of an SQS source, refused with kafka \(given backstopMaxReceiveCount 12\)/,
    ],
    [
      'a backstop queue',
      (stack) => ({ kafka: mskSource(), backstopQueue: new sqs.Queue(stack, 'Backstop') }),
      /backstopQueue is a setting of an SQS source, refused with kafka \(given backstopQueue Kafka\/Backstop\)/,
    ],
    [
      'a maximum concurrency',
      () => ({ kafka: mskSource(), maxConcurrency: 5 }),
      /maxConcurrency is a setting of an SQS source, refused with kafka \(given maxConcurrency 5\)/,
    ],
    [
      'an oldest message age alarm',
      () => ({ kafka: mskSource(), oldestMessageAgeAlarm: Duration.minutes(5) }),
      /oldestMessageAgeAlarm is a setting of an SQS source, refused with kafka \(given oldestMessageAgeAlarm 300 s\)/,
    ],
  ])('refuses %s, naming the value', (_, props, message) => {
    expect(refused(props)).toThrow(message);
  });

  it('lists every problem at once, the queue settings and the Kafka settings together', () => {
    expect(
      refused((stack) => ({ kafka: { topic: '' }, fifo: true, queue: new sqs.Queue(stack, 'Orders') })),
    ).toThrow(
      /Invalid PoisonQuarantine props:\n- queue is a setting[\s\S]*\n- fifo is a setting[\s\S]*\n- kafka needs either[\s\S]*\n- kafka\.topic must be/,
    );
  });

  it("takes a batch above 10 without a batching window (SQS's rule is not Kafka's)", () => {
    expect(refused(() => ({ kafka: mskSource(), batchSize: 500 }))).not.toThrow();
  });

  it('accepts the documented combinations', () => {
    expect(refused((stack) => ({ kafka: selfManagedSource(stack) }))).not.toThrow();
    expect(
      refused((stack) => ({
        kafka: { bootstrapServers: BOOTSTRAP_SERVERS, topic: TOPIC, ...network(stack) },
      })),
    ).not.toThrow();
    expect(refused(() => ({ kafka: mskSource(), consumerTimeout: Duration.seconds(840) }))).not.toThrow();
  });
});
