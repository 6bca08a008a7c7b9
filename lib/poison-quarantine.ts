import { ArnFormat, CfnOutput, Duration, Names, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { AuthenticationMethod, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { CONSUMER_PARTITIONS } from '../contract/control';
import { DEFAULTS } from '../contract/defaults';
import { ENV } from '../contract/env';
import { EXECUTION_NAME_PREFIX } from '../contract/executions';
import { CONSUMER_METRIC, type ConsumerMetric } from '../contract/metrics';
import {
  BACKSTOP_RECORD_ID_PREFIX,
  OPEN_RECORDS_COUNTER,
  QUARANTINE_RECORD_ID_PREFIX,
} from '../contract/quarantine';
import { SOURCE_KIND } from '../contract/sources';
import { QUARANTINE_PREFIX } from '../contract/storage';
import { QuarantineAlarms } from './alarms';
import { ConsumerFunction } from './consumer-function';
import { QuarantineDashboard } from './dashboard';
import { addKafkaSource, kafkaCluster, kafkaSourceName, mskClusterArn, mskResourceArn } from './kafka-source';
import type { KafkaSourceProps } from './kafka-source-props';
import { type ConsumerMetricOptions, PipelineMetrics } from './metrics';
import { PauseStateMachine } from './operations/pause-state-machine';
import type { EventSourceMappingRef } from './operations/steps';
import { VerificationStateMachine } from './operations/verification-state-machine';
import { type PoisonQuarantineProps, validateProps } from './poison-quarantine-props';
import { QuarantineStorage } from './quarantine-storage';
import { backstopMaxReceiveCount, knownBackstop, warnUncheckedVisibility } from './source-queue-limits';
import { StateTables } from './state-tables';

export type { KafkaSourceProps } from './kafka-source-props';
export type { PoisonQuarantineProps } from './poison-quarantine-props';

/**
 * An SQS queue (or, with `kafka`, a Kafka topic) wired to a Lambda consumer that records every
 * attempt before its work starts, quarantines poison messages with their exact content and
 * evidence, and hands what needs a person or a pause to two Step Functions state machines. See
 * README.md for the behaviour.
 */
export class PoisonQuarantine extends Construct {
  /**
   * The native-redrive backstop: the created one, a given queue's redrive target when CDK knows it,
   * or the `backstopQueue` prop; undefined for an imported queue without that prop.
   */
  public readonly deadLetterQueue?: sqs.IQueue;
  /** The consumer function: the project's wrapper bundled with the user's processing module. */
  public readonly consumer: ConsumerFunction;
  /**
   * With `kafka`: the consumer's Kafka event source mapping, which a pause disables and restores;
   * undefined for an SQS source (see `eventSource`).
   */
  public readonly kafkaEventSourceMapping?: lambda.EventSourceMapping;
  /** The attempts ledger: one item per message key (docs/design.md). */
  public readonly attemptsTable: dynamodb.Table;
  /** The control state: breaker, isolation trial, failure window, replay freeze (docs/design.md). */
  public readonly controlTable: dynamodb.Table;
  /** The quarantine records and their status. */
  public readonly quarantineTable: dynamodb.Table;
  /** The quarantined messages' exact content and evidence. */
  public readonly quarantineBucket: s3.Bucket;
  /** Where alarms and operator notifications go: the `alarmTopic` prop, or the one created. */
  public readonly topic: sns.ITopic;
  /** Rules 7 and 11: disables the event source mapping, probes, and restores it (`pause-<epoch>`). */
  public readonly pauseStateMachine: sfn.StateMachine;
  /** Rule 8: an outcome-unknown record waits for an operator's decision (`ou-<quarantine id>`). */
  public readonly verificationStateMachine: sfn.StateMachine;
  /** The alarms an operator must hear about, each sent to `topic`. */
  public readonly alarms: QuarantineAlarms;
  /** Queue, consumer, quarantines, breaker and executions on one page (lib/dashboard.ts). */
  public readonly dashboard: cloudwatch.Dashboard;
  private readonly storage: QuarantineStorage;
  private readonly sourceQueue?: sqs.IQueue;
  private readonly sqsEventSource?: SqsEventSource;
  private readonly kafka?: KafkaSourceProps;
  /** The name of this pipeline's metric series: the queue's ARN, or the Kafka cluster and topic. */
  private readonly sourceName: string;
  /** Its runs are every run of every pause (`pause-<epoch>`, `pause-<epoch>-r<n>`): their status is read. */
  private readonly pauseMachine: OperationsMachineNames;
  /** Its runs are the outcome-unknown waits (`ou-<quarantine id>`): pq verify reads whether one still runs. */
  private readonly verificationMachine: OperationsMachineNames;

  constructor(scope: Construct, id: string, props: PoisonQuarantineProps) {
    super(scope, id);
    validateProps(props);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const consumerTimeout = props.consumerTimeout ?? Duration.seconds(DEFAULTS.consumerTimeoutSeconds);
    warnUncheckedVisibility(this, props, consumerTimeout.toSeconds());
    const logRetention = logs.RetentionDays.ONE_MONTH;

    if (props.kafka === undefined) {
      const created = props.queue ? undefined : this.createQueues(props, consumerTimeout);
      this.sourceQueue = props.queue ?? (created as { queue: sqs.Queue }).queue;
      this.deadLetterQueue = created?.deadLetterQueue ?? knownBackstop(props);
      this.sourceName = this.sourceQueue.queueArn;
    } else {
      this.kafka = props.kafka;
      this.sourceName = kafkaSourceName(props.kafka);
    }

    const tables = new StateTables(this, 'State', { removalPolicy });
    this.attemptsTable = tables.attempts;
    this.controlTable = tables.control;
    const storage = new QuarantineStorage(this, 'Quarantine', {
      removalPolicy,
      objectLock: props.objectLock ?? false,
      noncurrentVersionDays: DEFAULTS.noncurrentVersionDays,
      serverAccessLogsBucket: props.serverAccessLogsBucket,
    });
    this.storage = storage;
    this.quarantineTable = storage.table;
    this.quarantineBucket = storage.bucket;
    this.topic = props.alarmTopic ?? this.createTopic();

    this.pauseMachine = operationsMachineNames(this, 'pause', EXECUTION_NAME_PREFIX.pause);
    this.verificationMachine = operationsMachineNames(
      this,
      'verification',
      EXECUTION_NAME_PREFIX.outcomeUnknown,
    );

    this.consumer = new ConsumerFunction(this, 'Consumer', {
      processorEntry: props.processorEntry,
      timeout: consumerTimeout,
      memorySize: props.memorySize ?? DEFAULTS.consumerMemoryMiB,
      logRetention,
      environment: {
        ...props.environment,
        ...this.runtimeEnvironment(props, tables, storage),
        [ENV.consumerTimeoutSeconds]: String(consumerTimeout.toSeconds()),
      },
      vpc: props.vpc,
      vpcSubnets: props.vpcSubnets,
      securityGroups: props.securityGroups,
      layers: props.layers,
      bundling: props.bundling,
      tracing: props.tracing,
    });
    let mapping: EventSourceMappingRef;
    if (this.kafka === undefined) {
      this.sqsEventSource = new SqsEventSource(this.queue, {
        batchSize: props.batchSize ?? DEFAULTS.batchSize,
        maxBatchingWindow: props.maxBatchingWindow,
        maxConcurrency: props.maxConcurrency ?? DEFAULTS.maxConcurrency,
        reportBatchItemFailures: true,
      });
      this.consumer.addEventSource(this.sqsEventSource);
      mapping = {
        id: this.sqsEventSource.eventSourceMappingId,
        arn: this.sqsEventSource.eventSourceMappingArn,
        scales: true,
      };
    } else {
      this.kafkaEventSourceMapping = addKafkaSource(this.consumer, this.kafka, {
        batchSize: props.batchSize ?? DEFAULTS.batchSize,
        maxBatchingWindow: props.maxBatchingWindow,
      });
      mapping = {
        id: this.kafkaEventSourceMapping.eventSourceMappingId,
        arn: this.kafkaEventSourceMapping.eventSourceMappingArn,
        scales: false,
      };
    }
    this.grantConsumer(tables, storage);

    const operations = {
      topic: this.topic,
      sourceName: this.sourceName,
      logRetention,
      operatorHeartbeat: props.operatorHeartbeat ?? Duration.seconds(DEFAULTS.operatorHeartbeatSeconds),
      operatorTimeout: props.operatorTimeout ?? Duration.seconds(DEFAULTS.operatorTimeoutSeconds),
    };
    this.pauseStateMachine = new PauseStateMachine(this, 'Pause', {
      ...operations,
      stateMachineName: this.pauseMachine.name,
      eventSourceMapping: mapping,
      controlTable: this.controlTable,
      pauseDefaults: breakerTimings(props),
    }).stateMachine;
    this.verificationStateMachine = new VerificationStateMachine(this, 'Verification', {
      ...operations,
      stateMachineName: this.verificationMachine.name,
      quarantineTable: this.quarantineTable,
      attemptsTable: this.attemptsTable,
    }).stateMachine;

    this.alarms = new QuarantineAlarms(this, 'Alarms', {
      topic: this.topic,
      queue: this.sourceQueue,
      sourceName: this.sourceName,
      deadLetterQueue: this.deadLetterQueue,
      consumer: this.consumer,
      consumerLogGroup: this.consumer.logGroup,
      oldestMessageAge: props.oldestMessageAgeAlarm ?? Duration.minutes(15),
      pausedTooLong: props.pausedTooLongAlarm ?? Duration.hours(1),
      stateMachines: { pause: this.pauseStateMachine, verification: this.verificationStateMachine },
    });
    this.dashboard = new QuarantineDashboard(this, 'Dashboard', {
      queue: this.sourceQueue,
      sourceName: this.sourceName,
      deadLetterQueue: this.deadLetterQueue,
      consumer: this.consumer,
      stateMachines: { pause: this.pauseStateMachine, verification: this.verificationStateMachine },
      alarms: this.alarms.alarms,
    }).dashboard;
    this.addOutputs();
  }

  /**
   * The source queue: the `queue` prop, or the one created. A pipeline reading a Kafka topic has
   * none: reading it throws.
   */
  public get queue(): sqs.IQueue {
    if (this.sourceQueue === undefined) throw this.noQueue('queue');
    return this.sourceQueue;
  }

  /**
   * The consumer's SQS event source: its mapping is what a pause disables and restores. A pipeline
   * reading a Kafka topic has none (its mapping is `kafkaEventSourceMapping`): reading it throws.
   */
  public get eventSource(): SqsEventSource {
    if (this.sqsEventSource === undefined) throw this.noQueue('eventSource');
    return this.sqsEventSource;
  }

  private noQueue(member: string): Error {
    return new Error(
      `${this.node.path} reads the Kafka topic ${this.kafka?.topic}: it has no ${member} (an SQS source's; see kafkaEventSourceMapping)`,
    );
  }

  /**
   * Quarantine records created (rule 3), summed per minute unless `options` say otherwise; with
   * `reason`, only that reason's (`crash-limit`, `outcome-unknown`, ...).
   */
  public metricQuarantined(options: ConsumerMetricOptions = {}): cloudwatch.Metric {
    return this.metricConsumer(CONSUMER_METRIC.quarantines, options);
  }

  /** Outcome-unknown records (rule 8), each waiting for a person; summed per minute by default. */
  public metricOutcomeUnknown(options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.metricConsumer(CONSUMER_METRIC.outcomeUnknown, options);
  }

  /** Breaker trips (rules 7 and 11); with `reason`, only that pause reason's (`outage`, ...). */
  public metricBreakerTrips(options: ConsumerMetricOptions = {}): cloudwatch.Metric {
    return this.metricConsumer(CONSUMER_METRIC.breakerTrips, options);
  }

  /** Attempts recorded before their work started (rule 1), restarts included; summed per minute. */
  public metricAttempts(options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.metricConsumer(CONSUMER_METRIC.attempts, options);
  }

  /** Any count the consumer publishes (CONSUMER_METRIC), of this pipeline's queue. */
  public metricConsumer(metricName: ConsumerMetric, options: ConsumerMetricOptions = {}): cloudwatch.Metric {
    return new PipelineMetrics(this.sourceName).consumer(metricName, options);
  }

  /**
   * What an operator needs after a deploy: the consumer function, which `pq` finds everything
   * else from (cli/deployment.ts), and the command line that shows the pipeline's state.
   */
  private addOutputs(): void {
    new CfnOutput(this, 'ConsumerFunctionName', {
      description: 'The consumer function: pq --function names it',
      value: this.consumer.functionName,
    });
    new CfnOutput(this, 'OperatorCommand', {
      description: 'The state of this pipeline (pq help lists the other commands)',
      value: `pq status --function ${this.consumer.functionName} --region ${Stack.of(this).region}`,
    });
  }

  /**
   * Lets an operator (a role, user or group) run every `pq` command and nothing more: exactly the
   * calls the CLI makes (cli/deployment.ts and the adapters it builds), each on its own resource.
   * Three cannot be narrowed and are acknowledged for cdk-nag on the grantee's policy: task
   * answers (states:SendTaskSuccess), listing the consumer's mappings and reading the queue's
   * oldest message age (cloudwatch:GetMetricData) take Resource "*". That acknowledgement is by
   * finding id, so it also covers other `*` grants of the same principal. A pipeline reading a
   * Kafka topic grants no queue or backstop rights (it has neither), and what a replay needs to
   * produce to the topic as the consumer's mapping authenticates.
   */
  public grantOperator(grantee: iam.IGrantable): iam.Grant {
    const grant = [
      ...this.operatorTableGrants(grantee),
      ...this.operatorContentAndQueueGrants(grantee),
      ...this.operatorDeploymentGrants(grantee),
      ...this.operatorKafkaReplayGrants(grantee),
    ].reduce((all, one) => all.combine(one));
    this.acknowledgeOperatorWildcards(grantee);
    return grant;
  }

  /**
   * Operators hold no DeleteItem, PutItem or BatchWriteItem on any table, so no record, ledger
   * item or control item (with the audit entries on it) can be removed or replaced whole.
   * UpdateItem is the CLI's only write; each one on a record or a control item appends its audit
   * entry, and only to a trail still holding every entry appended before (docs/design.md, "The
   * audit trail"). IAM cannot limit what an update expression sets: a hand-made UpdateItem can
   * still rewrite a trail, and the tables' point-in-time recovery keeps what it overwrote.
   */
  private operatorTableGrants(grantee: iam.IGrantable): iam.Grant[] {
    const allow = (actions: string[], resourceArn: string) =>
      iam.Grant.addToPrincipal({ grantee, actions, resourceArns: [resourceArn] });
    return [
      // Records: get and taskTokenOf (show, verify, replay); setCause, appendAudit, replay claims.
      allow(['dynamodb:GetItem', 'dynamodb:UpdateItem'], this.quarantineTable.tableArn),
      // list (pq list, status and the --group forms); the reader projects the task token away.
      allow(['dynamodb:Query'], this.storage.byStatusIndexArn),
      // find: the ids of a message key's or message id's records (keys only).
      ...this.storage.findIndexArns.map((arn) => allow(['dynamodb:Query'], arn)),
      // Ledger: get (show); resetForReplay and markQuarantined (replay and its undo).
      allow(['dynamodb:GetItem', 'dynamodb:UpdateItem'], this.attemptsTable.tableArn),
      // Control: read, breakerTaskToken, the stop requests, snapshot; setOperatorAction (resume,
      // hold: the answer and the stops lifted, checked against the breaker in one transaction),
      // setReplayFreeze, resetUnreadableBreaker.
      allow(
        [
          'dynamodb:GetItem',
          'dynamodb:BatchGetItem',
          'dynamodb:Query',
          'dynamodb:UpdateItem',
          'dynamodb:ConditionCheckItem',
        ],
        this.controlTable.tableArn,
      ),
    ];
  }

  /**
   * A Kafka pipeline's operator gets the content reads only: it has no queue to replay onto or
   * read the depth of, and no backstop to take from (replaying to a topic is not granted here).
   */
  private operatorContentAndQueueGrants(grantee: iam.IGrantable): iam.Grant[] {
    const queue = this.sourceQueue;
    const read = (actions: string[], resourceArn: string) =>
      iam.Grant.addToPrincipal({ grantee, actions, resourceArns: [resourceArn] });
    if (queue === undefined) {
      return [
        read(['s3:GetObject'], this.quarantineBucket.arnForObjects(`${QUARANTINE_PREFIX}*`)),
        read(['s3:ListBucket'], this.quarantineBucket.bucketArn),
      ];
    }
    const grants = [
      // readBody and readEnvelope (show, replay): read only, never delete.
      iam.Grant.addToPrincipal({
        grantee,
        actions: ['s3:GetObject'],
        resourceArns: [this.quarantineBucket.arnForObjects(`${QUARANTINE_PREFIX}*`)],
      }),
      // pq backstop take puts a message's content under its own record's id only (If-None-Match:
      // never over an object that exists), never another record's.
      iam.Grant.addToPrincipal({
        grantee,
        actions: ['s3:PutObject'],
        resourceArns: [
          this.quarantineBucket.arnForObjects(`${QUARANTINE_PREFIX}${BACKSTOP_RECORD_ID_PREFIX}*`),
        ],
      }),
      // Without it S3 answers a missing key with 403, not 404, and pq show could not tell a
      // record whose envelope is missing from a refused read. Keys are ids pq list shows anyway.
      iam.Grant.addToPrincipal({
        grantee,
        actions: ['s3:ListBucket'],
        resourceArns: [this.quarantineBucket.bucketArn],
      }),
      // replay sends the exact body back; status reads the queue's depth.
      queue.grant(grantee, 'sqs:SendMessage', 'sqs:GetQueueAttributes'),
      // status and the console show the age of the queue's oldest message, which SQS reports to
      // CloudWatch only. GetMetricData supports no resource-level permissions.
      iam.Grant.addToPrincipal({ grantee, actions: ['cloudwatch:GetMetricData'], resourceArns: ['*'] }),
    ];
    // A queue the user brought may be encrypted with their own key, which a sender needs.
    const key = queue.encryptionMasterKey;
    return [
      ...grants,
      ...(key ? [key.grant(grantee, 'kms:GenerateDataKey', 'kms:Decrypt')] : []),
      ...this.operatorBackstopGrants(grantee),
    ];
  }

  /** pq backstop: find it (GetQueueUrl), list and hold its messages, delete one only once taken or redriven. */
  private operatorBackstopGrants(grantee: iam.IGrantable): iam.Grant[] {
    const backstop = this.deadLetterQueue;
    if (backstop === undefined) return [];
    const grant = backstop.grant(
      grantee,
      'sqs:GetQueueUrl',
      'sqs:GetQueueAttributes',
      'sqs:ReceiveMessage',
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
    );
    const key = backstop.encryptionMasterKey;
    return key ? [grant, key.grant(grantee, 'kms:Decrypt')] : [grant];
  }

  /**
   * A replay to the topic authenticates as the consumer's mapping does (cli/kafka-connection.ts):
   * with the mapping's SASL secret (never an mTLS client certificate, which pq does not use);
   * for MSK it looks the brokers up, and with IAM authentication (no secret) it connects, describes
   * the topic and writes it. Its producer is idempotent, which MSK's IAM authorizes on the cluster
   * (kafka-cluster:WriteDataIdempotently), not the topic. A replay to another topic
   * (--replay-topic) is not granted here. Finding the mapping is lambda:ListEventSourceMappings.
   */
  private operatorKafkaReplayGrants(grantee: iam.IGrantable): iam.Grant[] {
    const kafka = this.kafka;
    if (kafka === undefined) return [];
    const allow = (actions: string[], resourceArn: string) =>
      iam.Grant.addToPrincipal({ grantee, actions, resourceArns: [resourceArn] });
    const saslSecret = kafka.authenticationMethod !== AuthenticationMethod.CLIENT_CERTIFICATE_TLS_AUTH;
    const secret = kafka.secret && saslSecret ? [kafka.secret.grantRead(grantee)] : [];
    const clusterArn = mskClusterArn(kafka);
    if (clusterArn === undefined) return secret;
    const lookup = allow(['kafka:GetBootstrapBrokers'], clusterArn);
    if (kafka.secret !== undefined) return [...secret, lookup];
    return [
      lookup,
      allow(['kafka-cluster:Connect', 'kafka-cluster:WriteDataIdempotently'], clusterArn),
      allow(
        ['kafka-cluster:DescribeTopic', 'kafka-cluster:WriteData'],
        mskResourceArn(clusterArn, 'topic', kafka.topic),
      ),
    ];
  }

  private operatorDeploymentGrants(grantee: iam.IGrantable): iam.Grant[] {
    return [
      // verify, resume and hold answer an operator wait. A task token cannot be scoped to one
      // state machine in IAM; the token itself is the credential.
      iam.Grant.addToPrincipal({ grantee, actions: ['states:SendTaskSuccess'], resourceArns: ['*'] }),
      // The CLI finds everything else from the consumer's environment and its mapping.
      iam.Grant.addToPrincipal({
        grantee,
        actions: ['lambda:GetFunctionConfiguration'],
        resourceArns: [this.consumer.functionArn],
      }),
      // ListEventSourceMappings supports no resource-level permissions.
      iam.Grant.addToPrincipal({ grantee, actions: ['lambda:ListEventSourceMappings'], resourceArns: ['*'] }),
      // resume, hold and reset-breaker start the next pause run when none is running, or
      // nothing would read their action. No command starts a verification.
      iam.Grant.addToPrincipal({
        grantee,
        actions: ['states:StartExecution'],
        resourceArns: [this.pauseStateMachine.stateMachineArn],
      }),
      // status names the runs of an open breaker's pause; verify checks that a record's
      // execution still waits before it answers through it.
      iam.Grant.addToPrincipal({
        grantee,
        actions: ['states:DescribeExecution'],
        resourceArns: [this.pauseMachine.runsArn, this.verificationMachine.runsArn],
      }),
    ];
  }

  /** cdk-nag reports on the grantee's policy, so the acknowledgements go on the grantee. */
  private acknowledgeOperatorWildcards(grantee: iam.IGrantable): void {
    const principal = grantee.grantPrincipal;
    // A principal that is no construct (an account, a service) got no policy, hence no finding.
    if (!Construct.isConstruct(principal)) return;
    Validations.of(principal).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'states:SendTaskSuccess cannot be scoped to a state machine in IAM (the task token is the ' +
          'credential); ' +
          (this.sourceQueue === undefined
            ? 'lambda:ListEventSourceMappings supports no resource-level permissions.'
            : 'lambda:ListEventSourceMappings and cloudwatch:GetMetricData (the age of the ' +
              "queue's oldest message) support no resource-level permissions."),
      },
      {
        id: this.quarantineObjectsFinding(),
        reason:
          'Each quarantined message has its own object keys (its quarantine id), unknown in advance; ' +
          'the operator may only get objects under the quarantine prefix, never delete them.',
      },
      {
        id: this.quarantineObjectsFinding(BACKSTOP_RECORD_ID_PREFIX),
        reason:
          'pq backstop take puts a message taken from the backstop under its own record id, made from ' +
          'its SQS message id and unknown in advance; only under the backstop records prefix, never over an existing object.',
      },
      {
        id: this.pauseMachine.runsFinding,
        reason:
          'A pause episode may need several runs, named as they are needed; the operator may only ' +
          'describe pause executions, to see whether one drives an open breaker back.',
      },
      {
        id: this.verificationMachine.runsFinding,
        reason:
          'Each outcome-unknown record has its own execution (ou-<quarantine id>); the operator may only ' +
          'describe them, to answer a record whose execution is gone on the record itself.',
      },
    );
  }

  /** The cdk-nag finding of a grant on every object under the quarantine prefix (and `idPrefix`). */
  private quarantineObjectsFinding(idPrefix = ''): string {
    const bucket = Stack.of(this).getLogicalId(this.quarantineBucket.node.defaultChild as s3.CfnBucket);
    return `AwsSolutions-IAM5[Resource::<${bucket}.Arn>/${QUARANTINE_PREFIX}${idPrefix}*]`;
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
        maxReceiveCount: backstopMaxReceiveCount(props),
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
  ): Record<string, string> {
    const optional = (name: string, value: number | string | undefined) =>
      value === undefined ? {} : { [name]: String(value) };
    const timings = breakerTimings(props);
    return {
      [ENV.attemptsTable]: tables.attempts.tableName,
      [ENV.controlTable]: tables.control.tableName,
      [ENV.quarantineTable]: storage.table.tableName,
      [ENV.quarantineBucket]: storage.bucket.bucketName,
      [ENV.pauseStateMachineArn]: this.pauseMachine.arn,
      [ENV.verificationStateMachineArn]: this.verificationMachine.arn,
      ...this.sourceEnvironment(),
      [ENV.attemptLimit]: String(props.attemptLimit ?? DEFAULTS.attemptLimit),
      [ENV.inProcessConcurrency]: String(props.inProcessConcurrency ?? DEFAULTS.inProcessConcurrency),
      ...optional(ENV.transientRetries, props.transientRetries),
      ...optional(ENV.outageFailureThreshold, props.outageFailureThreshold),
      ...optional(ENV.outageWindowSeconds, props.outageWindow?.toSeconds()),
      ...optional(ENV.isolationTrialMessages, props.isolationTrialMessages),
      ...optional(ENV.batchingWindowSeconds, props.maxBatchingWindow?.toSeconds()),
      ...optional(ENV.quarantineShareThreshold, props.quarantineShareThreshold),
      ...optional(ENV.quarantineShareWindow, props.quarantineShareWindow),
      ...optional(ENV.quarantineCapacity, props.quarantineCapacity),
      ...optional(ENV.messageKeyPath, props.messageKeyPath),
      ...(this.sourceQueue === undefined
        ? {}
        : { [ENV.backstopMaxReceiveCount]: String(backstopMaxReceiveCount(props)) }),
      // The consumer passes these in every pause execution's input.
      [ENV.breakerCooldownSeconds]: String(timings.cooldownSeconds),
      [ENV.breakerMaxCooldownSeconds]: String(timings.maxCooldownSeconds),
      [ENV.breakerProbeSeconds]: String(timings.probeSeconds),
    };
  }

  /** Which source the consumer reads, and where: the queue's URL and ARN, or the Kafka cluster and topic. */
  private sourceEnvironment(): Record<string, string> {
    if (this.sourceQueue === undefined) {
      const kafka = this.kafka as KafkaSourceProps;
      return {
        [ENV.sourceKind]: SOURCE_KIND.kafka,
        [ENV.kafkaCluster]: kafkaCluster(kafka),
        [ENV.kafkaTopic]: kafka.topic,
        [ENV.kafkaMaxFailedProbes]: String(kafka.maxFailedProbes ?? DEFAULTS.kafkaMaxFailedProbes),
        [ENV.kafkaPartialBatchResponse]: String(kafka.provisionedPollerConfig !== undefined),
      };
    }
    return {
      [ENV.sourceKind]: SOURCE_KIND.sqs,
      [ENV.sourceQueueUrl]: this.sourceQueue.queueUrl,
      [ENV.sourceQueueArn]: this.sourceQueue.queueArn,
      [ENV.fifo]: String(this.sourceQueue.fifo),
    };
  }

  /** Least privilege: the consumer writes quarantine content but can never read or delete it. */
  private grantConsumer(tables: StateTables, storage: QuarantineStorage): void {
    const role = this.consumer.role as iam.IRole;
    const allow = (actions: string[], resources: string[], conditions?: Record<string, unknown>) =>
      role.addToPrincipalPolicy(new iam.PolicyStatement({ actions, resources, conditions }));
    // BatchGetItem: one read orders a batch's redelivered records (lambdas/core/suspects.ts).
    allow(['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:BatchGetItem'], [tables.attempts.tableArn]);
    allow(['dynamodb:Query'], [tables.byEnvIndexArn]);
    // It reads the whole control table (the replay freeze is an operator's item), and writes its
    // own partitions only: what operators and the pause machine decide (an episode's answer, the
    // stops lifted, the freeze) is in the operator partition, which no write of its can reach.
    allow(['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'], [tables.control.tableArn]);
    allow(['dynamodb:PutItem', 'dynamodb:UpdateItem'], [tables.control.tableArn], {
      'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': Object.values(CONSUMER_PARTITIONS) },
    });
    // Records are put under their own ids (`q-...`), so never over the open-record counter; the
    // writer's attribute_not_exists(id) keeps them create-only, which IAM cannot enforce. It
    // holds no DeleteItem or BatchWriteItem, and no UpdateItem on a record.
    allow(['dynamodb:PutItem'], [storage.table.tableArn], {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${QUARANTINE_RECORD_ID_PREFIX}*`] },
    });
    // The open-record counter (rule 11a), read before a quarantine and added to in the record's
    // own transaction: that one item only, and of it the count only (IAM cannot tell an ADD
    // from a SET), returning nothing more than it names.
    const counter = { 'dynamodb:LeadingKeys': [OPEN_RECORDS_COUNTER.key.id] };
    allow(['dynamodb:GetItem'], [storage.table.tableArn], { 'ForAllValues:StringEquals': counter });
    allow(['dynamodb:UpdateItem'], [storage.table.tableArn], {
      'ForAllValues:StringEquals': {
        ...counter,
        'dynamodb:Attributes': ['id', OPEN_RECORDS_COUNTER.attributes.count],
      },
      StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'] },
    });
    // Counting open records (rule 11a). The index projects whole records, task tokens included:
    // the condition lets only COUNT queries through, which return a number and no item.
    allow(['dynamodb:Query'], [storage.byStatusIndexArn], { StringEquals: { 'dynamodb:Select': 'COUNT' } });
    allow(['s3:PutObject'], [storage.bucket.arnForObjects(`${QUARANTINE_PREFIX}*`)]);
    // A trip starts a pause; an outcome-unknown quarantine starts its verification.
    allow(['states:StartExecution'], [this.pauseMachine.arn, this.verificationMachine.arn]);
    // An open breaker must always have a live pause: the consumer reads its pause runs' status.
    allow(['states:DescribeExecution'], [this.pauseMachine.runsArn]);
    // Backoff and early acknowledgements of finished records (lambdas/consumer/batch.ts).
    if (this.sourceQueue !== undefined) {
      allow(['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage'], [this.sourceQueue.queueArn]);
    }
    Validations.of(role).acknowledge(
      {
        id: this.quarantineObjectsFinding(),
        reason:
          'Each quarantined message gets its own object key (its quarantine id), unknown in advance; ' +
          'the consumer may only put objects under the quarantine prefix, never read or delete them.',
      },
      {
        id: this.pauseMachine.runsFinding,
        reason:
          'A pause episode may need several runs (pause-<epoch>, pause-<epoch>-r2, ...), named as they ' +
          'are needed; the consumer may only describe its own pause executions, to restart a dead one.',
      },
    );
  }
}

/** An operations state machine's fixed name and ARN, and the name pattern and ARN of one kind of its runs. */
interface OperationsMachineNames {
  readonly name: string;
  readonly arn: string;
  /** `<machine name>:<execution prefix>*` */
  readonly runsName: string;
  readonly runsArn: string;
  /** The cdk-nag finding of a grant on every one of those runs (a name ending in `*`). */
  readonly runsFinding: string;
}

/**
 * A fixed state machine name lets the consumer's environment name it without a reference: the
 * pause machine refers to the event source mapping, which refers to the consumer.
 */
function operationsMachineNames(
  scope: Construct,
  suffix: string,
  runsPrefix: string,
): OperationsMachineNames {
  // Step Functions allows 80 characters.
  const base = Names.uniqueResourceName(scope, { maxLength: 80 - suffix.length - 1, separator: '-' });
  const name = `${base}-${suffix}`;
  const runsName = `${name}:${runsPrefix}*`;
  const arn = (resource: string, resourceName: string) =>
    Stack.of(scope).formatArn({
      service: 'states',
      resource,
      resourceName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
  // cdk-nag names the ARN as the template holds it: a stack's region and account when it has them.
  const { region, account } = Stack.of(scope);
  const known = (value: string, pseudo: string) => (Token.isUnresolved(value) ? `<${pseudo}>` : value);
  const runsFinding =
    `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:${known(region, 'AWS::Region')}:` +
    `${known(account, 'AWS::AccountId')}:execution:${runsName}]`;
  return { name, arn: arn('stateMachine', name), runsName, runsArn: arn('execution', runsName), runsFinding };
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
