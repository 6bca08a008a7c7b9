/**
 * Crash events for rule 7 (issue 37; docs/behaviour.md "Crash events for rule 7"): a crash after
 * which the judging environment completed a record no longer counts, since workers that finish
 * messages are not down. Only a completion answers a crash, and only the judging environment's
 * own (consumer/batch.ts keeps `lastCompletedAt`, consumer/outage-watch.ts reads it). Driven
 * through the real consumer over the in-memory world: the threshold is 3 keys in 60 s.
 */
import { describe, expect, it } from 'vitest';
import { testWorld } from '../../sim/world/scenario';
import type { World } from '../../sim/world/world';

/** Two other messages' first crashes alone, as other environments recorded them just now. */
async function twoCrashesRecorded(world: World): Promise<void> {
  for (const key of ['msg:id-A', 'msg:id-B']) {
    await world.control.recordFailureEvent({
      key,
      kind: 'crash',
      at: world.clock.date(),
      eventId: `event-${key}`,
    });
  }
}

/**
 * X crashes alone in an environment of its own; 10 s before its redelivery the two other
 * crashes are recorded, and a second later M1 is worked on (in `judge` or another environment).
 * When `judge` then receives X, its crash is the third key in the window, unless the two before
 * no longer count.
 */
async function crashedWhileM1Ran(m1: 'completes' | 'fails permanently', m1In: 'the judge' | 'another') {
  const { world } = testWorld({
    scripts: {
      X: [[{ do: 'crash' }], []],
      M1: m1 === 'completes' ? [[]] : [[{ do: 'throw', error: 'permanent' }]],
    },
  });
  world.queue.send({ messageId: 'id-X', body: 'X' });
  expect((await world.deliver(world.environment(), 1)).kind).toBe('crashed');
  const visible = world.queue.nextVisibleAt() ?? world.clock.now();
  world.clock.advanceTo(visible - 10_000);
  await twoCrashesRecorded(world);
  world.clock.advance(1_000);
  const judge = world.environment();
  world.queue.send({ messageId: 'id-M1', body: 'M1' });
  await world.deliver(m1In === 'the judge' ? judge : world.environment(), 1);
  world.clock.advanceTo(visible);
  return { world, judge };
}

describe('a crash answered by a completion in the judging environment (rule 7, issue 37)', () => {
  it('given two crashes recorded before this environment completed a record, when it finds a third crash, then the two no longer count: no outage, and the crashed message runs', async () => {
    // Prepare
    const { world, judge } = await crashedWhileM1Ran('completes', 'the judge');

    // Act: the judge finds X's crash.
    const redelivery = await world.deliver(judge, 1);

    // Assess
    expect(world.ledger.get('id-M1')?.state).toBe('completed');
    expect(world.control.breaker).toBeUndefined();
    expect(redelivery).toMatchObject({ kind: 'returned', failed: [] });
    expect(world.ledger.get('id-X')).toMatchObject({ state: 'completed', charged: 1 });
  });

  it('given the record since the two crashes was quarantined instead (a permanent error), then they still count: only a completion answers a crash, and consumption pauses', async () => {
    // Prepare
    const { world, judge } = await crashedWhileM1Ran('fails permanently', 'the judge');

    // Act: the judge finds X's crash.
    const redelivery = await world.deliver(judge, 1);

    // Assess
    expect(world.ledger.get('id-M1')?.state).toBe('quarantined');
    expect(world.control.breaker?.record).toMatchObject({ state: 'open', reason: 'outage' });
    expect(redelivery).toMatchObject({ kind: 'returned', failed: ['id-X'] });
  });

  it('given the completion was in another environment, then the two crashes still count: the judge saw no worker of its own survive, and consumption pauses', async () => {
    // Prepare
    const { world, judge } = await crashedWhileM1Ran('completes', 'another');

    // Act: the judge finds X's crash.
    const redelivery = await world.deliver(judge, 1);

    // Assess
    expect(world.ledger.get('id-M1')?.state).toBe('completed');
    expect(world.control.breaker?.record).toMatchObject({ state: 'open', reason: 'outage' });
    expect(redelivery).toMatchObject({ kind: 'returned', failed: ['id-X'] });
  });
});
