import { CfnParameter, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../contract/defaults';
import { ENV } from '../../contract/env';
import { BREAKER_UNREADABLE_LOG_EVENT } from '../../contract/log-events';
import { BACKSTOP_RECORD_ID_PREFIX, OPEN_RECORDS_COUNTER } from '../../contract/quarantine';
import { QUARANTINE_PREFIX } from '../../contract/storage';
import { PoisonQuarantine } from '../../lib/poison-quarantine';
import type { PoisonQuarantineProps } from '../../lib/poison-quarantine-props';
import {
  actionsOf,
  FIXTURE_PROCESSOR,
  type PolicyStatement,
  pipelineStack,
  statementsOfRole,
  synthPipeline,
  templateApp,
} from './synth';

/**
 * A statement's resource as a short readable name: logical ids lose their hash suffix, joins are
 * joined (`PipelineQuarantineRecords/index/byStatus`), `*` stays `*`.
 */
function nameOf(resource: unknown): string {
  if (typeof resource === 'string') return resource;
  const reference = resource as {
    Ref?: string;
    'Fn::GetAtt'?: [string, string];
    'Fn::Join'?: [string, unknown[]];
  };
  const join = reference['Fn::Join'];
  if (join) return join[1].map(nameOf).join(join[0]);
  return (reference.Ref ?? reference['Fn::GetAtt']?.[0] ?? JSON.stringify(resource)).replace(
    /[0-9A-F]{8}$/,
    '',
  );
}

/** Short names of every resource an action is granted on, sorted. */
function grantedOn(statements: readonly PolicyStatement[], action: string): string[] {
  return statements
    .filter((statement) => actionsOf([statement]).includes(action))
    .flatMap((statement) => [statement.Resource].flat().map(nameOf))
    .sort();
}

describe('PoisonQuarantine with default props', () => {
  const { template } = synthPipeline();

  it('creates an encrypted, SSL-only source queue with a backstop redrive of 10 and 1 MiB messages', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 86_400,
      MaximumMessageSize: 1_048_576,
      VisibilityTimeout: 6 * DEFAULTS.consumerTimeoutSeconds,
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: 10 },
    });
    template.resourceCountIs('AWS::SQS::Queue', 2);
    template.resourcePropertiesCountIs(
      'AWS::SQS::QueuePolicy',
      {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      },
      2,
    );
  });

  it('bundles the consumer for arm64 on the newest Node.js runtime with its own log group', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Timeout: DEFAULTS.consumerTimeoutSeconds,
      MemorySize: DEFAULTS.consumerMemoryMiB,
      LoggingConfig: { LogFormat: 'JSON', LogGroup: Match.anyValue() },
    });
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it('hands every table, bucket, queue and both state machines to the consumer through the shared env names', () => {
    const env = template.findResources('AWS::Lambda::Function');
    const variables = Object.values(env)[0].Properties.Environment.Variables;
    expect(Object.keys(variables)).toEqual(
      expect.arrayContaining([
        ENV.attemptsTable,
        ENV.controlTable,
        ENV.quarantineTable,
        ENV.quarantineBucket,
        ENV.pauseStateMachineArn,
        ENV.verificationStateMachineArn,
        ENV.sourceQueueUrl,
        ENV.sourceQueueArn,
        ENV.fifo,
        ENV.attemptLimit,
        ENV.inProcessConcurrency,
      ]),
    );
    expect(variables[ENV.attemptLimit]).toBe('3');
    expect(variables[ENV.fifo]).toBe('false');
    // Fixed names: the machines refer to the mapping, which refers to the consumer.
    const machineArn = (name: string) => ({
      'Fn::Join': [
        '',
        ['arn:', { Ref: 'AWS::Partition' }, `:states:eu-west-1:111111111111:stateMachine:${name}`],
      ],
    });
    expect(variables[ENV.pauseStateMachineArn]).toStrictEqual(machineArn('Test-Pipeline-9942903C-pause'));
    expect(variables[ENV.verificationStateMachineArn]).toStrictEqual(
      machineArn('Test-Pipeline-9942903C-verification'),
    );
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineName: 'Test-Pipeline-9942903C-pause',
    });
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineName: 'Test-Pipeline-9942903C-verification',
    });
  });

  it('maps the queue with partial batch responses, batch size and maximum concurrency', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: DEFAULTS.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: DEFAULTS.maxConcurrency },
    });
  });

  it('keeps attempts on demand with TTL, PITR and the sparse byEnv index', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      GlobalSecondaryIndexes: [
        Match.objectLike({ IndexName: 'byEnv', KeySchema: [{ AttributeName: 'envId', KeyType: 'HASH' }] }),
      ],
    });
  });

  it('keeps control state keyed by pk and sk with TTL', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('lists quarantine records by status and time, and finds them by message key and by message id', () => {
    const index = (name: string, partition: string, projection: string) =>
      Match.objectLike({
        IndexName: name,
        KeySchema: [
          { AttributeName: partition, KeyType: 'HASH' },
          { AttributeName: 'createdAt', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: projection },
      });
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      GlobalSecondaryIndexes: [
        index('byStatus', 'status', 'ALL'),
        index('byMessageKey', 'messageKey', 'KEYS_ONLY'),
        index('byMessageId', 'messageId', 'KEYS_ONLY'),
      ],
    });
  });

  it('keeps quarantined content private, versioned, encrypted and SSL-only, without Object Lock by default', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      VersioningConfiguration: { Status: 'Enabled' },
      BucketEncryption: Match.objectLike({
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      }),
      LifecycleConfiguration: {
        Rules: [Match.objectLike({ NoncurrentVersionExpiration: { NoncurrentDays: 90 }, Status: 'Enabled' })],
      },
      ObjectLockEnabled: false,
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('retains tables and bucket on stack deletion', () => {
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain' });
  });

  it('lets the consumer put quarantine objects but never read or delete them', () => {
    const actions = actionsOf(statementsOfRole(template, 'ConsumerRole'));
    expect(actions).toContain('s3:PutObject');
    expect(actions.filter((action) => /^s3:(Get|Delete|List)/.test(action))).toEqual([]);
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:UpdateItem', 'states:StartExecution']));
  });

  it('lets the consumer only count quarantine records on the byStatus index, never read them', () => {
    const onIndex = statementsOfRole(template, 'ConsumerRole').filter(
      (statement) => nameOf(statement.Resource) === 'PipelineQuarantineRecords/index/byStatus',
    );
    expect(onIndex).toEqual([
      expect.objectContaining({
        Action: 'dynamodb:Query',
        Condition: { StringEquals: { 'dynamodb:Select': 'COUNT' } },
      }),
    ]);
  });

  it('lets the consumer only create quarantine records: PutItem, no delete or batch write, updates on the counter only', () => {
    const statements = statementsOfRole(template, 'ConsumerRole');
    const onQuarantine = statements.filter((statement) =>
      [statement.Resource]
        .flat()
        .map(nameOf)
        .some((name) => name.startsWith('PipelineQuarantineRecords')),
    );
    expect(actionsOf(onQuarantine).sort()).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    expect(grantedOn(statements, 'dynamodb:PutItem')).toContain('PipelineQuarantineRecords');
    const onCounter = onQuarantine.filter((statement) =>
      [statement.Action].flat().includes('dynamodb:UpdateItem'),
    );
    // Its count only, returning no more than it names (test/cdk/role-writes.test.ts lists every write).
    expect(onCounter.map((statement) => statement.Condition)).toEqual([
      {
        'ForAllValues:StringEquals': {
          'dynamodb:LeadingKeys': [OPEN_RECORDS_COUNTER.key.id],
          'dynamodb:Attributes': ['id', OPEN_RECORDS_COUNTER.attributes.count],
        },
        StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'] },
      },
    ]);
  });

  it('refuses, server-side and for every principal, a put under the quarantine prefix without If-None-Match', () => {
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Action: 's3:PutObject',
            Resource: {
              'Fn::Join': [
                '',
                [
                  { 'Fn::GetAtt': [Match.stringLikeRegexp('QuarantineContent'), 'Arn'] },
                  `/${QUARANTINE_PREFIX}*`,
                ],
              ],
            },
            // Multipart parts (CreateMultipartUpload, UploadPart) are no object creation and take
            // no conditional header; CompleteMultipartUpload is one, and must carry it.
            Condition: {
              Null: { 's3:if-none-match': 'true' },
              Bool: { 's3:ObjectCreationOperation': 'true' },
            },
          },
        ]),
      },
    });
  });

  it('runs two Standard, traced state machines whose logs exclude execution data, each with its own role', () => {
    const machines = template.findResources('AWS::StepFunctions::StateMachine', {
      Properties: {
        StateMachineType: 'STANDARD',
        TracingConfiguration: { Enabled: true },
        LoggingConfiguration: Match.objectLike({ IncludeExecutionData: false, Level: 'ALL' }),
      },
    });
    const roles = Object.values(machines).map((machine) => machine.Properties.RoleArn['Fn::GetAtt'][0]);
    expect(roles).toEqual([
      expect.stringMatching(/^PipelinePauseRole/),
      expect.stringMatching(/^PipelineVerificationRole/),
    ]);
  });

  it('lets the consumer start both state machines and describe its own pause runs only', () => {
    const statements = statementsOfRole(template, 'ConsumerRole');
    const arn = 'arn:AWS::Partition:states:eu-west-1:111111111111';
    expect(grantedOn(statements, 'states:StartExecution')).toEqual([
      `${arn}:stateMachine:Test-Pipeline-9942903C-pause`,
      `${arn}:stateMachine:Test-Pipeline-9942903C-verification`,
    ]);
    expect(grantedOn(statements, 'states:DescribeExecution')).toEqual([
      `${arn}:execution:Test-Pipeline-9942903C-pause:pause-*`,
    ]);
  });

  it('encrypts the operator topic with a rotating customer-managed key', () => {
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
  });

  it('alarms on quarantines, a non-empty backstop, old messages and consumer errors, all to the topic', () => {
    // 9 of the pipeline's own, and 3 per state machine (failed, timed out, aborted executions).
    template.resourceCountIs('AWS::CloudWatch::Alarm', 15);
    for (const metricName of [
      'Quarantined',
      'ApproximateNumberOfMessagesVisible',
      'ApproximateAgeOfOldestMessage',
      'Errors',
    ]) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: metricName,
        ComparisonOperator: 'GreaterThanThreshold',
        AlarmActions: [{ Ref: Match.stringLikeRegexp('Topic') }],
      });
    }
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.event = "quarantined" }',
      MetricTransformations: [
        Match.objectLike({ MetricNamespace: 'PoisonQuarantine', MetricName: 'Quarantined' }),
      ],
    });
  });

  it('alarms when a pause has kept consumption stopped past pausedTooLongAlarm, and when a decision is overdue', () => {
    // The state machines publish them, with the queue as the dimension.
    const queueArn = { 'Fn::GetAtt': [Match.stringLikeRegexp('PipelineSource'), 'Arn'] };
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'PoisonQuarantine',
      MetricName: 'PausedSeconds',
      Statistic: 'Maximum',
      Threshold: 3600,
      Dimensions: [{ Name: 'Queue', Value: queueArn }],
      AlarmActions: [{ Ref: Match.stringLikeRegexp('Topic') }],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'PoisonQuarantine',
      MetricName: 'OperatorDecisionOverdue',
      Threshold: 0,
      Dimensions: [{ Name: 'Queue', Value: queueArn }],
      AlarmActions: [{ Ref: Match.stringLikeRegexp('Topic') }],
    });
  });

  it('counts quarantines in the series the alarm watches: the queue the filter names', () => {
    // A filter's dimensions make a series of their own; an alarm without them would never fire.
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.event = "quarantined" }',
      MetricTransformations: [Match.objectLike({ Dimensions: [{ Key: 'Queue', Value: '$.sourceQueue' }] })],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'PoisonQuarantine',
      MetricName: 'Quarantined',
      Dimensions: [
        { Name: 'Queue', Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('PipelineSource'), 'Arn'] } },
      ],
    });
  });

  it('alarms when the consumer finds the breaker item unreadable, for this queue only, to the topic', () => {
    // The consumer's log line names its queue; the alarm watches that queue's series alone, so
    // another pipeline's garbled breaker in the account does not page this one's operators.
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: `{ $.event = "${BREAKER_UNREADABLE_LOG_EVENT}" }`,
      MetricTransformations: [
        Match.objectLike({
          MetricNamespace: 'PoisonQuarantine',
          MetricName: 'BreakerUnreadable',
          Dimensions: [{ Key: 'Queue', Value: '$.sourceQueue' }],
        }),
      ],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'PoisonQuarantine',
      MetricName: 'BreakerUnreadable',
      Dimensions: [
        { Name: 'Queue', Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('PipelineSource'), 'Arn'] } },
      ],
      Statistic: 'Sum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: Match.stringLikeRegexp('Topic') }],
      AlarmDescription: Match.stringLikeRegexp('pq reset-breaker'),
    });
  });

  it('alarms when an execution of either state machine fails, times out or is aborted, to the topic', () => {
    for (const machine of ['PipelinePause', 'PipelineVerification']) {
      for (const metricName of ['ExecutionsFailed', 'ExecutionsTimedOut', 'ExecutionsAborted']) {
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/States',
          MetricName: metricName,
          Dimensions: [{ Name: 'StateMachineArn', Value: { Ref: Match.stringLikeRegexp(machine) } }],
          Statistic: 'Sum',
          Threshold: 0,
          ComparisonOperator: 'GreaterThanThreshold',
          TreatMissingData: 'notBreaching',
          AlarmActions: [{ Ref: Match.stringLikeRegexp('Topic') }],
        });
      }
    }
  });
});

describe('PoisonQuarantine options', () => {
  it('creates FIFO source and backstop queues', () => {
    const { template } = synthPipeline({ fifo: true, batchSize: 10 });
    template.resourcePropertiesCountIs('AWS::SQS::Queue', { FifoQueue: true }, 2);
    template.hasResourceProperties('AWS::SQS::Queue', { FifoQueue: true, ContentBasedDeduplication: true });
  });

  it('turns on Object Lock when asked', () => {
    const { template } = synthPipeline({ objectLock: true });
    template.hasResourceProperties('AWS::S3::Bucket', {
      ObjectLockEnabled: true,
      ObjectLockConfiguration: {
        ObjectLockEnabled: 'Enabled',
        Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: 30 } },
      },
    });
  });

  it('passes tuning props to the event source and the runtime', () => {
    const { template } = synthPipeline({
      attemptLimit: 5,
      batchSize: 25,
      maxConcurrency: 7,
      maxBatchingWindow: Duration.seconds(4),
      inProcessConcurrency: 4,
      messageKeyPath: 'order.id',
      consumerTimeout: Duration.seconds(10),
      quarantineCapacity: 250,
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 25,
      MaximumBatchingWindowInSeconds: 4,
      ScalingConfig: { MaximumConcurrency: 7 },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Timeout: 10,
      Environment: {
        Variables: Match.objectLike({
          [ENV.attemptLimit]: '5',
          [ENV.inProcessConcurrency]: '4',
          [ENV.messageKeyPath]: 'order.id',
          [ENV.quarantineCapacity]: '250',
        }),
      },
    });
    template.hasResourceProperties('AWS::SQS::Queue', { VisibilityTimeout: 60 });
  });

  it.each<[string, (stack: Stack) => Partial<PoisonQuarantineProps>, string]>([
    ['its own queue with the default', () => ({}), '10'],
    ['its own queue with a higher limit', () => ({ backstopMaxReceiveCount: 15 }), '15'],
    [
      'a given queue whose dead-letter queue CDK knows',
      (stack) => ({
        queue: new sqs.Queue(stack, 'Given', {
          visibilityTimeout: Duration.seconds(6 * DEFAULTS.consumerTimeoutSeconds),
          deadLetterQueue: { queue: new sqs.Queue(stack, 'GivenDlq'), maxReceiveCount: 12 },
        }),
      }),
      '12',
    ],
  ])('tells the consumer the redrive limit it must quarantine before: %s', (_, props, expected) => {
    const app = templateApp();
    const stack = new Stack(app, 'Limit');
    new PoisonQuarantine(stack, 'Pipeline', { processorEntry: FIXTURE_PROCESSOR, ...props(stack) });
    const consumer = Object.values(
      Template.fromStack(stack).findResources('AWS::Lambda::Function', {
        Properties: {
          Environment: { Variables: Match.objectLike({ [ENV.attemptsTable]: Match.anyValue() }) },
        },
      }),
    );
    expect(consumer).toHaveLength(1);
    expect(consumer[0]?.Properties.Environment.Variables[ENV.backstopMaxReceiveCount]).toBe(expected);
  });

  it('grants an operator exactly what pq calls, each on its own resource', () => {
    const { stack, pipeline } = pipelineStack();
    const role = new iam.Role(stack, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() });
    const grant = pipeline.grantOperator(role);
    const statements = statementsOfRole(Template.fromStack(stack), 'OnCall');
    expect(grant.success).toBe(true);
    expect(grant.principalStatements.length).toBeGreaterThan(0);
    const records = 'PipelineQuarantineRecords';
    const attempts = 'PipelineStateAttempts';
    const control = 'PipelineStateControl';
    const expected: Record<string, string[]> = {
      'dynamodb:GetItem': [records, attempts, control],
      'dynamodb:UpdateItem': [records, attempts, control],
      'dynamodb:BatchGetItem': [control],
      // The stop requests (pq status, and the resume that lifts them); pq find's two indexes.
      'dynamodb:Query': [
        `${records}/index/byMessageId`,
        `${records}/index/byMessageKey`,
        `${records}/index/byStatus`,
        control,
      ],
      // An answer is recorded only while the breaker is still paused in its epoch.
      'dynamodb:ConditionCheckItem': [control],
      's3:GetObject': [`PipelineQuarantineContent/${QUARANTINE_PREFIX}*`],
      // pq backstop take: a taken message's content, under its own record's id only.
      's3:PutObject': [`PipelineQuarantineContent/${QUARANTINE_PREFIX}${BACKSTOP_RECORD_ID_PREFIX}*`],
      's3:ListBucket': ['PipelineQuarantineContent'],
      'sqs:SendMessage': ['PipelineSource'],
      // status reads the source queue's depth, and pq backstop its redrive policy and the backstop's depth.
      'sqs:GetQueueAttributes': ['PipelineBackstop', 'PipelineSource'],
      // pq backstop: find, list, hold and, once taken or redriven, delete.
      'sqs:GetQueueUrl': ['PipelineBackstop'],
      'sqs:ReceiveMessage': ['PipelineBackstop'],
      'sqs:ChangeMessageVisibility': ['PipelineBackstop'],
      'sqs:DeleteMessage': ['PipelineBackstop'],
      // status and the console: the age of the queue's oldest message, reported to CloudWatch only.
      'cloudwatch:GetMetricData': ['*'],
      'states:SendTaskSuccess': ['*'],
      'lambda:GetFunctionConfiguration': ['PipelineConsumer'],
      'lambda:ListEventSourceMappings': ['*'],
      // resume and hold start the next pause run when none is running (issue 8, defect 1);
      // no command starts a verification.
      'states:StartExecution': ['PipelinePause'],
      // ... and verify checks that a record's execution still waits (issue 8, defect 3).
      'states:DescribeExecution': [
        'arn:AWS::Partition:states:eu-west-1:111111111111:execution:Test-Pipeline-9942903C-pause:pause-*',
        'arn:AWS::Partition:states:eu-west-1:111111111111:execution:Test-Pipeline-9942903C-verification:ou-*',
      ],
    };
    expect([...new Set(actionsOf(statements))].sort()).toEqual(Object.keys(expected).sort());
    for (const [action, resources] of Object.entries(expected)) {
      expect({ action, on: grantedOn(statements, action) }).toEqual({ action, on: [...resources].sort() });
    }
  });

  it('keeps the audit trail append-only for operators: no delete, put or batch write on any table', () => {
    const { stack, pipeline } = pipelineStack();
    const role = new iam.Role(stack, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() });
    pipeline.grantOperator(role);
    const statements = statementsOfRole(Template.fromStack(stack), 'OnCall');
    const actions = actionsOf(statements);
    expect(actions.filter((action) => /^dynamodb:(Delete|Put|BatchWrite|PartiQL|\*)/.test(action))).toEqual(
      [],
    );
    expect(actions.filter((action) => /^(s3:Delete|states:Stop|lambda:Update)/.test(action))).toEqual([]);
    // The one put: a backstop take's content, under the backstop records' ids only.
    expect(grantedOn(statements, 's3:PutObject')).toEqual([
      `PipelineQuarantineContent/${QUARANTINE_PREFIX}${BACKSTOP_RECORD_ID_PREFIX}*`,
    ]);
  });

  it("lets an operator replay onto the user's own KMS-encrypted queue", () => {
    const app = templateApp();
    const stack = new Stack(app, 'Mine', { env: { account: '111111111111', region: 'eu-west-1' } });
    const queue = new sqs.Queue(stack, 'Orders', {
      encryption: sqs.QueueEncryption.KMS,
      visibilityTimeout: Duration.seconds(6 * DEFAULTS.consumerTimeoutSeconds),
    });
    const pipeline = new PoisonQuarantine(stack, 'Pipeline', { processorEntry: FIXTURE_PROCESSOR, queue });
    const role = new iam.Role(stack, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() });
    pipeline.grantOperator(role);
    const statements = statementsOfRole(Template.fromStack(stack), 'OnCall');
    expect(grantedOn(statements, 'sqs:SendMessage')).toEqual(['Orders']);
    const onKey = statements.filter((statement) => nameOf(statement.Resource) === 'OrdersKey');
    expect(actionsOf(onKey).sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
  });
});

describe('PoisonQuarantine prop validation', () => {
  it.each([
    [{ attemptLimit: 0 }, /attemptLimit must be an integer from 1 to 100 \(given 0\)/],
    [
      { backstopMaxReceiveCount: 3 },
      /backstopMaxReceiveCount must be an integer from 10 \(attemptLimit 3 \+ transientRetries 3 \+ 4\) to 1000 \(given 3\)/,
    ],
    [{ maxConcurrency: 1 }, /maxConcurrency must be an integer from 2 to 1000 \(given 1\)/],
    [{ batchSize: 20, fifo: true }, /batchSize must be an integer from 1 to 10 \(given 20\)/],
    [
      { quarantineShareThreshold: 1.5 },
      /quarantineShareThreshold must be between 0 and 1, exclusive \(given 1.5\)/,
    ],
    [
      { consumerTimeout: Duration.seconds(30), visibilityTimeout: Duration.seconds(60) },
      /visibilityTimeout must be at least 6x consumerTimeout \(given visibilityTimeout 60 s, consumerTimeout 30 s\)/,
    ],
    [
      { consumerTimeout: Duration.seconds(901) },
      /consumerTimeout must be from 1 to 900 seconds \(given 901 s\)/,
    ],
    [
      { maxBatchingWindow: Duration.seconds(301) },
      /maxBatchingWindow must be from 0 to 300 seconds \(given 301 s\)/,
    ],
    [
      { fifo: true, maxBatchingWindow: Duration.seconds(5) },
      /maxBatchingWindow is not supported for FIFO queues \(given 5 s\)/,
    ],
    [{ messageKeyPath: 'a..b' }, /messageKeyPath must be a dotted path like "order.id" \(given "a..b"\)/],
    [{ memorySize: 64 }, /memorySize must be an integer from 128 to 10240 \(given 64\)/],
    [{ quarantineCapacity: 0 }, /quarantineCapacity must be an integer from 1 to 1000000 \(given 0\)/],
    // Lambda refuses a standard queue's batch above 10 without a batching window of 1 s or more.
    [
      { batchSize: 100 },
      /batchSize above 10 needs a maxBatchingWindow of at least 1 second \(given batchSize 100, maxBatchingWindow 0 s\)/,
    ],
  ])('rejects %o', (props, message) => {
    expect(() => pipelineStack(props)).toThrow(message);
  });

  it('accepts a batch above 10 with a batching window', () => {
    expect(() => pipelineStack({ batchSize: 100, maxBatchingWindow: Duration.seconds(1) })).not.toThrow();
  });

  it('leaves values only known at deployment (unresolved tokens) to CloudFormation', () => {
    const { stack } = pipelineStack();
    const limit = new CfnParameter(stack, 'AttemptLimit', { type: 'Number', default: 3 });
    const timeout = new CfnParameter(stack, 'TimeoutSeconds', { type: 'Number', default: 30 });

    const construct = () =>
      new PoisonQuarantine(stack, 'FromParameters', {
        processorEntry: FIXTURE_PROCESSOR,
        attemptLimit: limit.valueAsNumber,
        breakerCooldown: Duration.seconds(timeout.valueAsNumber),
      });

    expect(construct).not.toThrow();
  });

  it('lists every problem at once', () => {
    expect(() => pipelineStack({ attemptLimit: 0, maxConcurrency: 1, inProcessConcurrency: 0 })).toThrow(
      /attemptLimit[\s\S]*maxConcurrency[\s\S]*inProcessConcurrency/,
    );
  });

  it('refuses an existing queue together with queue settings', () => {
    const { stack } = pipelineStack();
    const queue = new sqs.Queue(stack, 'Mine');
    expect(
      () => new PoisonQuarantine(stack, 'Again', { processorEntry: FIXTURE_PROCESSOR, queue, fifo: false }),
    ).toThrow(/give either queue or queue settings, not both \(given queue and fifo\)/);
  });
});
