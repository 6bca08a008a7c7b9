/**
 * Steps of a batch (consumer/batch.ts) that mutation testing (npm run mutation) found unpinned by
 * the tests it runs: records set aside beside another on its last receive are not run, an open
 * breaker with no pause run gets one (once per control-cache period), an isolation trial counts
 * only records that passed, finished records are acknowledged at once only where a crash could
 * hand them back, and each record's line in the log.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULTS } from '../../contract/defaults';
import { ENV } from '../../contract/env';
import { setOpenBreaker } from '../../sim/world/breaker-states';
import { testWorld } from '../../sim/world/scenario';
import type { Step } from '../../sim/world/scripted-processor';
import type { World } from '../../sim/world/world';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('records beside another on its last receive', () => {
  it('given two records on their last receive, then one runs and the other is quarantined without running', async () => {
    // Prepare: every receive is the last (a receive count of 1); each message calls out, then fails.
    const callsThenFails: readonly (readonly Step[])[] = [
      [
        { do: 'external', name: 'charge', idempotencyKey: 'k', result: 'ok' },
        { do: 'throw', error: 'permanent' },
      ],
    ];
    const { world, outside } = testWorld({
      env: { [ENV.backstopMaxReceiveCount]: '1' },
      scripts: { P1: callsThenFails, P2: callsThenFails },
    });
    world.queue.send({ messageId: 'id-P1', body: 'P1' });
    world.queue.send({ messageId: 'id-P2', body: 'P2' });
    const start = vi.spyOn(world.ledger, 'start');

    // Act
    await world.deliver(world.environment(), 2);

    // Assess: one ran (and failed permanently); the other never reached the outside system.
    const reasons = [...world.quarantine.records.values()].map((record) => record.reason);
    expect(reasons.sort()).toEqual(['permanent-error', 'receive-limit']);
    expect(outside.count('id-P1', 'charge') + outside.count('id-P2', 'charge')).toBe(1);
    // Nor is the one set aside run after its record is written (its start would find it done).
    expect(start.mock.calls.map(([attempt]) => attempt.key).sort()).toEqual(['id-P1', 'id-P2']);
  });
});

describe('an open breaker with no pause run driving it', () => {
  it('given a batch that finds it, then the batch starts a pause run for its epoch, once per control-cache period', async () => {
    // Prepare
    const { world } = testWorld();
    setOpenBreaker(world);
    const startPause = vi.spyOn(world.operations, 'startPause');
    const env = world.environment();
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    world.queue.send({ messageId: 'id-M2', body: 'M2' });

    world.queue.send({ messageId: 'id-M3', body: 'M3' });

    // Act: two batches a second apart, and a third one control-cache period after the first.
    const first = world.clock.now();
    await world.deliver(env, 1);
    world.clock.advance(1_000);
    await world.deliver(env, 1);
    const checks = startPause.mock.calls.length;
    world.clock.advanceTo(first + DEFAULTS.controlCacheSeconds * 1000);
    await world.deliver(env, 1);

    // Assess
    expect(checks).toBe(1);
    expect(startPause).toHaveBeenCalledTimes(2);
    expect(startPause.mock.calls[0]?.[0]).toMatchObject({ epoch: 1, reason: 'outage', stop: false });
    expect([...world.operations.executions.keys()]).toEqual(['pause-1']);
    expect(world.ledger.get('id-M1')).toBeUndefined();
  });
});

describe('an isolation trial counts the records that passed', () => {
  it('given a trial running, then a record handed back does not count and one that completes does', async () => {
    // Prepare: our own table refuses M1's first start (handed back), then it completes.
    const { world } = testWorld({ faults: [{ at: 'ledger.start', error: 'throttle', key: 'id-M1' }] });
    world.control.isolation = {
      active: true,
      remaining: 5,
      startedAt: world.clock.now(),
      reason: 'unattributable-crash',
    };
    const env = world.environment();
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await world.deliver(env, 1);
    const afterFailure = world.control.isolation;
    world.clock.advanceTo(world.queue.nextVisibleAt() ?? world.clock.now());
    await world.deliver(env, 1);

    // Assess
    expect(afterFailure).toMatchObject({ active: true, remaining: 5 });
    expect(world.control.isolation).toMatchObject({ active: true, remaining: 4 });
  });
});

describe('finished records acknowledged at once', () => {
  it('given a batch of fresh records, then none is acknowledged early (the batch response does it)', async () => {
    // Prepare
    const { world } = testWorld();
    const acknowledge = vi.spyOn(world.queue, 'acknowledge');
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await world.deliver(world.environment(), 1);

    // Assess
    expect(world.ledger.get('id-M1')?.state).toBe('completed');
    expect(acknowledge).not.toHaveBeenCalled();
  });

  it('given a batch holding a redelivered record, then each finished record is acknowledged at once', async () => {
    // Prepare: M1 crashes its first attempt, so its redelivery shares a batch with M2.
    const { world } = testWorld({ scripts: { M1: [[{ do: 'crash' }], []] } });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    await world.deliver(world.environment(), 1);
    world.clock.advanceTo(world.queue.nextVisibleAt() ?? world.clock.now());
    world.queue.send({ messageId: 'id-M2', body: 'M2' });
    const acknowledge = vi.spyOn(world.queue, 'acknowledge');

    // Act
    await world.deliver(world.environment(), 2);

    // Assess
    expect(acknowledge).toHaveBeenCalledTimes(2);
  });
});

describe("a record's line in the log", () => {
  it('given a record that completes, then one DEBUG line names it, its outcome and its calls: at the default level a healthy message writes only its count (issue 24)', async () => {
    // Prepare
    const info = vi.spyOn(Logger.prototype, 'info');
    const debug = vi.spyOn(Logger.prototype, 'debug');
    const { world } = testWorld();
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await world.deliver(world.environment(), 1);

    // Assess
    expect(debug.mock.calls).toStrictEqual([
      [
        'record processed',
        { event: 'record', messageId: 'id-M1', outcome: { kind: 'completed' }, calls: expect.any(Object) },
      ],
    ]);
    expect(info).not.toHaveBeenCalledWith('record processed', expect.anything());
  });

  it('given a record that fails for a retry, then its line is INFO, where an operator reads it', async () => {
    // Prepare
    const info = vi.spyOn(Logger.prototype, 'info');
    const debug = vi.spyOn(Logger.prototype, 'debug');
    const { world } = testWorld({ scripts: { R: [[{ do: 'throw', error: 'transient' }]] } });
    world.queue.send({ messageId: 'id-R', body: 'R' });

    // Act
    await world.deliver(world.environment(), 1);

    // Assess
    expect(info).toHaveBeenCalledWith('record processed', {
      event: 'record',
      messageId: 'id-R',
      outcome: expect.objectContaining({ kind: 'retry' }),
      calls: expect.any(Object),
    });
    expect(debug).not.toHaveBeenCalled();
  });
});

describe('what a paused batch hands back', () => {
  const visibleIn = (world: World, id: string, from: number) =>
    ((world.queue.messages.get(id)?.visibleAt ?? 0) - from) / 1000;

  it('given the batch paused for an outage, then the records it did not finish come back after the first cool-down', async () => {
    // Prepare: a threshold of 1; M0 completes, our own table refuses M1's start: an outage, and
    // M2 never starts.
    const { world } = testWorld({
      env: { [ENV.outageFailureThreshold]: '1' },
      faults: [{ at: 'ledger.start', error: 'throttle', key: 'id-M1' }],
    });
    for (const label of ['M0', 'M1', 'M2']) world.queue.send({ messageId: `id-${label}`, body: label });
    const at = world.clock.now();
    const delay = vi.spyOn(world.queue, 'delay');

    // Act
    await world.deliver(world.environment(), 3);

    // Assess: M0 completed before the outage and is not handed back.
    expect(world.ledger.get('id-M0')?.state).toBe('completed');
    expect(delay).toHaveBeenCalledTimes(2);
    expect(world.control.breaker?.record).toMatchObject({ reason: 'outage', stop: false });
    expect(world.ledger.get('id-M2')).toBeUndefined();
    expect(visibleIn(world, 'id-M2', at)).toBe(DEFAULTS.breakerCooldownSeconds);
  });

  it('given the batch stopped for a person, then its records keep their visibility timeout', async () => {
    // Prepare: one open record and a capacity of 1; P2 would be quarantined: a stop.
    const permanent = [[{ do: 'throw', error: 'permanent' } as const]];
    const { world } = testWorld({
      env: { [ENV.quarantineCapacity]: '1', PQ_IN_PROCESS_CONCURRENCY: '1' },
      scripts: { P1: permanent, P2: permanent },
    });
    world.queue.send({ messageId: 'id-P1', body: 'P1' });
    await world.deliver(world.environment(), 1);
    world.queue.send({ messageId: 'id-P2', body: 'P2' });
    world.queue.send({ messageId: 'id-M3', body: 'M3' });
    const at = world.clock.now();

    // Act
    await world.deliver(world.environment(), 2);

    // Assess: the visibility timeout the world receives with (six times the attempt timeout).
    expect(world.control.breaker?.record).toMatchObject({ reason: 'quarantine-capacity', stop: true });
    expect(visibleIn(world, 'id-P2', at)).toBe(6 * 30);
  });
});
