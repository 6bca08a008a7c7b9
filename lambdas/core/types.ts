/**
 * The domain vocabulary shared by the pure core, the adapters and the consumer wrapper.
 * Field names follow the attempts table in docs/design.md; the adapter maps `key` <-> `pk`.
 */
import { DEFAULTS } from '../../contract/defaults';
import type { LedgerState } from '../../contract/ledger';
import type { QuarantineReason } from '../../contract/quarantine';

/** Rule 9 buckets, plus the rule 8 case where an outside system may or may not have acted. */
export type ErrorClass = 'transient' | 'permanent' | 'unknown' | 'outcome-unknown';

/** The latest call to an outside system that the user's code declared with `ctx.external`. */
export interface ExternalRecord {
  readonly name: string;
  readonly status: 'pending' | 'done' | 'not-sent';
  /** Present when the outside system honours an idempotency key: the call may then be repeated. */
  readonly idempotencyKey?: string;
  /** ISO-8601 time of the latest status change. */
  readonly at: string;
}

/** What an operator needs to know about the last caught error, small enough for a DynamoDB item. */
export interface ErrorEvidence {
  readonly class: ErrorClass;
  readonly name: string;
  readonly message: string;
  /** The first stack frames, one per line, without the message header. */
  readonly stackHead: string;
}

/** One item of the attempts table (the ledger). */
export interface LedgerItem {
  readonly key: string;
  readonly state: LedgerState;
  /** Attempts started, all generations (rule 1). */
  readonly attempts: number;
  /** Attempts charged toward the limit in this generation (rules 2, 5). */
  readonly charged: number;
  readonly transientFailures: number;
  readonly unknownFailures: number;
  /** 0, +1 on every operator replay (a fresh budget). */
  readonly generation: number;
  readonly attemptId: string;
  /** The execution environment of the in-flight attempt; absent once it ends. */
  readonly envId?: string;
  readonly messageId: string;
  readonly stage: string;
  readonly external?: ExternalRecord;
  /**
   * Rule 8, sticky for the attempt: a keyless call of this attempt that reached `pending` and was
   * not proven unsent. Later calls do not clear it, and no start may pass it; only an operator's
   * answer does (a replay resets it).
   */
  readonly unrepeatable?: ExternalRecord;
  /**
   * The quarantine id an operator's replay was made from (set by the reset before the replay).
   * From the reset on, the generation is that replay's: no delivery without its mark starts in it.
   */
  readonly replayOf?: string;
  /**
   * The quarantine ids whose replays started on this item, sorted (absent: none): a replay
   * delivered again after a later reset is a duplicate, not a message of its own.
   */
  readonly replaysStarted?: readonly string[];
  /** sha256 of the body of the latest attempt's message: tells a redelivery from a key collision. */
  readonly bodyDigest?: string;
  readonly lastError?: ErrorEvidence;
  /** ISO-8601. */
  readonly firstAttemptAt: string;
  /** ISO-8601. */
  readonly lastAttemptAt: string;
  /**
   * ISO-8601, on a source that delivers a failed batch again at once (Kafka): until when the
   * attempt in flight has shown itself alive. Its worker renews it while it works; past it, the
   * worker died, whatever the function timeout still allows (core/delivery.ts). Absent: only the
   * timeout tells.
   */
  readonly aliveUntil?: string;
  readonly quarantineId?: string;
  /**
   * The attempt that ended the item `ready` crashed: an outage settled it uncharged (rule 7).
   * The next start clears it; until then the last-receive rule still sees a crash behind it.
   */
  readonly lastAttemptCrashed?: boolean;
  /**
   * Crashes of this generation that had this message alone in flight, charged or settled
   * uncharged by an outage (absent: none); a crash shared with others is not counted. A message
   * that crashed alone before and crashes alone again is the crash's cause (rule 5), whatever
   * else fails in the same minute: its crash is no rule 7 event.
   */
  readonly crashes?: number;
  /**
   * Half-open probes (rule 7) this message failed (absent: none). After the first, a later probe
   * failure may be its own, so it does not decide its window (core/breaker.ts probeFailureKind);
   * on a Kafka partition, where no record probes past it and no receive count ends it, the last
   * one allowed quarantines it (core/receive-limit.ts). Kept until an operator's replay.
   */
  readonly failedProbes?: number;
  /**
   * Rule 3: a quarantine decided and begun but not yet marked. Whoever delivers the message next
   * finishes this one, with the same id, instead of deciding (and writing) another.
   */
  readonly quarantining?: QuarantineIntent;
}

/** What a begun quarantine needs to be finished by another delivery. */
export interface QuarantineIntent {
  /** The record's id (core/ids.ts): writing again under it is idempotent. */
  readonly id: string;
  readonly reason: QuarantineReason;
  /** Charges the decision adds to the item's. */
  readonly charge: number;
  /** The error that decided it, when it was a caught one. */
  readonly error?: ErrorEvidence;
}

/** Why a message was quarantined: one list, in the contract. */
export { QUARANTINE_REASONS, type QuarantineReason } from '../../contract/quarantine';

/** The counters a failure or a crash changes on the ledger item. */
export interface FailureCounters {
  readonly charged: number;
  readonly transientFailures: number;
  readonly unknownFailures: number;
}

/** Every number the decisions depend on; built by `parseConfig` or `defaultPolicy`. */
export interface Policy {
  /** Rule 2. */
  readonly attemptLimit: number;
  /**
   * The consumer's timeout: an attempt younger than this may still be running, so a delivery
   * that finds it in flight is a duplicate delivery, not proof of a crash.
   */
  readonly attemptTimeoutSeconds: number;
  /** The mapping's batching window: crash suspects handed back further apart arrive apart (rule 6). */
  readonly batchingWindowSeconds: number;
  /** Rule 9. */
  readonly transientRetries: number;
  readonly backoffBaseSeconds: number;
  /** Never above SQS's ChangeMessageVisibility limit. */
  readonly maxBackoffSeconds: number;
  /** Rule 7. */
  readonly outageFailureThreshold: number;
  readonly outageWindowSeconds: number;
  /** Rule 6. */
  readonly isolationTrialMessages: number;
  /** Rule 11b. */
  readonly quarantineShareThreshold: number;
  readonly quarantineShareWindow: number;
  readonly quarantineShareMinimum: number;
  /** Rule 7: half-open probing. */
  readonly breakerCooldownSeconds: number;
  readonly breakerMaxCooldownSeconds: number;
}

/** SQS refuses a visibility timeout above 12 hours, so no backoff may be longer. */
export const SQS_MAX_VISIBILITY_SECONDS = 43_200;

export function defaultPolicy(): Policy {
  return {
    attemptLimit: DEFAULTS.attemptLimit,
    attemptTimeoutSeconds: DEFAULTS.consumerTimeoutSeconds,
    batchingWindowSeconds: 0,
    transientRetries: DEFAULTS.transientRetries,
    backoffBaseSeconds: DEFAULTS.backoffBaseSeconds,
    maxBackoffSeconds: SQS_MAX_VISIBILITY_SECONDS,
    outageFailureThreshold: DEFAULTS.outageFailureThreshold,
    outageWindowSeconds: DEFAULTS.outageWindowSeconds,
    isolationTrialMessages: DEFAULTS.isolationTrialMessages,
    quarantineShareThreshold: DEFAULTS.quarantineShareThreshold,
    quarantineShareWindow: DEFAULTS.quarantineShareWindow,
    quarantineShareMinimum: DEFAULTS.quarantineShareMinimum,
    breakerCooldownSeconds: DEFAULTS.breakerCooldownSeconds,
    breakerMaxCooldownSeconds: DEFAULTS.breakerMaxCooldownSeconds,
  };
}
