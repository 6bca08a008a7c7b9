/**
 * A half-open window judges the outside dependency by its probes; a record our own tables
 * failed in it says the pipeline cannot work yet, whatever else succeeded: the window then
 * proves nothing, and the pause state machine reopens instead of restoring consumption into
 * the same failure (campaign case probe-success-restores-while-own-tables-fail).
 */
import { describe, expect, it } from 'vitest';
import { halfOpenWindow } from '../../sim/world/half-open';
import { testWorld } from '../../sim/world/scenario';

describe('own-table failures in a half-open window', () => {
  it('given a probe succeeded, when the attempts table refuses the next record, then the window counts an own failure', async () => {
    // Prepare
    const { world } = testWorld({ faults: [{ at: 'ledger.start', error: 'throttle' }] });
    await halfOpenWindow(world, { probeSuccesses: 1 });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await world.deliver(world.environment(), 1);

    // Assess: returned untouched, and the window can no longer restore consumption.
    expect(world.queue.messages.size).toBe(1);
    expect(world.control.breaker).toMatchObject({ probeSuccesses: 1, probeFailures: 1, probeOwnFailures: 1 });
  });

  it('given a probing window, when a crashed attempt cannot be settled because the control table fails, then the window counts an own failure', async () => {
    // Prepare: M1's attempt was in flight in an environment that died.
    const { world } = testWorld({
      scripts: { M1: [[{ do: 'crash' }]] },
      faults: [{ at: 'control.crashInFlight', error: 'throttle' }],
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    await world.deliver(world.environment(), 1);
    world.clock.advance(31 * 60_000);
    await halfOpenWindow(world);

    // Act
    const result = await world.deliver(world.environment(), 1);

    // Assess
    expect(result.records).toHaveLength(1);
    expect(world.queue.messages.size).toBe(1);
    expect(world.control.breaker).toMatchObject({ probeOwnFailures: 1 });
  });
});

describe('own-table failures while settling a crash', () => {
  it('given three crashed messages whose crash context cannot be read, then their failures pause consumption (rule 7) instead of cycling them', async () => {
    // Prepare: each of M1..M3 killed its own environment; the byEnv index then refuses reads.
    const crashOnce = [[{ do: 'crash' } as const], []];
    const { world } = testWorld({
      scripts: { M1: crashOnce, M2: crashOnce, M3: crashOnce },
      faults: [{ at: 'ledger.inFlightKeysOf', error: 'throttle', times: 10 }],
    });
    for (const label of ['M1', 'M2', 'M3']) {
      world.queue.send({ messageId: `id-${label}`, body: label });
      await world.deliver(world.environment(), 1);
    }
    world.clock.advance(31 * 60_000);

    // Act
    await world.deliver(world.environment(), 10);

    // Assess: three distinct keys failed on our own table: an outage, nothing charged.
    expect(world.control.breaker?.record).toMatchObject({ state: 'open', reason: 'outage' });
    expect(world.ledger.all().map((item) => item.charged)).toStrictEqual([0, 0, 0]);
    expect(world.queue.messages.size).toBe(3);
  });
});
