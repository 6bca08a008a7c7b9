import { Duration, type RemovalPolicy, Token } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { DEFAULTS } from '../contract/defaults';
import { bundlingProblems } from './consumer-bundling';
import {
  KAFKA_MAX_CONSUMER_TIMEOUT_SECONDS,
  type KafkaSourceProps,
  kafkaSourceProblems,
} from './kafka-source-props';
import { sourceQueueProblems } from './source-queue-limits';

/** Properties of {@link PoisonQuarantine}. */
export interface PoisonQuarantineProps {
  /**
   * Path of the user's processing module: it exports `process(message, ctx)` and optionally
   * `classify(error)` (see lambdas/consumer/types.ts). Bundled into the consumer by esbuild.
   */
  readonly processorEntry: string;

  /**
   * Read a Kafka topic (Amazon MSK or self-managed) instead of an SQS queue. One source per
   * construct: with it no queue, backstop queue or queue alarm is created, and the queue settings
   * (`queue`, `fifo`, `visibilityTimeout`, `backstopMaxReceiveCount`, `backstopQueue`,
   * `maxConcurrency`, `oldestMessageAgeAlarm`) are refused. `batchSize` and `maxBatchingWindow`
   * apply to its mapping; `consumerTimeout` may be at most 840 seconds (Lambda's limit for Kafka).
   * @default - an SQS queue: `queue`, or a new one
   */
  readonly kafka?: KafkaSourceProps;

  /**
   * An existing source queue. Give either this or the queue settings (`fifo`,
   * `visibilityTimeout`), never both; `backstopMaxReceiveCount` states its redrive limit. It is
   * checked as a created one: a queue of the app's stacks needs a visibility timeout of at least
   * 6x `consumerTimeout` and a redrive, if any, no sooner than `backstopMaxReceiveCount` allows;
   * an imported queue's visibility cannot be read (a synth warning says what it must be). SQS
   * only: refused with `kafka`.
   * @default - a new queue: SQS-managed encryption, SSL only, 14-day retention, 1 MiB messages,
   * and a backstop dead-letter queue.
   */
  readonly queue?: sqs.IQueue;

  /**
   * Create a FIFO source queue (and FIFO backstop queue). SQS only: refused with `kafka`.
   * @default false
   */
  readonly fifo?: boolean;

  /**
   * Visibility timeout of the created source queue; at least 6x `consumerTimeout`. SQS only:
   * refused with `kafka`.
   * @default - 6x `consumerTimeout`
   */
  readonly visibilityTimeout?: Duration;

  /**
   * Receives after which SQS itself moves a message to the backstop queue. Our ledger decides
   * poison long before; this only catches what the ledger could not handle. At least
   * `attemptLimit + transientRetries + 4` (every budget, the delivery that quarantines and a few
   * hand-backs without an attempt). The consumer quarantines a record on its last receive
   * instead of handing it back, so it must know this limit: with `queue`, it is that queue's
   * redrive maxReceiveCount, required for an imported queue (CDK cannot read it), and taken from
   * a queue of the app's stacks (given, it must match). SQS only: refused with `kafka`.
   * @default - 10, or `attemptLimit + transientRetries + 4` when more; a given queue's own
   */
  readonly backstopMaxReceiveCount?: number;

  /**
   * The dead-letter queue of a given `queue` (its redrive policy's target), so that the
   * BackstopNotEmpty alarm, the dashboard and `grantOperator` cover it. `pq backstop` finds it
   * from the queue's redrive policy either way, but without this an operator role has no rights
   * on it. Only with `queue`; for a queue of the app's stacks it must be that queue's target.
   * SQS only: refused with `kafka`.
   * @default - the created queue's backstop; a given queue of the app's stacks: its redrive
   * target; an imported queue: none (no alarm, no operator rights on its dead-letter queue)
   */
  readonly backstopQueue?: sqs.IQueue;

  /**
   * Charged attempts before a message is quarantined (rule 2).
   * @default 3
   */
  readonly attemptLimit?: number;

  /**
   * Retries of a transient error before the message is quarantined (rule 9).
   * @default 3
   */
  readonly transientRetries?: number;

  /**
   * Failure events on this many distinct messages within `outageWindow` pause consumption (rule 7).
   * @default 3
   */
  readonly outageFailureThreshold?: number;

  /**
   * The window of `outageFailureThreshold`.
   * @default Duration.seconds(60)
   */
  readonly outageWindow?: Duration;

  /**
   * Messages without a crash that end an isolation trial (rule 6).
   * @default 20
   */
  readonly isolationTrialMessages?: number;

  /**
   * Share (0 < share < 1) of recent messages quarantined above which automatic quarantine stops
   * and consumption pauses (rule 11b).
   * @default 0.2
   */
  readonly quarantineShareThreshold?: number;

  /**
   * How many recent messages the quarantine share is computed over.
   * @default 50
   */
  readonly quarantineShareWindow?: number;

  /**
   * Open quarantine records at which the consumer stops (and waits for an operator) instead of
   * quarantining more (rule 11a).
   * @default 10000
   */
  readonly quarantineCapacity?: number;

  /**
   * A dotted path into a JSON body whose value identifies the message across redeliveries and
   * re-sends (for example `order.id`). A body without it falls back to the SQS messageId, or a
   * Kafka record's `<topic>-<partition>-<offset>`.
   * @default - the SQS messageId; a Kafka record's `<topic>-<partition>-<offset>`
   */
  readonly messageKeyPath?: string;

  /**
   * Timeout of the consumer function (1..900 seconds; with `kafka`, at most 840).
   * @default Duration.seconds(30)
   */
  readonly consumerTimeout?: Duration;

  /**
   * Memory of the consumer function, in MiB.
   * @default 512
   */
  readonly memorySize?: number;

  /**
   * Records per invocation (1..10,000; FIFO 1..10), for either source.
   * @default 10
   */
  readonly batchSize?: number;

  /**
   * How long the event source gathers records before invoking (0..300 s; not for FIFO), for
   * either source.
   * @default - none for SQS; Lambda's 500 ms for `kafka`
   */
  readonly maxBatchingWindow?: Duration;

  /**
   * Maximum concurrent invocations the event source mapping makes (2..1000). SQS only: refused
   * with `kafka`, whose mapping scales by the topic's partitions.
   * @default 2
   */
  readonly maxConcurrency?: number;

  /**
   * How long consumption stays paused before a half-open probe (rule 7); doubles after every
   * failed probe, up to `breakerMaxCooldown`.
   * @default Duration.seconds(60)
   */
  readonly breakerCooldown?: Duration;

  /**
   * The cap of the growing cool-down.
   * @default Duration.seconds(3600)
   */
  readonly breakerMaxCooldown?: Duration;

  /**
   * How long a half-open probe (one record per invocation) runs before it is judged.
   * @default Duration.seconds(30)
   */
  readonly breakerProbeWindow?: Duration;

  /**
   * An operator wait (outcome unknown, a stopped consumer) without an answer for this long is
   * escalated on the topic and waited for again: the machine never decides for a person.
   * @default Duration.days(1)
   */
  readonly operatorHeartbeat?: Duration;

  /**
   * The hard limit of one operator wait; reaching it also escalates and waits again.
   * @default Duration.days(7)
   */
  readonly operatorTimeout?: Duration;

  /**
   * Records processed at once inside one invocation. Above 1, a crash can no longer be pinned on
   * one message (rule 6) and an isolation trial brings it back to 1.
   * @default 1
   */
  readonly inProcessConcurrency?: number;

  /**
   * Extra environment variables for the user's processing module.
   * @default - none
   */
  readonly environment?: Readonly<Record<string, string>>;

  /**
   * A VPC to run the consumer in, for a processing module that reaches private resources. The
   * consumer also calls DynamoDB, S3, SQS and Step Functions: give its subnets a NAT gateway or
   * VPC endpoints for them.
   * @default - not in a VPC
   */
  readonly vpc?: ec2.IVpc;

  /**
   * Where in `vpc` the consumer runs; needs `vpc`.
   * @default - the VPC's private subnets
   */
  readonly vpcSubnets?: ec2.SubnetSelection;

  /**
   * Security groups of the consumer; need `vpc`.
   * @default - with a `vpc`, a new security group that allows all outbound traffic
   */
  readonly securityGroups?: ec2.ISecurityGroup[];

  /**
   * Lambda layers for the consumer (at most 5, for arm64), for what your module loads from `/opt`.
   * @default - none
   */
  readonly layers?: lambda.ILayerVersion[];

  /**
   * esbuild options for bundling your module with the consumer, merged over the construct's own
   * (minified, source maps without sources, the SDK's ES modules first, nothing external). The
   * consumer is built by esbuild's API on this machine as split ES modules (its rare AWS clients
   * load on first use), so a value it cannot honour fails at synth, naming the option: `format`
   * other than ESM, `esbuildArgs` other than `--alias:<module>`, and the options for Docker, a
   * package install or build commands (`nodeModules`, `commandHooks`, `dockerImage`, ...). Two
   * values the consumer needs may not change: `keepNames` (error signatures, which group
   * quarantine records, name functions) and the `--alias` of `pq-user-processor` (it points the
   * consumer at `processorEntry`; `externalModules` may not name it either).
   * @default - the construct's options
   */
  readonly bundling?: nodejs.BundlingOptions;

  /**
   * AWS X-Ray tracing of the consumer's invocations.
   * @default lambda.Tracing.DISABLED
   */
  readonly tracing?: lambda.Tracing;

  /**
   * Topic that alarms and operator notifications go to.
   * @default - a new topic encrypted with a new customer-managed key
   */
  readonly alarmTopic?: sns.ITopic;

  /**
   * Age of the oldest source message that raises an alarm. SQS only: refused with `kafka`.
   * @default Duration.minutes(15)
   */
  readonly oldestMessageAgeAlarm?: Duration;

  /**
   * How long a pause may keep consumption stopped before it raises an alarm: an outage's failed
   * probes and a stop's overdue operator waits count toward it.
   * @default Duration.hours(1)
   */
  readonly pausedTooLongAlarm?: Duration;

  /**
   * Turn on S3 Object Lock (governance mode) for quarantined content.
   * @default false
   */
  readonly objectLock?: boolean;

  /**
   * Where S3 server access logs of the quarantine bucket go.
   * @default - no server access logs (CloudTrail data events are the audit trail)
   */
  readonly serverAccessLogsBucket?: s3.IBucket;

  /**
   * What happens to the tables and bucket when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/** A number known at synth; undefined when absent or only known at deployment (a Token). */
function known(value: number | undefined): number | undefined {
  return value === undefined || Token.isUnresolved(value) ? undefined : value;
}

/** A duration's seconds when known at synth (a Token duration is CloudFormation's to check). */
function knownSeconds(duration: Duration | undefined): number | undefined {
  return duration === undefined || Token.isUnresolved(duration.toSeconds())
    ? undefined
    : duration.toSeconds();
}

/** A duration prop's seconds: its default when absent, undefined when only known at deployment. */
function secondsOr(duration: Duration | undefined, fallback: number): number | undefined {
  return duration === undefined ? fallback : knownSeconds(duration);
}

/**
 * Checks every prop and throws once, listing every problem with the value given, so a user
 * fixes them in one round. Values only known at deployment (unresolved Tokens) are left to
 * CloudFormation and the consumer's own check at cold start.
 */
export function validateProps(props: PoisonQuarantineProps): void {
  const errors: string[] = [];
  const integer = (name: string, given: number | undefined, min: number, max: number) => {
    const value = known(given);
    if (value !== undefined && (!Number.isInteger(value) || value < min || value > max)) {
      errors.push(`${name} must be an integer from ${min} to ${max} (given ${value})`);
    }
  };
  integer('attemptLimit', props.attemptLimit, 1, 100);
  integer('transientRetries', props.transientRetries, 0, 20);
  integer('outageFailureThreshold', props.outageFailureThreshold, 2, 1000);
  integer('isolationTrialMessages', props.isolationTrialMessages, 1, 10_000);
  integer('quarantineShareWindow', props.quarantineShareWindow, 1, 10_000);
  integer('quarantineCapacity', props.quarantineCapacity, 1, 1_000_000);
  integer('memorySize', props.memorySize, 128, 10_240);
  integer('maxConcurrency', props.maxConcurrency, 2, 1000);
  integer('inProcessConcurrency', props.inProcessConcurrency, 1, 100);

  const kafka = props.kafka;
  const fifo = kafka === undefined && (props.queue?.fifo ?? props.fifo ?? false);
  integer('batchSize', props.batchSize, 1, fifo ? 10 : 10_000);
  const batchSize = known(props.batchSize);
  const batchingWindow = knownSeconds(props.maxBatchingWindow);
  // SQS's rule: a Kafka mapping takes any batch size with or without a window.
  if (
    kafka === undefined &&
    !fifo &&
    batchSize !== undefined &&
    batchSize > 10 &&
    (batchingWindow ?? 0) < 1
  ) {
    errors.push(
      `batchSize above 10 needs a maxBatchingWindow of at least 1 second ` +
        `(given batchSize ${batchSize}, maxBatchingWindow ${batchingWindow ?? 0} s)`,
    );
  }
  const share = known(props.quarantineShareThreshold);
  if (share !== undefined && !(share > 0 && share < 1)) {
    errors.push(`quarantineShareThreshold must be between 0 and 1, exclusive (given ${share})`);
  }

  const consumerTimeout = secondsOr(props.consumerTimeout, DEFAULTS.consumerTimeoutSeconds);
  if (consumerTimeout !== undefined && (consumerTimeout < 1 || consumerTimeout > 900)) {
    errors.push(`consumerTimeout must be from 1 to 900 seconds (given ${consumerTimeout} s)`);
  }
  errors.push(
    ...(kafka === undefined
      ? sourceQueueProblems(props, consumerTimeout)
      : [...queueSettingsWithKafka(props), ...kafkaSourceProblems(kafka)]),
  );
  if (
    kafka !== undefined &&
    consumerTimeout !== undefined &&
    consumerTimeout > KAFKA_MAX_CONSUMER_TIMEOUT_SECONDS
  ) {
    errors.push(
      `consumerTimeout must be at most ${KAFKA_MAX_CONSUMER_TIMEOUT_SECONDS} seconds with kafka, Lambda's limit for a Kafka mapping's function (given ${consumerTimeout} s)`,
    );
  }
  if (batchingWindow !== undefined && (batchingWindow < 0 || batchingWindow > 300)) {
    errors.push(`maxBatchingWindow must be from 0 to 300 seconds (given ${batchingWindow} s)`);
  }
  if (batchingWindow !== undefined && batchingWindow > 0 && fifo) {
    errors.push(`maxBatchingWindow is not supported for FIFO queues (given ${batchingWindow} s)`);
  }
  const outageWindow = knownSeconds(props.outageWindow);
  if (outageWindow !== undefined && (outageWindow < 1 || outageWindow > 3600)) {
    errors.push(`outageWindow must be from 1 to 3600 seconds (given ${outageWindow} s)`);
  }
  const seconds = (name: string, value: Duration | undefined, min: number, max: number) =>
    integer(name, knownSeconds(value), min, max);
  seconds('breakerCooldown (seconds)', props.breakerCooldown, 1, 86_400);
  seconds('breakerMaxCooldown (seconds)', props.breakerMaxCooldown, 1, 86_400);
  seconds('breakerProbeWindow (seconds)', props.breakerProbeWindow, 1, 3600);
  seconds('operatorHeartbeat (seconds)', props.operatorHeartbeat, 1, 31_536_000);
  seconds('operatorTimeout (seconds)', props.operatorTimeout, 2, 31_536_000);
  seconds('pausedTooLongAlarm (seconds)', props.pausedTooLongAlarm, 60, 31_536_000);
  const cooldown = secondsOr(props.breakerCooldown, DEFAULTS.breakerCooldownSeconds);
  const maxCooldown = secondsOr(props.breakerMaxCooldown, DEFAULTS.breakerMaxCooldownSeconds);
  if (cooldown !== undefined && maxCooldown !== undefined && maxCooldown < cooldown) {
    errors.push(
      `breakerMaxCooldown must be at least breakerCooldown (given breakerMaxCooldown ${maxCooldown} s, breakerCooldown ${cooldown} s)`,
    );
  }
  const heartbeat = secondsOr(props.operatorHeartbeat, DEFAULTS.operatorHeartbeatSeconds);
  const timeout = secondsOr(props.operatorTimeout, DEFAULTS.operatorTimeoutSeconds);
  if (heartbeat !== undefined && timeout !== undefined && heartbeat >= timeout) {
    errors.push(
      `operatorHeartbeat must be shorter than operatorTimeout (given operatorHeartbeat ${heartbeat} s, operatorTimeout ${timeout} s)`,
    );
  }
  errors.push(...functionProblems(props));
  if (
    props.messageKeyPath !== undefined &&
    !/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(props.messageKeyPath)
  ) {
    errors.push(`messageKeyPath must be a dotted path like "order.id" (given "${props.messageKeyPath}")`);
  }
  if (errors.length > 0) {
    throw new Error(`Invalid PoisonQuarantine props:\n- ${errors.join('\n- ')}`);
  }
}

/** The props that only an SQS source has, with `kafka` (lib/kafka-source-props.ts documents the rest). */
const QUEUE_SETTINGS = [
  'queue',
  'fifo',
  'visibilityTimeout',
  'backstopMaxReceiveCount',
  'backstopQueue',
  'maxConcurrency',
  'oldestMessageAgeAlarm',
] as const;

/** A queue setting given beside `kafka`, each refused with its value. */
function queueSettingsWithKafka(props: PoisonQuarantineProps): string[] {
  return QUEUE_SETTINGS.filter((name) => props[name] !== undefined).map(
    (name) =>
      `${name} is a setting of an SQS source, refused with kafka (given ${name} ${describe(props[name])})`,
  );
}

/** A prop's value as a message names it: a queue by its ARN (or path), a duration in seconds. */
function describe(value: sqs.IQueue | Duration | boolean | number | undefined): string {
  if (value instanceof Duration) {
    const seconds = knownSeconds(value);
    return seconds === undefined ? value.toString() : `${seconds} s`;
  }
  if (typeof value === 'object') {
    return Token.isUnresolved(value.queueArn) ? value.node.path : value.queueArn;
  }
  return String(value);
}

/** Lambda's limit of layers on one function. */
const MAX_LAYERS = 5;

/** What the consumer function's pass-through props may not combine, or may not change. */
function functionProblems(props: PoisonQuarantineProps): string[] {
  const errors: string[] = [];
  if (props.vpc === undefined) {
    if (props.securityGroups !== undefined)
      errors.push(`securityGroups need a vpc (given ${props.securityGroups.length} and no vpc)`);
    if (props.vpcSubnets !== undefined) errors.push('vpcSubnets need a vpc (given vpcSubnets and no vpc)');
  }
  if (props.layers !== undefined && props.layers.length > MAX_LAYERS)
    errors.push(`layers: a function takes at most ${MAX_LAYERS} (given ${props.layers.length})`);
  errors.push(...bundlingProblems(props.bundling ?? {}));
  return errors;
}
