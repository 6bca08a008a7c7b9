/**
 * consumer/control-cache.ts, as a batch uses it: the control state is read once per
 * `controlCacheSeconds`, but an execution environment that changed it itself (it paused
 * consumption) reads it again at its next batch, however fresh its copy. Mutation testing found
 * the invalidation unpinned (issue 19).
 */
import { describe, expect, it } from 'vitest';
import { BREAKER_STATE } from '../../contract/control';
import { ENV } from '../../contract/env';
import { drive } from '../../sim/world/drive';
import { testWorld } from '../../sim/world/scenario';
import type { Step } from '../../sim/world/scripted-processor';

const permanent: readonly (readonly Step[])[] = [[{ do: 'throw', error: 'permanent' }]];

describe('a pause this environment started itself', () => {
  it('given its batch stopped the consumer, then its next batch, inside the cache period, runs nothing and hands the record back', async () => {
    // Prepare: one open record and a capacity of 1; the next poison message stops the consumer.
    const { world } = testWorld({
      env: { [ENV.quarantineCapacity]: '1' },
      scripts: { P1: permanent, P2: permanent },
    });
    world.queue.send({ messageId: 'id-P1', body: 'P1' });
    await drive(world);
    const env = world.environment();
    world.queue.send({ messageId: 'id-P2', body: 'P2' });
    await world.deliver(env, 1);
    const stoppedAt = world.clock.now();
    world.queue.send({ messageId: 'id-M3', body: 'M3' });

    // Act
    const result = await world.deliver(env, 1);

    // Assess: the stop is seen at once, not a cache period later; M3 never started.
    expect(world.clock.now() - stoppedAt).toBeLessThan(world.config.controlCacheSeconds * 1000);
    expect(world.control.breaker?.record).toMatchObject({ state: BREAKER_STATE.open, stop: true });
    expect(result).toMatchObject({ kind: 'returned', failed: ['id-M3'] });
    expect(world.ledger.get('id-M3')).toBeUndefined();
  });
});
