/**
 * Records SQS delivered before run one at a time after the fresh ones (rule 6). In what order:
 * a crash hands the whole batch back, so a poison message that runs first takes the rest of its
 * batch down with it on every delivery, and a healthy message behind it could be received until
 * SQS's redrive moves it to the backstop without ever starting. So the least suspect run first:
 * never started, then already finished (an acknowledgement, no work), then by charged attempts.
 */
import { LEDGER_STATE, type LedgerState } from '../../contract/ledger';

/** What the ledger says of a key, as far as ordering goes. */
export interface LedgerGlance {
  readonly state: LedgerState;
  readonly charged: number;
}

export function suspectOrder<T>(
  records: readonly T[],
  keyOf: (record: T) => string,
  glances: ReadonlyMap<string, LedgerGlance>,
): T[] {
  const rank = (record: T): number => {
    const glance = glances.get(keyOf(record));
    if (glance === undefined) return 0;
    if (glance.state === LEDGER_STATE.completed || glance.state === LEDGER_STATE.quarantined) return 1;
    return 2 + glance.charged;
  };
  // A stable sort: equal ranks keep SQS's order.
  return [...records].sort((a, b) => rank(a) - rank(b));
}
