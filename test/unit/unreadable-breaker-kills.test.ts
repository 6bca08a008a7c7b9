/**
 * consumer/unreadable-breaker.ts: what mutation testing (issue 19, npm run mutation) left unpinned
 * after unreadable-breaker-steps.test.ts. While the breaker item cannot be read nobody knows
 * whether a window is open, so a record on its last receive reports no probe: neither a crash
 * found at its redelivery nor our own ledger refusing its start is written as one.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bodyDigest } from '../../lambdas/core/ids';
import { GARBLED_BREAKER_ITEM } from '../../sim/world/breaker-states';
import { testWorld } from '../../sim/world/scenario';
import type { World } from '../../sim/world/world';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Makes the next receive of `messageId` its last before the backstop (maxReceiveCount 10). */
function lastReceiveNext(world: World, messageId: string): void {
  const message = world.queue.messages.get(messageId);
  if (message === undefined) throw new Error(`${messageId} not queued`);
  message.receiveCount = 9;
}

describe('an unreadable breaker and a record on its last receive', () => {
  it('given a fresh message that crashed alone, when its last receive finds the crash, then it is quarantined and no probe is reported', async () => {
    // Prepare: M1 crashes alone while the breaker is readable; then the breaker item is garbled.
    const { world } = testWorld({ scripts: { M1: [[{ do: 'crash' }]] } });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    expect((await world.deliver(world.environment(), 1)).kind).toBe('crashed');
    world.control.corruptBreaker(GARBLED_BREAKER_ITEM);
    lastReceiveNext(world, 'id-M1');
    const next = world.queue.nextVisibleAt();
    if (next !== undefined) world.clock.advanceTo(next);
    const recordProbe = vi.spyOn(world.control, 'recordProbe');

    // Act
    const result = await world.deliver(world.environment(), 1);

    // Assess
    expect(result).toMatchObject({ kind: 'returned', failed: [] });
    expect([...world.quarantine.records.values()].map((record) => record.reason)).toStrictEqual([
      'receive-limit',
    ]);
    expect(recordProbe).not.toHaveBeenCalled();
  });

  it('given our ledger refusing its start, then it is handed back and no probe is reported', async () => {
    // Prepare
    const { world } = testWorld({ faults: [{ at: 'ledger.start', error: 'throttle', key: 'id-M1' }] });
    world.control.corruptBreaker(GARBLED_BREAKER_ITEM);
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    lastReceiveNext(world, 'id-M1');
    const recordProbe = vi.spyOn(world.control, 'recordProbe');

    // Act
    const result = await world.deliver(world.environment(), 1);

    // Assess
    expect(result).toMatchObject({ kind: 'returned', failed: ['id-M1'] });
    expect(world.queue.messages.has('id-M1')).toBe(true);
    expect(world.ledger.get('id-M1')).toBeUndefined();
    expect(recordProbe).not.toHaveBeenCalled();
  });

  it('given its attempt still running in another environment, then it is handed back at once, its start tried once: nothing waits here', async () => {
    // Prepare: another environment began M1's attempt a moment ago and is still at it.
    const { world } = testWorld();
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    await world.ledger.start({
      key: 'id-M1',
      attemptId: 'elsewhere',
      envId: 'env-elsewhere',
      messageId: 'id-M1',
      bodyDigest: bodyDigest('M1'),
      attemptLimit: 3,
      now: world.clock.date(),
      expiresAt: Math.floor(world.clock.now() / 1000) + 86_400,
    });
    world.control.corruptBreaker(GARBLED_BREAKER_ITEM);
    lastReceiveNext(world, 'id-M1');
    const start = vi.spyOn(world.ledger, 'start');

    // Act
    const result = await world.deliver(world.environment(), 1);

    // Assess
    expect(result).toMatchObject({ kind: 'returned', failed: ['id-M1'] });
    expect(start).toHaveBeenCalledTimes(1);
    expect(world.ledger.get('id-M1')?.attemptId).toBe('elsewhere');
  });
});
