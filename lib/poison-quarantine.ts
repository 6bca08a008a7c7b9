import { ArnFormat, Duration, Names, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { DEFAULTS } from '../contract/defaults';
import { ENV } from '../contract/env';
import { QUARANTINE_PREFIX } from '../contract/storage';
import { QuarantineAlarms } from './alarms';
import { ConsumerFunction } from './consumer-function';
import { OperationsStateMachine } from './operations-state-machine';
import { type PoisonQuarantineProps, validateProps } from './poison-quarantine-props';
import { QuarantineStorage } from './quarantine-storage';
import { StateTables } from './state-tables';

export type { PoisonQuarantineProps } from './poison-quarantine-props';

/**
 * An SQS queue wired to a Lambda consumer that records every attempt before its work starts,
 * quarantines poison messages with their exact content and evidence, and hands what needs a
 * person or a pause to a Step Functions state machine. See README.md for the behaviour.
 */
export class PoisonQuarantine extends Construct {
  public readonly queue: sqs.IQueue;
  /** The native-redrive backstop; undefined when the user brought their own queue. */
  public readonly deadLetterQueue?: sqs.Queue;
  public readonly consumer: ConsumerFunction;
  public readonly eventSource: SqsEventSource;
  public readonly attemptsTable: dynamodb.Table;
  public readonly controlTable: dynamodb.Table;
  public readonly quarantineTable: dynamodb.Table;
  public readonly quarantineBucket: s3.Bucket;
  public readonly topic: sns.ITopic;
  public readonly stateMachine: sfn.StateMachine;
  public readonly alarms: QuarantineAlarms;

  constructor(scope: Construct, id: string, props: PoisonQuarantineProps) {
    super(scope, id);
    validateProps(props);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const consumerTimeout = props.consumerTimeout ?? Duration.seconds(DEFAULTS.consumerTimeoutSeconds);
    const logRetention = logs.RetentionDays.ONE_MONTH;

    const created = props.queue ? undefined : this.createQueues(props, consumerTimeout);
    this.queue = props.queue ?? (created as { queue: sqs.Queue }).queue;
    this.deadLetterQueue = created?.deadLetterQueue;

    const tables = new StateTables(this, 'State', { removalPolicy });
    this.attemptsTable = tables.attempts;
    this.controlTable = tables.control;
    const storage = new QuarantineStorage(this, 'Quarantine', {
      removalPolicy,
      objectLock: props.objectLock ?? false,
      noncurrentVersionDays: DEFAULTS.noncurrentVersionDays,
      serverAccessLogsBucket: props.serverAccessLogsBucket,
    });
    this.quarantineTable = storage.table;
    this.quarantineBucket = storage.bucket;
    this.topic = props.alarmTopic ?? this.createTopic();

    // A fixed state machine name lets the consumer's environment name it without a reference:
    // the state machine refers to the event source mapping, which refers to the consumer.
    const stateMachineName = `${Names.uniqueResourceName(this, { maxLength: 76, separator: '-' })}-ops`;
    const stateMachineArn = Stack.of(this).formatArn({
      service: 'states',
      resource: 'stateMachine',
      resourceName: stateMachineName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });

    this.consumer = new ConsumerFunction(this, 'Consumer', {
      processorEntry: props.processorEntry,
      timeout: consumerTimeout,
      memorySize: props.memorySize ?? DEFAULTS.consumerMemoryMiB,
      logRetention,
      environment: {
        ...props.environment,
        ...this.runtimeEnvironment(props, tables, storage, stateMachineArn),
        [ENV.consumerTimeoutSeconds]: String(consumerTimeout.toSeconds()),
      },
    });
    this.eventSource = new SqsEventSource(this.queue, {
      batchSize: props.batchSize ?? DEFAULTS.batchSize,
      maxBatchingWindow: props.maxBatchingWindow,
      maxConcurrency: props.maxConcurrency ?? DEFAULTS.maxConcurrency,
      reportBatchItemFailures: true,
    });
    this.consumer.addEventSource(this.eventSource);
    this.grantConsumer(tables, storage, stateMachineArn);

    this.stateMachine = new OperationsStateMachine(this, 'Operations', {
      stateMachineName,
      eventSourceMappingId: this.eventSource.eventSourceMappingId,
      eventSourceMappingArn: this.eventSource.eventSourceMappingArn,
      quarantineTable: this.quarantineTable,
      attemptsTable: this.attemptsTable,
      controlTable: this.controlTable,
      topic: this.topic,
      logRetention,
      operatorHeartbeat: props.operatorHeartbeat ?? Duration.seconds(DEFAULTS.operatorHeartbeatSeconds),
      operatorTimeout: props.operatorTimeout ?? Duration.seconds(DEFAULTS.operatorTimeoutSeconds),
      pauseDefaults: breakerTimings(props),
    }).stateMachine;

    this.alarms = new QuarantineAlarms(this, 'Alarms', {
      topic: this.topic,
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      consumer: this.consumer,
      consumerLogGroup: this.consumer.logGroup,
      oldestMessageAge: props.oldestMessageAgeAlarm ?? Duration.minutes(15),
    });
  }

  /**
   * Lets an operator (a role, user or group) inspect quarantined content, record causes and
   * decisions, answer Step Functions approvals, replay, freeze replay, and pause or resume the
   * consumer. Task results cannot be scoped to one state machine in IAM: this grant includes
   * states:SendTask* on every resource.
   */
  public grantOperator(grantee: iam.IGrantable): void {
    this.quarantineTable.grantReadWriteData(grantee);
    this.controlTable.grantReadWriteData(grantee);
    this.attemptsTable.grantReadWriteData(grantee);
    this.quarantineBucket.grantRead(grantee, `${QUARANTINE_PREFIX}*`);
    this.queue.grantSendMessages(grantee);
    this.stateMachine.grantStartExecution(grantee);
    this.stateMachine.grantRead(grantee);
    iam.Grant.addToPrincipal({
      grantee,
      actions: ['states:SendTaskSuccess', 'states:SendTaskFailure', 'states:SendTaskHeartbeat'],
      resourceArns: ['*'],
    });
    iam.Grant.addToPrincipal({
      grantee,
      actions: ['lambda:GetEventSourceMapping', 'lambda:UpdateEventSourceMapping'],
      resourceArns: [this.eventSource.eventSourceMappingArn],
    });
    iam.Grant.addToPrincipal({
      grantee,
      actions: ['sqs:GetQueueAttributes'],
      resourceArns: [this.queue.queueArn],
    });
    // The CLI finds everything else from the consumer's environment and its mapping.
    iam.Grant.addToPrincipal({
      grantee,
      actions: ['lambda:GetFunctionConfiguration'],
      resourceArns: [this.consumer.functionArn],
    });
    // ListEventSourceMappings supports no resource-level permissions.
    iam.Grant.addToPrincipal({ grantee, actions: ['lambda:ListEventSourceMappings'], resourceArns: ['*'] });
  }

  private createQueues(props: PoisonQuarantineProps, consumerTimeout: Duration) {
    const fifo = props.fifo ?? false;
    const common = {
      fifo: fifo || undefined,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(DEFAULTS.retentionDays),
      maxMessageSizeBytes: DEFAULTS.maxMessageSizeBytes,
    };
    const deadLetterQueue = new sqs.Queue(this, 'Backstop', common);
    const queue = new sqs.Queue(this, 'Source', {
      ...common,
      contentBasedDeduplication: fifo || undefined,
      visibilityTimeout:
        props.visibilityTimeout ??
        Duration.seconds(consumerTimeout.toSeconds() * DEFAULTS.visibilityTimeoutFactor),
      deadLetterQueue: {
        queue: deadLetterQueue,
        maxReceiveCount: props.backstopMaxReceiveCount ?? DEFAULTS.backstopMaxReceiveCount,
      },
    });
    return { queue, deadLetterQueue };
  }

  private createTopic(): sns.Topic {
    // A customer-managed key: CloudWatch alarms cannot publish to a topic under the AWS-managed key.
    const key = new kms.Key(this, 'TopicKey', {
      enableKeyRotation: true,
      description: 'poison-quarantine operator notifications',
    });
    key.grant(new iam.ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    return new sns.Topic(this, 'Topic', { masterKey: key, enforceSSL: true });
  }

  private runtimeEnvironment(
    props: PoisonQuarantineProps,
    tables: StateTables,
    storage: QuarantineStorage,
    stateMachineArn: string,
  ): Record<string, string> {
    const optional = (name: string, value: number | string | undefined) =>
      value === undefined ? {} : { [name]: String(value) };
    const timings = breakerTimings(props);
    return {
      [ENV.attemptsTable]: tables.attempts.tableName,
      [ENV.controlTable]: tables.control.tableName,
      [ENV.quarantineTable]: storage.table.tableName,
      [ENV.quarantineBucket]: storage.bucket.bucketName,
      [ENV.stateMachineArn]: stateMachineArn,
      [ENV.sourceQueueUrl]: this.queue.queueUrl,
      [ENV.sourceQueueArn]: this.queue.queueArn,
      [ENV.fifo]: String(this.queue.fifo),
      [ENV.attemptLimit]: String(props.attemptLimit ?? DEFAULTS.attemptLimit),
      [ENV.inProcessConcurrency]: String(props.inProcessConcurrency ?? DEFAULTS.inProcessConcurrency),
      ...optional(ENV.transientRetries, props.transientRetries),
      ...optional(ENV.outageFailureThreshold, props.outageFailureThreshold),
      ...optional(ENV.outageWindowSeconds, props.outageWindow?.toSeconds()),
      ...optional(ENV.isolationTrialMessages, props.isolationTrialMessages),
      ...optional(ENV.quarantineShareThreshold, props.quarantineShareThreshold),
      ...optional(ENV.quarantineShareWindow, props.quarantineShareWindow),
      ...optional(ENV.quarantineCapacity, props.quarantineCapacity),
      ...optional(ENV.messageKeyPath, props.messageKeyPath),
      // The consumer passes these in every pause execution's input.
      [ENV.breakerCooldownSeconds]: String(timings.cooldownSeconds),
      [ENV.breakerMaxCooldownSeconds]: String(timings.maxCooldownSeconds),
      [ENV.breakerProbeSeconds]: String(timings.probeSeconds),
    };
  }

  /** Least privilege: the consumer writes quarantine content but can never read or delete it. */
  private grantConsumer(tables: StateTables, storage: QuarantineStorage, stateMachineArn: string): void {
    const role = this.consumer.role as iam.IRole;
    const allow = (actions: string[], resources: string[]) =>
      role.addToPrincipalPolicy(new iam.PolicyStatement({ actions, resources }));
    allow(['dynamodb:UpdateItem', 'dynamodb:GetItem'], [tables.attempts.tableArn]);
    allow(['dynamodb:Query'], [tables.byEnvIndexArn]);
    allow(
      [
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:Query',
      ],
      [tables.control.tableArn],
    );
    allow(['dynamodb:PutItem'], [storage.table.tableArn]);
    // Counting open records (rule 11a) reads keys of the status index, never content.
    allow(['dynamodb:Query'], [`${storage.table.tableArn}/index/byStatus`]);
    allow(['s3:PutObject'], [storage.bucket.arnForObjects(`${QUARANTINE_PREFIX}*`)]);
    allow(['states:StartExecution'], [stateMachineArn]);
    allow(['sqs:ChangeMessageVisibility'], [this.queue.queueArn]);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(storage.bucket.node.defaultChild as s3.CfnBucket)}.Arn>/${QUARANTINE_PREFIX}*]`,
      reason:
        'Each quarantined message gets its own object key (its quarantine id), unknown in advance; ' +
        'the consumer may only put objects under the quarantine prefix, never read or delete them.',
    });
  }
}

/** The breaker timings in seconds: the props, or the contract's defaults. */
function breakerTimings(props: PoisonQuarantineProps) {
  return {
    cooldownSeconds: props.breakerCooldown?.toSeconds() ?? DEFAULTS.breakerCooldownSeconds,
    maxCooldownSeconds: props.breakerMaxCooldown?.toSeconds() ?? DEFAULTS.breakerMaxCooldownSeconds,
    probeSeconds: props.breakerProbeWindow?.toSeconds() ?? DEFAULTS.breakerProbeSeconds,
    pollSeconds: DEFAULTS.breakerPollSeconds,
  };
}
