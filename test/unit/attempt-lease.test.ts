/**
 * consumer/attempt-lease.ts with fakes (issue 38): a Kafka worker renews its attempt's lease a
 * third of a lease apart while it works, says when it was too slow to, stops when the attempt
 * ends or is taken over; and a redelivery waits for a lease within its invocation only when the
 * record still fits after the wait.
 */
import { describe, expect, it, vi } from 'vitest';
import { ATTEMPT_LEASE_LATE_LOG_EVENT, LEASE_WAIT_NO_TIME_LOG_EVENT } from '../../contract/log-events';
import { firstLease, keepLease, waitedForLease } from '../../lambdas/consumer/attempt-lease';
import type { ConsumerDeps } from '../../lambdas/consumer/deps';
import { attemptLeaseMs, leaseRenewalMs } from '../../lambdas/core/lease';
import { defaultPolicy } from '../../lambdas/core/types';
import { StaleAttemptError } from '../../lambdas/ports/errors';
import type { LedgerEntry } from '../../lambdas/ports/ledger';
import { aLedgerItem } from './fixtures';

const T0 = Date.parse('2026-12-07T10:00:00.000Z');
const LEASE_MS = 3_000;

/** A clock that moves only when the test says, and alarms that ring when it passes them. */
function fakes(options: { leaseMs?: number; renew?: () => Promise<unknown> } = {}) {
  let now = T0;
  const alarms: { at: number; ring: () => void; signal: AbortSignal }[] = [];
  const logs: { event: string; message: string; fields: Record<string, unknown> }[] = [];
  const renewLease = vi.fn(options.renew ?? (async () => aLedgerItem()));
  const sleep = vi.fn(async (ms: number) => {
    now += ms;
  });
  const deps = {
    config: {
      policy: { ...defaultPolicy(), attemptTimeoutSeconds: 12 },
      ...(options.leaseMs === undefined ? {} : { attemptLeaseMs: options.leaseMs }),
    },
    ledger: { renewLease },
    logger: {
      warn: (message: string, fields: Record<string, unknown>) =>
        logs.push({ event: String(fields.event), message, fields }),
    },
    now: () => new Date(now),
    sleep,
    alarm: (ms: number, signal: AbortSignal) =>
      new Promise<void>((ring) => {
        alarms.push({ at: now + ms, ring, signal });
      }),
  } as unknown as ConsumerDeps;
  /** Moves the clock to `at`, ringing every alarm due by then that nobody aborted. */
  const advanceTo = async (at: number) => {
    now = at;
    for (const alarm of alarms.splice(0).filter((candidate) => !candidate.signal.aborted)) {
      if (alarm.at <= at) alarm.ring();
      else alarms.push(alarm);
    }
    // Let the rung loop write and set its next alarm.
    for (let turn = 0; turn < 5; turn += 1) await Promise.resolve();
  };
  return { deps, renewLease, logs, sleep, advanceTo, pending: () => alarms.filter((a) => !a.signal.aborted) };
}

const leased = (aliveUntil: number): LedgerEntry =>
  aLedgerItem({ key: 'orders-1-7', attemptId: 'a1', aliveUntil: new Date(aliveUntil).toISOString() });

describe('the lease of an attempt (core/lease.ts)', () => {
  it.each([
    [1, 2_000],
    [8, 2_000],
    [12, 3_000],
    [60, 15_000],
    [120, 30_000],
    [900, 30_000],
  ])('given a %i s timeout, then the lease is %i ms: a quarter, between 2 and 30 s', (timeout, lease) => {
    expect(attemptLeaseMs(timeout)).toBe(lease);
  });

  it('given a lease, then it is renewed three times within it', () => {
    expect(leaseRenewalMs(3_000)).toBe(1_000);
    expect(leaseRenewalMs(2_000)).toBe(666);
  });
});

describe('firstLease', () => {
  it('given a source with leases, then an attempt starting now is alive for a lease', () => {
    const { deps } = fakes({ leaseMs: LEASE_MS });
    expect(firstLease(deps, new Date(T0))).toStrictEqual({ aliveUntil: new Date(T0 + LEASE_MS) });
  });

  it('given a source without leases (SQS), then the attempt carries none', () => {
    const { deps } = fakes();
    expect(firstLease(deps, new Date(T0))).toStrictEqual({});
  });
});

describe('keepLease', () => {
  it('given a worker at work, then it renews a lease ahead every third of a lease, and stops when told', async () => {
    // Prepare
    const { deps, renewLease, advanceTo, pending } = fakes({ leaseMs: LEASE_MS });

    // Act
    const lease = keepLease(deps, leased(T0 + LEASE_MS));
    await advanceTo(T0 + 1_000);
    await advanceTo(T0 + 2_000);
    lease.stop();
    await advanceTo(T0 + 9_000);

    // Assess
    expect(renewLease.mock.calls).toStrictEqual([
      ['orders-1-7', 'a1', new Date(T0 + 1_000 + LEASE_MS)],
      ['orders-1-7', 'a1', new Date(T0 + 2_000 + LEASE_MS)],
    ]);
    expect(pending()).toStrictEqual([]);
  });

  it('given no lease on the source or on the attempt, then nothing is renewed', async () => {
    for (const [options, item] of [
      [{}, leased(T0 + LEASE_MS)],
      [{ leaseMs: LEASE_MS }, aLedgerItem()],
    ] as const) {
      const { deps, renewLease, advanceTo, pending } = fakes(options);
      keepLease(deps, item as LedgerEntry);
      await advanceTo(T0 + 10_000);
      expect(renewLease).not.toHaveBeenCalled();
      expect(pending()).toStrictEqual([]);
    }
  });

  it('given the attempt was taken over or ended, when a renewal is refused, then the keeping ends quietly', async () => {
    // Prepare
    const { deps, renewLease, advanceTo, logs, pending } = fakes({
      leaseMs: LEASE_MS,
      renew: async () => {
        throw new StaleAttemptError('renewLease refused', undefined);
      },
    });

    // Act
    keepLease(deps, leased(T0 + LEASE_MS));
    await advanceTo(T0 + 1_000);
    await advanceTo(T0 + 5_000);

    // Assess
    expect(renewLease).toHaveBeenCalledTimes(1);
    expect(pending()).toStrictEqual([]);
    expect(logs).toStrictEqual([]);
  });

  it('given a renewal our table fails, then it is said and the next one tries again', async () => {
    // Prepare
    let calls = 0;
    const { deps, renewLease, advanceTo, logs } = fakes({
      leaseMs: LEASE_MS,
      renew: async () => {
        calls += 1;
        if (calls === 1) throw new Error('throttled');
        return aLedgerItem();
      },
    });

    // Act
    keepLease(deps, leased(T0 + LEASE_MS));
    await advanceTo(T0 + 1_000);
    await advanceTo(T0 + 2_000);

    // Assess
    expect(renewLease).toHaveBeenCalledTimes(2);
    expect(logs).toMatchObject([
      {
        event: 'attempt-lease-not-renewed',
        message: 'attempt lease not renewed',
        fields: { messageKey: 'orders-1-7' },
      },
    ]);
  });

  it('given a worker that could not renew before its lease ran out, then it says how late it was', async () => {
    // Prepare: the event loop was blocked 4.5 s, past the lease's end at 3 s.
    const { deps, advanceTo, logs } = fakes({ leaseMs: LEASE_MS });

    // Act
    keepLease(deps, leased(T0 + LEASE_MS));
    await advanceTo(T0 + 4_500);

    // Assess
    expect(logs).toMatchObject([
      {
        event: ATTEMPT_LEASE_LATE_LOG_EVENT,
        message: expect.stringContaining('lapsed before its renewal'),
        fields: { messageKey: 'orders-1-7', lateMs: 1_500, hint: expect.stringContaining('rebalance') },
      },
    ]);
  });

  it('given a renewal exactly as the lease ends, then it is late: the lease had already lapsed', async () => {
    const { deps, advanceTo, logs } = fakes({ leaseMs: LEASE_MS });
    keepLease(deps, leased(T0 + LEASE_MS));
    await advanceTo(T0 + LEASE_MS);
    expect(logs).toMatchObject([{ event: ATTEMPT_LEASE_LATE_LOG_EVENT, fields: { lateMs: 0 } }]);
  });
});

describe('waitedForLease', () => {
  /** The invocation's clock: `left` ms remain. */
  const invocation = (left: number) => ({ getRemainingTimeInMillis: () => left });

  it('given a lease ending in 2 s and time for the record after it, then it waits 2 s within the invocation', async () => {
    // Prepare: 12 s timeout, so the guard keeps 1.2 s for the settle writes; records took 5 s.
    const { deps, sleep } = fakes({ leaseMs: LEASE_MS });

    // Act: 2 s of waiting leaves 6.2 s, exactly 5 s + 1.2 s.
    const waited = await waitedForLease(
      deps,
      { until: T0 + 2_000, messageId: 'orders-1-7' },
      invocation(8_200),
      5_000,
    );

    // Assess
    expect(waited).toBe(true);
    expect(sleep).toHaveBeenCalledWith(2_000);
  });

  it('given a wait after which the record would not fit, then it does not wait, and says so: the batch hands it back', async () => {
    const { deps, sleep, logs } = fakes({ leaseMs: LEASE_MS });
    expect(
      await waitedForLease(deps, { until: T0 + 2_000, messageId: 'orders-1-7' }, invocation(8_199), 5_000),
    ).toBe(false);
    expect(sleep).not.toHaveBeenCalled();
    expect(logs).toMatchObject([
      {
        event: LEASE_WAIT_NO_TIME_LOG_EVENT,
        message: expect.stringContaining('no time left to wait'),
        fields: {
          messageId: 'orders-1-7',
          waitMs: 2_000,
          remainingMs: 8_199,
          longestRecordMs: 5_000,
          timeoutSeconds: 12,
          hint: expect.stringContaining('held one invocation more'),
        },
      },
    ]);
  });

  it('given a lease that already ended, then it goes on at once', async () => {
    const { deps, sleep } = fakes({ leaseMs: LEASE_MS });
    expect(
      await waitedForLease(deps, { until: T0 - 500, messageId: 'orders-1-7' }, invocation(8_000), 0),
    ).toBe(true);
    expect(sleep).toHaveBeenCalledWith(0);
  });

  it('given a source without leases (SQS), then it never waits: the visibility timeout does', async () => {
    const { deps, sleep } = fakes();
    expect(
      await waitedForLease(deps, { until: T0 + 1_000, messageId: 'orders-1-7' }, invocation(60_000), 0),
    ).toBe(false);
    expect(sleep).not.toHaveBeenCalled();
  });
});
