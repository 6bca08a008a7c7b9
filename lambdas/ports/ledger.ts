/**
 * What the attempts table's port speaks in: the item as the ledger holds it, and the inputs and
 * results of its writes (lambdas/adapters/attempt-ledger.ts implements them over DynamoDB).
 */
import type { ErrorEvidence, FailureCounters, LedgerItem } from '../core/types';

/** A ledger item with the times this adapter adds beyond the core's LedgerItem. */
export interface LedgerEntry extends LedgerItem {
  /** ISO-8601: when the latest attempt ended (completed, failed or quarantined). */
  readonly lastEndedAt?: string;
  /** ISO-8601: the latest operator reset for a replay. */
  readonly replayedAt?: string;
}

export type StartResult =
  | { readonly started: true; readonly item: LedgerEntry }
  /**
   * The condition failed: `previous` is the item as it was (ALL_OLD), for `decideDelivery`.
   * Undefined only for a replay's start on a key with no item: no operator reset it for a replay.
   */
  | { readonly started: false; readonly previous: LedgerEntry | undefined };

export interface StartInput {
  readonly key: string;
  readonly attemptId: string;
  readonly envId: string;
  readonly messageId: string;
  /** sha256 of the message's body (core/ids.ts `bodyDigest`). */
  readonly bodyDigest: string;
  /** Rule 2: a `ready` item charged this much or more admits no further attempt. */
  readonly attemptLimit: number;
  /**
   * SQS's last receive before the backstop: a `ready` item whose last attempt crashed admits no
   * attempt then (core/delivery.ts quarantines it instead). @default false
   */
  readonly lastReceive?: boolean;
  /**
   * An operator's replay: the quarantine id it was made from. The start then succeeds only on
   * the item reset for exactly that replay, so no producer can borrow another message's item.
   */
  readonly replayOf?: string;
  readonly now: Date;
  /** TTL, epoch seconds. */
  readonly expiresAt: number;
  /**
   * The attempt's first lease (LedgerItem.aliveUntil), on a source that delivers a failed batch
   * again at once (Kafka). Absent: none, and a lease left by an earlier attempt is removed.
   */
  readonly aliveUntil?: Date;
}

export interface RestartInput extends StartInput {
  /** The crashed attempt: the restart succeeds only if it is still the one in flight. */
  readonly previousAttemptId: string;
  /** Rule 5: 1 when the crash is attributable to this message, 0 when not (rule 6). */
  readonly charge: number;
  /** The crash had this message alone in flight (rule 5): it counts in `crashes`, a shared one not. */
  readonly crashedAlone: boolean;
}

/** How an attempt ended that leaves the item `ready` for another. */
export interface FailureRecord {
  readonly counters: FailureCounters;
  readonly lastError?: ErrorEvidence;
  /** The attempt crashed and an outage settled it uncharged (LedgerItem.lastAttemptCrashed). */
  readonly crashed?: boolean;
  /** The attempt was a failed half-open probe: counted in LedgerItem.failedProbes. */
  readonly failedProbe?: boolean;
  readonly now: Date;
}

export interface QuarantineMark {
  /** When known, the mark is refused unless this attempt is still the latest. */
  readonly attemptId?: string;
  readonly quarantineId: string;
  readonly charge?: number;
  readonly now: Date;
}
