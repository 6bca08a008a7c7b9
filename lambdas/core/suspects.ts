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
 */
import { LEDGER_STATE, type LedgerState } from '../../contract/ledger';

/** What the ledger says of a key, as far as ordering goes. */
export interface LedgerGlance {
  readonly state: LedgerState;
  /** Attempts started, every generation: each one that did not finish crashed or failed. */
  readonly attempts: number;
  readonly charged: number;
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
