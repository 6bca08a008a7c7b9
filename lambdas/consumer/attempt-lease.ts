/**
 * Kafka's attempt lease at the edge (core/lease.ts): the worker renews it while it works on the
 * record, and a redelivery that finds it still running waits for it within the invocation
 * instead of failing the batch, so a crash holds the partition for its own invocation alone.
 */
import type { Context } from 'aws-lambda';
import { ATTEMPT_LEASE_LATE_LOG_EVENT, LEASE_WAIT_NO_TIME_LOG_EVENT } from '../../contract/log-events';
import { leaseRenewalMs } from '../core/lease';
import { leavesTimeFor } from '../core/time-guard';
import { StaleAttemptError } from '../ports/errors';
import type { LedgerEntry } from '../ports/ledger';
import type { ConsumerDeps } from './deps';

/** The first lease of an attempt starting `now`, where attempts carry one. */
export function firstLease(deps: ConsumerDeps, now: Date): { readonly aliveUntil?: Date } {
  const leaseMs = deps.config.attemptLeaseMs;
  return leaseMs === undefined ? {} : { aliveUntil: new Date(now.getTime() + leaseMs) };
}

/**
 * Renews the attempt's lease until `stop`. A renewal refused because the attempt is no longer
 * in flight ends the keeping: it ended, or another delivery took it over.
 */
export function keepLease(deps: ConsumerDeps, item: LedgerEntry): { readonly stop: () => void } {
  const leaseMs = deps.config.attemptLeaseMs;
  if (leaseMs === undefined || item.aliveUntil === undefined) return { stop: () => undefined };
  const stopped = new AbortController();
  void renewWhileWorking(deps, item, { leaseMs, aliveUntil: Date.parse(item.aliveUntil) }, stopped.signal);
  return { stop: () => stopped.abort() };
}

async function renewWhileWorking(
  deps: ConsumerDeps,
  item: LedgerEntry,
  lease: { readonly leaseMs: number; readonly aliveUntil: number },
  stopped: AbortSignal,
): Promise<void> {
  const { leaseMs } = lease;
  let { aliveUntil } = lease;
  for (;;) {
    // Never settles once stopped: the loop ends there, holding no timer.
    await deps.alarm(leaseRenewalMs(leaseMs), stopped);
    const now = deps.now().getTime();
    if (now >= aliveUntil) warnLate(deps, item, now - aliveUntil);
    aliveUntil = now + leaseMs;
    try {
      await deps.ledger.renewLease(item.key, item.attemptId, new Date(aliveUntil));
    } catch (error) {
      if (stopped.aborted || error instanceof StaleAttemptError) return;
      // The next renewal tries again; until one lands the lease runs out as written.
      deps.logger.warn('attempt lease not renewed', {
        event: 'attempt-lease-not-renewed',
        messageKey: item.key,
        error: error as Error,
      });
    }
  }
}

function warnLate(deps: ConsumerDeps, item: LedgerEntry, lateMs: number): void {
  deps.logger.warn('attempt lease lapsed before its renewal: too slow to show the worker alive', {
    event: ATTEMPT_LEASE_LATE_LOG_EVENT,
    messageKey: item.key,
    lateMs,
    hint: 'a delivery elsewhere (a rebalance) may have taken this worker for dead and run the record again',
  });
}

/**
 * A record whose attempt may still be running until `until` (its lease) waits for it here, when
 * it would still have time to finish after the wait: the time guard's judgement (core/time-guard.ts)
 * made `waitMs` later. Returns whether it waited; a source without leases never does.
 */
export async function waitedForLease(
  deps: ConsumerDeps,
  wait: { readonly until: number; readonly messageId: string },
  context: Pick<Context, 'getRemainingTimeInMillis'>,
  longestRecordMs: number,
): Promise<boolean> {
  if (deps.config.attemptLeaseMs === undefined) return false;
  const waitMs = Math.max(0, wait.until - deps.now().getTime());
  const remainingMs = context.getRemainingTimeInMillis();
  const timeoutSeconds = deps.config.policy.attemptTimeoutSeconds;
  if (!leavesTimeFor(remainingMs - waitMs, longestRecordMs, timeoutSeconds, false)) {
    deps.logger.warn(
      "no time left to wait for a crashed attempt's lease: the record stays for the next invocation",
      {
        event: LEASE_WAIT_NO_TIME_LOG_EVENT,
        messageId: wait.messageId,
        waitMs,
        remainingMs,
        longestRecordMs,
        timeoutSeconds,
        hint: 'its partition is held one invocation more: a longer timeout or a smaller batch leaves the time',
      },
    );
    return false;
  }
  await deps.sleep(waitMs);
  return true;
}
