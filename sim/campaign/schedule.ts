/**
 * A schedule is data: the world's configuration, the messages with a script per attempt, and
 * the events that happen to the world, in order. It is JSON as it stands, so a violation is
 * printed as a replayable schedule and `--replay` runs it again exactly.
 */
import { ENV } from '../../contract/env';
import { FAULT_KINDS, FAULT_POINTS, type FaultKind, type FaultPoint } from '../faults/fault-points';
import type { Step } from '../world/scripted-processor';
import type { RunFailure } from './pause-model';

/** The consumer's settings a schedule varies; everything else keeps its default. */
export interface CampaignConfig {
  /** Rule 2, 1-5. */
  readonly attemptLimit: number;
  /** In-process concurrency, 1-4. */
  readonly concurrency: number;
  /** The event source mapping's batch size, 1-10. */
  readonly batchSize: number;
  readonly isolationTrialMessages: number;
  /** Rule 7: distinct keys failing within the window that trip the breaker. */
  readonly outageThreshold: number;
  readonly transientRetries: number;
  /** The pause's first cool-down before a half-open probe. */
  readonly cooldownSeconds: number;
  /** A business key in the body (`{"order":{"id":...}}`); absent: the messageId. */
  readonly messageKeyPath?: string;
  /**
   * The function timeout: an invocation still running past it is killed, mid-record.
   * @default - the world's (WORLD_TIMEOUT_SECONDS)
   */
  readonly consumerTimeoutSeconds?: number;
}

export interface MessageSpec {
  readonly id: string;
  readonly body: string;
  /** The steps of attempt n are `scripts[n - 1]`; the last script repeats. No script completes at once. */
  readonly scripts: readonly (readonly Step[])[];
  /** A Kafka schedule's: the partition the record is produced to. */
  readonly partition?: number;
  /** A Kafka value that is no UTF-8 text (base64, its exact bytes); absent: the body's UTF-8. */
  readonly bytes?: string;
  /** A Kafka record's key (UTF-8); absent: a record without a key. */
  readonly recordKey?: string;
  /** A Kafka record's headers in order (UTF-8 values); a name may repeat. */
  readonly headers?: readonly { readonly name: string; readonly value: string }[];
}

export type Decision = 'done' | 'not-done' | 'discard';

export type CampaignEvent =
  /** The event source mapping invokes environment slot `env` (a dead or retired one is replaced). */
  | { readonly do: 'poll'; readonly env: number }
  /** Two invocations at once in two environments: their awaits interleave. */
  | { readonly do: 'poll-pair'; readonly envs: readonly [number, number] }
  /** One invocation in each of these environments at once (the mapping's pollers at scale). */
  | { readonly do: 'poll-many'; readonly envs: readonly number[] }
  /**
   * The mapping's pollers at scale, for `seconds` of virtual time or until the queue is empty:
   * while messages are visible, one invocation in each of `envs` environments at once, a second
   * apart; while none is, time moves to the next one's visibility.
   */
  | { readonly do: 'pollers'; readonly envs: number; readonly seconds: number }
  /** Virtual time passes. */
  | { readonly do: 'advance'; readonly seconds: number }
  /** Time jumps to the next message's visibility (a visibility timeout expires). */
  | { readonly do: 'expire' }
  /** SQS delivers message `message` again (at-least-once): a duplicate with the same messageId. */
  | { readonly do: 'duplicate'; readonly message: number }
  /** The next `times` calls at `point` (about message `message`'s key, if given) fail so. */
  | {
      readonly do: 'fault';
      readonly point: FaultPoint;
      readonly kind: FaultKind;
      readonly times: number;
      readonly message?: number;
    }
  /** Every external call is refused (never sent) or hangs (sent, no answer) for a while. */
  | { readonly do: 'outside-outage'; readonly mode: 'refused' | 'hanging'; readonly seconds: number }
  /** Every call to the attempts table is throttled for a while. */
  | { readonly do: 'table-outage'; readonly seconds: number }
  /** A new deployment with another attempt limit: every environment from now on is a new one. */
  | { readonly do: 'redeploy'; readonly attemptLimit: number }
  /**
   * An operator records a cause and replays the oldest open quarantine record; `withoutCause`:
   * they forgot the cause (rule 12 refuses the replay).
   */
  | { readonly do: 'replay'; readonly withoutCause?: boolean }
  /** An operator answers the oldest record waiting for a person (outcome unknown). */
  | { readonly do: 'answer'; readonly decision: Decision }
  /** An operator resumes a stopped consumer (a stop's only way out); other pauses resume by themselves. */
  | { readonly do: 'resume' }
  /**
   * The oldest running outcome-unknown execution ends without its answer, as one that is stopped,
   * fails (a publish refused) or times out: the control plane's own fault. Its record must still
   * be answerable.
   */
  | { readonly do: 'kill-verification' }
  | { readonly do: 'kill-pause' }
  | { readonly do: 'pause-runs-fail'; readonly seconds: number; readonly at: RunFailure }
  /**
   * Kafka: Lambda's mapping invokes environment slot `env` with the uncommitted records of
   * `partitions`, one invocation per entry, all at once (a payload of several partitions is one
   * Lambda may send: "A single Lambda payload can contain messages from multiple partitions").
   */
  | { readonly do: 'poll-partitions'; readonly invocations: readonly KafkaInvocation[] }
  /**
   * Kafka: slot `env` is invoked with `partition`'s uncommitted records and, `afterMs` later, a
   * rebalance hands the partition to slot `to`, which is invoked with them too while the first
   * may still run them; both commit on a normal return.
   */
  | {
      readonly do: 'rebalance';
      readonly partition: number;
      readonly env: number;
      readonly to: number;
      readonly afterMs: number;
    };

/** One invocation of a Kafka poll: the environment slot and the partitions of its payload. */
export interface KafkaInvocation {
  readonly env: number;
  readonly partitions: readonly number[];
}

export interface Schedule {
  /** Seeds the world's own randomness (backoff jitter). */
  readonly seed: number;
  /**
   * Seeds the order in which the world resumes ready awaits (sim/world/interleave.ts).
   * @default - the fixed order (schedules kept before the scheduler existed replay as they ran)
   */
  readonly scheduler?: number;
  readonly config: CampaignConfig;
  readonly messages: readonly MessageSpec[];
  readonly events: readonly CampaignEvent[];
  /** The drain's answers to records waiting for a person, in turn. @default - discard */
  readonly answers: readonly Decision[];
  /**
   * The consumer reads a Kafka topic of this many partitions (sim/campaign/kafka-schedule.ts)
   * instead of an SQS queue. @default - an SQS queue
   */
  readonly kafka?: {
    readonly partitions: number;
    /**
     * The mapping's payloads hold several partitions: the drain polls every partition with records
     * left in one invocation. @default - one invocation per partition
     */
    readonly mixed?: boolean;
    /**
     * Provisioned mode: the mapping reads partial batch responses, and the consumer answers where
     * each held partition resumes instead of failing the payload (PQ_KAFKA_PARTIAL_BATCH_RESPONSE).
     * @default - on-demand mode
     */
    readonly partialBatchResponse?: boolean;
  };
}

/** A schedule whose consumer reads a Kafka topic. */
export function isKafka(schedule: Schedule): boolean {
  return schedule.kafka !== undefined;
}

/** The consumer's environment for a schedule (contract/env.ts names). */
export function consumerEnvironment(config: CampaignConfig): Record<string, string> {
  return {
    [ENV.attemptLimit]: String(config.attemptLimit),
    [ENV.inProcessConcurrency]: String(config.concurrency),
    [ENV.isolationTrialMessages]: String(config.isolationTrialMessages),
    [ENV.outageFailureThreshold]: String(config.outageThreshold),
    [ENV.transientRetries]: String(config.transientRetries),
    [ENV.breakerCooldownSeconds]: String(config.cooldownSeconds),
    ...(config.messageKeyPath === undefined ? {} : { [ENV.messageKeyPath]: config.messageKeyPath }),
    ...(config.consumerTimeoutSeconds === undefined
      ? {}
      : { [ENV.consumerTimeoutSeconds]: String(config.consumerTimeoutSeconds) }),
  };
}

/** Every attempt limit a schedule runs with: its configuration's and each redeploy's. */
export function deployedLimits(schedule: Schedule): number[] {
  return [
    schedule.config.attemptLimit,
    ...schedule.events.flatMap((event) => (event.do === 'redeploy' ? [event.attemptLimit] : [])),
  ];
}

/** Reads a schedule given as JSON (`--replay`), or a case file `{ seed?, invariant?, schedule }`. */
export function parseSchedule(text: string): Schedule {
  const parsed: unknown = JSON.parse(text);
  const candidate = isObject(parsed) && isObject(parsed.schedule) ? parsed.schedule : parsed;
  if (!isObject(candidate) || !isObject(candidate.config) || !Array.isArray(candidate.messages)) {
    throw new Error('not a schedule: expected { seed, config, messages, events, answers }');
  }
  if (!Array.isArray(candidate.events)) throw new Error('not a schedule: "events" is not a list');
  for (const event of candidate.events as { do?: unknown; point?: unknown; kind?: unknown }[]) {
    if (event.do === 'fault' && !(FAULT_POINTS as readonly unknown[]).includes(event.point)) {
      throw new Error(`unknown fault point ${JSON.stringify(event.point)} (see --list-fault-points)`);
    }
    if (event.do === 'fault' && !(FAULT_KINDS as readonly unknown[]).includes(event.kind)) {
      throw new Error(`unknown fault kind ${JSON.stringify(event.kind)}`);
    }
  }
  return { answers: [], seed: 0, ...candidate } as unknown as Schedule;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
