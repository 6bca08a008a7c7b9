/**
 * Records SQS delivered before run one at a time after the fresh ones (rule 6). In what order:
 * a crash hands the whole batch back, so a poison message that runs first takes the rest of its
 * batch down with it on every delivery, and a healthy message behind it could be received until
 * SQS's redrive moves it to the backstop without ever starting. So the least suspect run first:
 * never started, then already finished (an acknowledgement, no work), then by what is known of
 * the crashes behind each: attempts started (a crash is charged only at the redelivery that
 * finds it, and a crash several messages shared is charged to none, so charges cannot tell the
 * poison from the healthy messages that were in flight beside it), one more if the latest
 * attempt died in flight, and charged attempts last.
 *
 * Messages that crashed together must not crash together again. A crash hands the whole batch
 * back with one visibility timeout, so the records of a batch come back together, again and
 * again: with several crash suspects in one batch only the first could run before the next
 * crash, and the others would spend a receive each time, uncharged, until the backstop. So
 * before anything of the batch runs, every crash suspect behind the first is made invisible for
 * as long as a crash would keep it, each a little longer than the one before (`staggerSeconds`):
 * they still run here, one by one, if nothing crashes, and if something does they come back
 * apart, each in a batch of its own. A redelivered record whose latest attempt did not crash
 * (it never started, or ended and was handed back) is no suspect: it runs with the fresh ones.
 */
import { DEFAULTS } from '../../contract/defaults';
import { LEDGER_STATE, type LedgerState } from '../../contract/ledger';
import type { Policy } from './types';

/** What the ledger says of a key, as far as ordering goes. */
export interface LedgerGlance {
  readonly state: LedgerState;
  /** Attempts started, every generation: each one that did not finish crashed or failed. */
  readonly attempts: number;
  readonly charged: number;
  /** The latest attempt crashed: it is in flight still, or an outage settled its crash uncharged. */
  readonly crashed: boolean;
}

export function suspectOrder<T>(
  records: readonly T[],
  keyOf: (record: T) => string,
  glances: ReadonlyMap<string, LedgerGlance>,
): T[] {
  const rank = (record: T): readonly number[] => {
    const glance = glances.get(keyOf(record));
    if (glance === undefined) return [0, 0, 0];
    if (glance.state === LEDGER_STATE.completed || glance.state === LEDGER_STATE.quarantined)
      return [1, 0, 0];
    const diedInFlight = glance.state === LEDGER_STATE.inFlight ? 1 : 0;
    return [2, glance.attempts + diedInFlight, glance.charged];
  };
  const compare = (a: readonly number[], b: readonly number[]) =>
    a.reduce((order, value, index) => order || value - b[index], 0);
  // A stable sort: equal ranks keep SQS's order.
  return [...records].sort((a, b) => compare(rank(a), rank(b)));
}

/** What a batch does with its redelivered records. */
export interface SuspectPlan<T> {
  /** Records whose latest attempt did not crash: no more suspect than fresh ones, they run with them. */
  readonly pool: readonly T[];
  /** Crash suspects, one at a time after the pool, in suspect order. */
  readonly alone: readonly T[];
  /** Made invisible now for these many seconds: every crash suspect behind the first. */
  readonly stagger: readonly { readonly record: T; readonly seconds: number }[];
}

/**
 * The batch's redelivered records split by what the ledger says of their latest attempt: those
 * that crashed run alone, in suspect order; the others with the fresh records, the most often
 * received first. Those are no suspects, but a record the time guard handed back is received
 * again, and one that waited behind the others each time would spend its receives unrun.
 */
export function planSuspects<T>(
  records: readonly T[],
  identify: { readonly keyOf: (record: T) => string; readonly receivesOf: (record: T) => number },
  glances: ReadonlyMap<string, LedgerGlance>,
  policy: Pick<Policy, 'attemptTimeoutSeconds' | 'batchingWindowSeconds'>,
): SuspectPlan<T> {
  const { keyOf, receivesOf } = identify;
  const ordered = suspectOrder(records, keyOf, glances);
  const crashed = (record: T) => glances.get(keyOf(record))?.crashed === true;
  const alone = ordered.filter(crashed);
  return {
    pool: ordered.filter((record) => !crashed(record)).sort((a, b) => receivesOf(b) - receivesOf(a)),
    alone,
    stagger: alone.slice(1).map((record, index) => ({ record, seconds: staggerSeconds(index + 1, policy) })),
  };
}

/**
 * How long the n-th record behind a batch's first crash suspect stays invisible: as long as a
 * crash would keep it, the visibility timeout the construct gives the queue (six function
 * timeouts: past the invocation's deadline, so it cannot be delivered again while this batch
 * may still run it, and no sooner than after a crash of its own here), then odd multiples of
 * half a gap more, the gap being the function timeout, or more than the batching window when
 * that is longer (records further apart than the window arrive in different batches). The
 * crash suspect itself, if it crashes, comes back after the visibility timeout: between them.
 */
export function staggerSeconds(
  n: number,
  policy: Pick<Policy, 'attemptTimeoutSeconds' | 'batchingWindowSeconds'>,
): number {
  const gap = Math.max(policy.attemptTimeoutSeconds, policy.batchingWindowSeconds + 1);
  const crashKeeps = policy.attemptTimeoutSeconds * DEFAULTS.visibilityTimeoutFactor;
  return crashKeeps + Math.ceil(((2 * n - 1) * gap) / 2);
}
