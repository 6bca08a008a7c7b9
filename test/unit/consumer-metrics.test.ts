/**
 * The consumer's metrics (contract/metrics.ts) through the real consumer over the in-memory
 * world: what the environments published, checked against what the world's tables recorded.
 */
import { describe, expect, it } from 'vitest';
import { CONSUMER_METRIC } from '../../contract/metrics';
import type { ConsumerMetrics } from '../../lambdas/consumer/metrics';
import { drive } from '../../sim/world/drive';
import { halfOpenWindow } from '../../sim/world/half-open';
import { testWorld } from '../../sim/world/scenario';

const M = CONSUMER_METRIC;

/** Sends each label as a message whose id is `id-<label>`. */
function send(world: ReturnType<typeof testWorld>['world'], labels: readonly string[]): void {
  for (const label of labels) world.queue.send({ messageId: `id-${label}`, body: label });
}

describe('what the consumer counts', () => {
  it('given a message that crashes the worker every time, then every attempt and every charged crash is published, though each crash killed its worker', async () => {
    // Prepare
    const { world } = testWorld({ scripts: { M3: [[{ do: 'crash' }]] } });
    send(world, ['M1', 'M2', 'M3', 'M4', 'M5']);

    // Act
    await drive(world);

    // Assess: 4 + 3 attempts; M3's three crashes are charged (two restarts, then the quarantine),
    // and each restart (re)starts the isolation trial (rule 6: a crash, however many were in flight).
    expect(world.metrics.totals()).toStrictEqual({
      [M.attempts]: 7,
      [M.chargedCrashes]: 3,
      [M.isolationTrials]: 2,
      [M.quarantines]: 1,
    });
    expect(world.metrics.total(M.quarantines, 'crash-limit')).toBe(1);
    expect(world.ledger.all().reduce((sum, item) => sum + item.attempts, 0)).toBe(7);
  });

  it('given a worker dies after its keyless call was sent, then one outcome-unknown quarantine is counted as such', async () => {
    // Prepare
    const { world } = testWorld({
      scripts: { M1: [[{ do: 'external', name: 'charge', result: 'crash-during' }]] },
    });
    send(world, ['M1']);

    // Act
    await drive(world);

    // Assess: the crash is not charged: the message goes to a person, not toward its limit.
    expect(world.metrics.totals()).toStrictEqual({
      [M.attempts]: 1,
      [M.quarantines]: 1,
      [M.outcomeUnknown]: 1,
    });
    expect(world.metrics.total(M.quarantines, 'outcome-unknown')).toBe(1);
  });

  it('given a transient error and then a permanent one, then a retry and a quarantine by its reason', async () => {
    // Prepare
    const { world } = testWorld({
      scripts: { M1: [[{ do: 'throw', error: 'transient' }], [{ do: 'throw', error: 'permanent' }]] },
    });
    send(world, ['M1']);

    // Act
    await drive(world);

    // Assess: a caught error's charge is no crash.
    expect(world.metrics.totals()).toStrictEqual({ [M.attempts]: 2, [M.retries]: 1, [M.quarantines]: 1 });
    expect(world.metrics.total(M.quarantines, 'permanent-error')).toBe(1);
  });

  it('given a completed message sent again under its business key, then a duplicate, acknowledged without an attempt', async () => {
    // Prepare
    const { world } = testWorld({ env: { PQ_MESSAGE_KEY_PATH: 'id' } });
    world.queue.send({ messageId: 'id-1', body: '{"id":"order-1"}' });
    await drive(world);
    world.queue.send({ messageId: 'id-2', body: '{"id":"order-1"}' });

    // Act
    await drive(world);

    // Assess
    expect(world.metrics.totals()).toStrictEqual({ [M.attempts]: 1, [M.duplicates]: 1 });
  });

  it('given different messages fail together, then one breaker trip by its reason', async () => {
    // Prepare
    const transient = [[{ do: 'throw', error: 'transient' } as const]];
    const { world } = testWorld({ scripts: { M1: transient, M2: transient, M3: transient } });
    send(world, ['M1', 'M2', 'M3', 'M4']);

    // Act
    await world.deliver(world.environment(), 10);

    // Assess: the third failure trips the breaker; M4 is handed back unstarted.
    expect(world.control.breaker?.record.state).toBe('open');
    expect(world.metrics.total(M.breakerTrips)).toBe(1);
    expect(world.metrics.total(M.breakerTrips, 'outage')).toBe(1);
    expect(world.metrics.total(M.attempts)).toBe(3);
  });

  it('given a half-open window, then a failed probe and a successful one are counted apart', async () => {
    // Prepare: M1 fails, M2 succeeds, each a probe of the window.
    const { world } = testWorld({ scripts: { M1: [[{ do: 'throw', error: 'transient' }]] } });
    await halfOpenWindow(world);
    send(world, ['M1', 'M2']);

    // Act
    await world.deliver(world.environment(), 1);
    await world.deliver(world.environment(), 1);

    // Assess
    expect(world.control.breaker).toMatchObject({ probeFailures: 1, probeSuccesses: 1 });
    expect(world.metrics.total(M.probeFailures)).toBe(1);
    expect(world.metrics.total(M.probeSuccesses)).toBe(1);
  });

  it('given a crash with three messages in flight, then one isolation trial, however many of them come back', async () => {
    // Prepare: M1 dies while M2 and M3 are in flight beside it.
    const stages = [{ do: 'stage', name: 'a' } as const, { do: 'stage', name: 'b' } as const];
    const { world } = testWorld({
      env: { PQ_IN_PROCESS_CONCURRENCY: '3', PQ_ISOLATION_TRIAL_MESSAGES: '3' },
      scripts: {
        M1: [[...stages, { do: 'crash' }], []],
        M2: [[...stages, ...stages]],
        M3: [[...stages, ...stages]],
      },
    });
    send(world, ['M1', 'M2', 'M3']);

    // Act
    await drive(world, { batchSize: 10 });

    // Assess: the world's own count of trials started, and no charge (nobody can be blamed).
    expect(world.control.trialsStarted).toBe(1);
    expect(world.metrics.total(M.isolationTrials)).toBe(1);
    expect(world.metrics.total(M.chargedCrashes)).toBe(0);
  });
});

describe('a metric never fails a record', () => {
  it('given metrics that throw on every count and every flush, then every message still completes', async () => {
    // Prepare
    const { world } = testWorld({ scripts: { M2: [[{ do: 'throw', error: 'transient' }], []] } });
    const broken: ConsumerMetrics = {
      count: () => {
        throw new Error('count failed');
      },
      flush: () => {
        throw new Error('flush failed');
      },
    };
    world.metrics.sink = () => broken;
    send(world, ['M1', 'M2', 'M3']);

    // Act
    const report = await drive(world);

    // Assess
    expect(report.functionErrors).toBe(0);
    expect(world.ledger.all().map((item) => item.state)).toEqual(['completed', 'completed', 'completed']);
    expect(world.queue.messages.size).toBe(0);
  });
});
