/**
 * A Kafka attempt renews its lease a third of a lease apart while its record runs (issue 38,
 * lambdas/consumer/attempt-lease.ts): one more write, for a record slower than that. A healthy
 * record of the rehearsal is quick, so on a loaded machine only can it renew; its cost then says
 * how slow the machine was, not what a healthy message costs. The first lease ends exactly a lease
 * after the attempt started; a later end is a renewal.
 */
import { attemptLeaseMs } from '../../lambdas/core/lease';
import type { LedgerEntry } from '../../lambdas/ports/ledger';

export function renewedItsLease(item: LedgerEntry | undefined, consumerTimeoutSeconds: number): boolean {
  if (item?.aliveUntil === undefined) return false;
  return (
    Date.parse(item.aliveUntil) - Date.parse(item.lastAttemptAt) > attemptLeaseMs(consumerTimeoutSeconds)
  );
}
