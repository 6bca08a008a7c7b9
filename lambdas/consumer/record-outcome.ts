/**
 * What one record's life ends in, and what it shares with the rest of its batch.
 */
import type { ControlSnapshot } from '../ports/control';
import type { ShareWindow } from './share-window';
import type { UnrecordedFailures } from './unrecorded-failures';

export type RecordOutcome =
  | { readonly kind: 'completed' }
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'quarantined'; readonly quarantineId: string }
  | { readonly kind: 'retry'; readonly delaySeconds: number }
  /** Not worked on, or stopped: the message goes back to the queue untouched. */
  | { readonly kind: 'returned'; readonly why: string };

/** What one invocation knows about the control state and shares between its records. */
export interface RecordSession {
  readonly shares: ShareWindow;
  /** Failure events this environment could not record: still its evidence of an outage. */
  readonly unrecorded: UnrecordedFailures;
  /** When a record last completed in this environment: its evidence against an outage (rule 7). */
  readonly lastCompletedAt: () => number | undefined;
  /** The breaker is half-open: this batch is the probe; its outcomes are reported. */
  readonly probing: boolean;
  /** The breaker is half-open, probing or not: a record our own tables fail is reported. */
  readonly halfOpen: boolean;
  /** An isolation trial runs: at the batch's start, or since a crash this batch discovered. */
  readonly isolationActive: () => boolean;
  /** Consumption paused during this batch: no further record may start. */
  readonly paused: () => boolean;
  /**
   * The control items read now, and kept as this environment's snapshot: before a failure event
   * is written, whether another environment paused consumption since the batch began.
   */
  readonly controlNow: () => Promise<ControlSnapshot>;
  /** This environment paused consumption: for an outage (rule 7) or a stop (rule 11). */
  readonly pause: (why: 'outage' | 'stop') => void;
  /** Rule 6 started here: the rest of this batch runs one record at a time. */
  readonly isolationStarted: () => void;
  /**
   * Waits within the invocation until an attempt in flight must be over (`until`, epoch ms: its
   * lease runs out), if a record would still have time to finish after that (attempt-lease.ts);
   * whether it waited. Never on a source whose attempts carry no lease (SQS).
   */
  readonly waitForLease: (until: number, messageId: string) => Promise<boolean>;
}

/** Returned for the probe: an outage interrupted the attempt (rule 7). */
export const PAUSED: RecordOutcome = { kind: 'returned', why: 'paused' };

/** Outcomes after which the message stays in the queue: the batch response hands it back. */
export function staysInQueue(outcome: RecordOutcome): boolean {
  return outcome.kind === 'retry' || outcome.kind === 'returned';
}
