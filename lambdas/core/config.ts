/**
 * The consumer's configuration, read once at cold start from the variables named in
 * contract/env.ts. Optional values fall back to contract/defaults.ts. Every bad key is
 * collected and reported in one ConfigError, so one deploy fixes them all.
 */
import { DEFAULTS } from '../../contract/defaults';
import { ENV } from '../../contract/env';
import { kafkaSourceName, SOURCE_KIND, type SourceKind } from '../../contract/sources';
import { ConfigError, type ConfigProblem } from './errors';
import { attemptLeaseMs } from './lease';
import { type Policy, SQS_MAX_VISIBILITY_SECONDS } from './types';

export type Environment = Readonly<Record<string, string | undefined>>;

export interface BreakerTimings {
  readonly cooldownSeconds: number;
  readonly maxCooldownSeconds: number;
  readonly probeSeconds: number;
  readonly pollSeconds: number;
}

/** The two operations state machines, each running one kind of execution (contract/executions.ts). */
export interface StateMachineArns {
  /** Rules 7 and 11: the pause runs, `pause-<epoch>`. */
  readonly pause: string;
  /** Rule 8: the outcome-unknown verifications, `ou-<quarantine id>`. */
  readonly verification: string;
}

export interface ConsumerConfig {
  readonly attemptsTable: string;
  readonly quarantineTable: string;
  readonly quarantineBucket: string;
  readonly controlTable: string;
  readonly stateMachines: StateMachineArns;
  /** What the consumer reads (contract/sources.ts): its adapter is lambdas/sources/<kind>.ts. */
  readonly sourceKind: SourceKind;
  /** SQS only: the queue's URL (empty for Kafka). */
  readonly sourceQueueUrl: string;
  /** The source as evidence and as the metrics' dimension: the queue's ARN; for Kafka, `cluster/topic`. */
  readonly sourceQueueArn: string;
  readonly fifo: boolean;
  /** Records of one group run in order, one at a time (SQS FIFO; Kafka, per topic-partition). */
  readonly ordered: boolean;
  /** Kafka only: where the records come from (PQ_KAFKA_CLUSTER, PQ_KAFKA_TOPIC). */
  readonly kafka?: KafkaSettings;
  /**
   * How long an attempt's lease lasts (core/lease.ts), on a source that delivers a failed batch
   * again at once (Kafka). Absent (SQS): attempts carry no lease.
   */
  readonly attemptLeaseMs?: number;
  readonly policy: Policy;
  /** Rule 11a: open quarantine records at which the consumer stops. */
  readonly quarantineCapacity: number;
  /** Receives after which SQS moves a message to the backstop. */
  readonly backstopMaxReceiveCount: number;
  readonly inProcessConcurrency: number;
  readonly controlCacheSeconds: number;
  readonly ledgerRetentionDays: number;
  /** Timings the pause state machine receives in its input (rule 7). */
  readonly breakerTimings: BreakerTimings;
  /** Dotted path into a JSON body whose value is the message key; absent: the messageId. */
  readonly messageKeyPath?: string;
}

export interface KafkaSettings {
  readonly cluster: string;
  readonly topic: string;
  /** Failed half-open probes after which a record is quarantined `receive-limit` (PQ_KAFKA_MAX_FAILED_PROBES). */
  readonly maxFailedProbes: number;
  /** The mapping reads a partial batch response (PQ_KAFKA_PARTIAL_BATCH_RESPONSE). */
  readonly partialBatchResponse: boolean;
}

/** Declaration order in contract/env.ts, so problems are reported in a predictable order. */
const KNOWN_NAMES: readonly string[] = Object.values(ENV);
/** URLs and ARNs are easily swapped between two variables; the shapes catch it. */
const ARN = /^arn:\S+$/;
const DOTTED_PATH = /^[^.]+(\.[^.]+)*$/;

export function parseConfig(env: Environment): ConsumerConfig {
  const problems: ConfigProblem[] = [];
  const read = reader(env, problems);
  const source = readSource(env, read, problems);
  const quarantineShareWindow = read.integer(ENV.quarantineShareWindow, DEFAULTS.quarantineShareWindow, 1);
  const breakerCooldownSeconds = read.integer(ENV.breakerCooldownSeconds, DEFAULTS.breakerCooldownSeconds, 1);
  const breakerMaxCooldownSeconds = read.integer(
    ENV.breakerMaxCooldownSeconds,
    DEFAULTS.breakerMaxCooldownSeconds,
    breakerCooldownSeconds,
  );
  const messageKeyPath = read.optional(ENV.messageKeyPath, 'a dotted path like order.id', DOTTED_PATH);
  const attemptTimeoutSeconds = read.integer(ENV.consumerTimeoutSeconds, DEFAULTS.consumerTimeoutSeconds, 1);
  const config: ConsumerConfig = {
    attemptsTable: read.required(ENV.attemptsTable, 'a table name'),
    quarantineTable: read.required(ENV.quarantineTable, 'a table name'),
    quarantineBucket: read.required(ENV.quarantineBucket, 'a bucket name'),
    controlTable: read.required(ENV.controlTable, 'a table name'),
    stateMachines: {
      pause: read.required(ENV.pauseStateMachineArn, 'a state machine ARN', ARN),
      verification: read.required(ENV.verificationStateMachineArn, 'a state machine ARN', ARN),
    },
    ...source,
    policy: {
      attemptLimit: read.integer(ENV.attemptLimit, DEFAULTS.attemptLimit, 1),
      attemptTimeoutSeconds,
      batchingWindowSeconds: read.integer(ENV.batchingWindowSeconds, 0, 0),
      transientRetries: read.integer(ENV.transientRetries, DEFAULTS.transientRetries, 0),
      backoffBaseSeconds: read.integer(ENV.backoffBaseSeconds, DEFAULTS.backoffBaseSeconds, 1),
      maxBackoffSeconds: SQS_MAX_VISIBILITY_SECONDS,
      outageFailureThreshold: read.integer(ENV.outageFailureThreshold, DEFAULTS.outageFailureThreshold, 1),
      outageWindowSeconds: read.integer(ENV.outageWindowSeconds, DEFAULTS.outageWindowSeconds, 1),
      isolationTrialMessages: read.integer(ENV.isolationTrialMessages, DEFAULTS.isolationTrialMessages, 1),
      quarantineShareThreshold: read.share(ENV.quarantineShareThreshold, DEFAULTS.quarantineShareThreshold),
      quarantineShareWindow,
      // A window smaller than the minimum would never reach a verdict and never stop anything.
      quarantineShareMinimum: Math.min(DEFAULTS.quarantineShareMinimum, quarantineShareWindow),
      breakerCooldownSeconds,
      breakerMaxCooldownSeconds,
    },
    breakerTimings: {
      cooldownSeconds: breakerCooldownSeconds,
      maxCooldownSeconds: breakerMaxCooldownSeconds,
      probeSeconds: read.integer(ENV.breakerProbeSeconds, DEFAULTS.breakerProbeSeconds, 1),
      pollSeconds: read.integer(ENV.breakerPollSeconds, DEFAULTS.breakerPollSeconds, 1),
    },
    quarantineCapacity: read.integer(ENV.quarantineCapacity, DEFAULTS.quarantineCapacity, 1),
    backstopMaxReceiveCount: read.integer(ENV.backstopMaxReceiveCount, DEFAULTS.backstopMaxReceiveCount, 1),
    inProcessConcurrency: read.integer(ENV.inProcessConcurrency, DEFAULTS.inProcessConcurrency, 1),
    controlCacheSeconds: read.integer(ENV.controlCacheSeconds, DEFAULTS.controlCacheSeconds, 0),
    ledgerRetentionDays: read.integer(ENV.ledgerRetentionDays, DEFAULTS.ledgerRetentionDays, 1),
    ...(messageKeyPath === undefined ? {} : { messageKeyPath }),
    ...(source.kafka === undefined ? {} : { attemptLeaseMs: attemptLeaseMs(attemptTimeoutSeconds) }),
  };
  // A misspelt optional setting would silently fall back to its default.
  for (const name of Object.keys(env).filter((key) => key.startsWith('PQ_') && !KNOWN_NAMES.includes(key))) {
    problems.push({ key: name, value: env[name], expected: 'one of the names in contract/env.ts' });
  }
  if (problems.length > 0) {
    throw new ConfigError(problems.sort((a, b) => rank(a.key) - rank(b.key)));
  }
  return config;
}

type Reader = ReturnType<typeof reader>;
type SourceSettings = Pick<
  ConsumerConfig,
  'sourceKind' | 'sourceQueueUrl' | 'sourceQueueArn' | 'fifo' | 'ordered' | 'kafka'
>;
/** The variables of the other kind of source: set, they say the function is wired to the wrong one. */
const SQS_ONLY = [ENV.sourceQueueUrl, ENV.sourceQueueArn, ENV.fifo, ENV.backstopMaxReceiveCount];
const KAFKA_ONLY = [
  ENV.kafkaCluster,
  ENV.kafkaTopic,
  ENV.kafkaMaxFailedProbes,
  ENV.kafkaPartialBatchResponse,
];

/** The source's settings: an SQS queue (the default) or a Kafka topic, never a mix of both. */
function readSource(env: Environment, read: Reader, problems: ConfigProblem[]): SourceSettings {
  const kind = read.optional(ENV.sourceKind, 'sqs or kafka', /^(sqs|kafka)$/) ?? SOURCE_KIND.sqs;
  const foreign = kind === SOURCE_KIND.kafka ? SQS_ONLY : KAFKA_ONLY;
  for (const name of foreign.filter((key) => env[key] !== undefined)) {
    problems.push({ key: name, value: env[name], expected: `unset for the ${kind} source` });
  }
  if (kind === SOURCE_KIND.kafka) {
    const cluster = read.required(ENV.kafkaCluster, 'an MSK cluster ARN or bootstrap servers');
    const topic = read.required(ENV.kafkaTopic, 'a topic name');
    const maxFailedProbes = read.integer(ENV.kafkaMaxFailedProbes, DEFAULTS.kafkaMaxFailedProbes, 1);
    const partialBatchResponse = read.boolean(ENV.kafkaPartialBatchResponse, false);
    return {
      sourceKind: kind,
      sourceQueueUrl: '',
      sourceQueueArn: kafkaSourceName(cluster, topic),
      fifo: false,
      ordered: true,
      kafka: { cluster, topic, maxFailedProbes, partialBatchResponse },
    };
  }
  const sourceQueueUrl = read.required(ENV.sourceQueueUrl, 'an SQS queue URL', /^https?:\/\/\S+$/);
  // The construct always sets it; the queue's name is the fallback, since FIFO names end so.
  const fifo = read.boolean(ENV.fifo, sourceQueueUrl.endsWith('.fifo'));
  return {
    sourceKind: SOURCE_KIND.sqs,
    sourceQueueUrl,
    sourceQueueArn: read.required(ENV.sourceQueueArn, 'an SQS queue ARN', ARN),
    fifo,
    ordered: fifo,
  };
}

/** Unknown names sort last. */
function rank(name: string): number {
  const index = KNOWN_NAMES.indexOf(name);
  return index === -1 ? KNOWN_NAMES.length : index;
}

/** Readers that record a problem and return a placeholder, so every key is checked in one pass. */
function reader(env: Environment, problems: ConfigProblem[]) {
  const setting = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };
  const problem = <T>(name: string, expected: string, placeholder: T): T => {
    problems.push({ key: name, value: env[name], expected });
    return placeholder;
  };
  return {
    required: (name: string, expected: string, pattern = /\S/): string => {
      const value = setting(name);
      return value !== undefined && pattern.test(value) ? value : problem(name, expected, '');
    },
    optional: (name: string, expected: string, pattern: RegExp): string | undefined => {
      const value = setting(name);
      return value === undefined || pattern.test(value) ? value : problem(name, expected, undefined);
    },
    integer: (name: string, fallback: number, min: number): number => {
      const value = setting(name);
      if (value === undefined) return fallback;
      const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
      return Number.isSafeInteger(parsed) && parsed >= min
        ? parsed
        : problem(name, `an integer >= ${min}`, fallback);
    },
    share: (name: string, fallback: number): number => {
      const value = setting(name);
      if (value === undefined) return fallback;
      const parsed = /^(\d+(\.\d*)?|\.\d+)$/.test(value) ? Number(value) : Number.NaN;
      return parsed > 0 && parsed < 1
        ? parsed
        : problem(name, 'a number between 0 and 1, exclusive', fallback);
    },
    boolean: (name: string, fallback: boolean): boolean => {
      const value = setting(name);
      if (value === undefined) return fallback;
      return value === 'true' || value === 'false'
        ? value === 'true'
        : problem(name, '"true" or "false"', fallback);
    },
  };
}
