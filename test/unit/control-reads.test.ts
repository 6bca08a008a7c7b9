/**
 * How often an execution environment reads the control items (breaker, isolation trial, replay
 * freeze: one BatchGetItem) while the breaker is not closed. At 1,000 environments a read on
 * every batch is more than one item serves (docs/scale.md), so an open breaker in its cool-down,
 * which nothing but an operator changes, is read at most once a second; one that may move at
 * any moment (its cool-down over, half-open) is read on every batch.
 */
import { describe, expect, it, vi } from 'vitest';
import { testWorld } from '../../sim/world/scenario';

const COOLDOWN_MS = 60_000;

async function openBreakerWorld() {
  const { world } = testWorld();
  await world.control.tripBreaker({ reason: 'outage', now: world.clock.date(), stop: false });
  for (let index = 1; index <= 20; index++) world.queue.send({ messageId: `id-${index}`, body: `M${index}` });
  const reads = vi.spyOn(world.control, 'snapshot');
  return { world, reads, env: world.environment() };
}

describe('control reads while the breaker is not closed', () => {
  it('given an open breaker in its cool-down, when batches come 100 ms apart, then the control items are read once a second', async () => {
    // Prepare
    const { world, reads, env } = await openBreakerWorld();

    // Act: 15 batches in 1.5 s, each handed back.
    for (let batch = 0; batch < 15; batch++) {
      await world.deliver(env, 1);
      world.clock.advance(100);
    }

    // Assess: a read at 0 s and one at 1 s, not one (or two) per batch.
    expect(reads).toHaveBeenCalledTimes(2);
    expect(world.queue.messages.size).toBe(20);
  });

  it('given an open breaker whose cool-down is over, when batches come 100 ms apart, then each batch reads it', async () => {
    // Prepare: the state machine may turn it half-open at any moment now.
    const { world, reads, env } = await openBreakerWorld();
    world.clock.advance(COOLDOWN_MS);

    // Act
    for (let batch = 0; batch < 3; batch++) {
      await world.deliver(env, 1);
      world.clock.advance(100);
    }

    // Assess
    expect(reads.mock.calls.length).toBeGreaterThanOrEqual(3);
  });

  it('given a breaker tripped elsewhere since this environment cached it closed, when its batches fail 100 ms apart, then it writes no failure event and no trip, and reads once a second (issue 24)', async () => {
    // Prepare: the environment caches the breaker closed; then another one trips it.
    const transient = [{ do: 'throw', error: 'transient' }] as const;
    const { world } = testWorld({ scripts: { M: [transient] } });
    const env = world.environment();
    world.queue.send({ messageId: 'id-first', body: 'ok' });
    await world.deliver(env, 1);
    await world.control.tripBreaker({ reason: 'outage', now: world.clock.date(), stop: false });
    // Two other keys failed: this environment's first failure makes three, an outage.
    for (const key of ['k-a', 'k-b']) {
      const at = world.clock.date();
      await world.control.recordFailureEvent({ key, kind: 'transient', at, eventId: key });
    }
    for (let index = 1; index <= 20; index++) world.queue.send({ messageId: `id-${index}`, body: 'M' });
    const reads = vi.spyOn(world.control, 'snapshot');
    const events = vi.spyOn(world.control, 'recordFailureEvent');
    const trips = vi.spyOn(world.control, 'tripBreaker');

    // Act: 15 batches in 1.5 s; the first runs its record on the cached (closed) breaker.
    for (let batch = 0; batch < 15; batch++) {
      await world.deliver(env, 1);
      world.clock.advance(100);
    }

    // Assess: the failure's fresh read found it open, paused, and kept the snapshot: the next
    // read is at 1 s, not on the next batch.
    expect(events).not.toHaveBeenCalled();
    expect(trips).not.toHaveBeenCalled();
    expect(reads).toHaveBeenCalledTimes(2);
    expect(world.queue.messages.size).toBe(20);
  });

  it('given a breaker found open by a failure, when a later record of the batch stops consumption, then the next batch reads the stop at once', async () => {
    // Prepare: T's failure reads the breaker fresh and finds it open (an outage elsewhere); P's
    // quarantine cannot be written, a stop (rule 11).
    const { world } = testWorld({
      scripts: { T: [[{ do: 'throw', error: 'transient' }]], P: [[{ do: 'throw', error: 'permanent' }]] },
      faults: [{ at: 'quarantine.putRecord', error: 'access-denied' }],
    });
    const env = world.environment();
    world.queue.send({ messageId: 'id-first', body: 'ok' });
    await world.deliver(env, 1);
    await world.control.tripBreaker({ reason: 'outage', now: world.clock.date(), stop: false });
    world.queue.send({ messageId: 'id-T', body: 'T' });
    world.queue.send({ messageId: 'id-P', body: 'P' });
    await world.deliver(env, 2);
    expect(world.control.breaker?.record).toMatchObject({ reason: 'quarantine-unwritable', stop: true });
    const reads = vi.spyOn(world.control, 'snapshot');

    // Act: the next batch, within the second an open breaker may be cached.
    world.clock.advance(100);
    world.queue.send({ messageId: 'id-next', body: 'ok' });
    await world.deliver(env, 1);

    // Assess: the stop this environment wrote is read, not the open breaker it had cached.
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('given this environment tripped the breaker itself, then its next batch reads it and runs nothing', async () => {
    // Prepare: two other keys failed; T1's failure makes three, and this environment trips.
    const transient = [{ do: 'throw', error: 'transient' }] as const;
    const { world } = testWorld({ scripts: { T1: [transient], T2: [transient] } });
    const env = world.environment();
    for (const key of ['k-a', 'k-b']) {
      await world.control.recordFailureEvent({
        key,
        kind: 'transient',
        at: world.clock.date(),
        eventId: key,
      });
    }
    world.queue.send({ messageId: 'id-T1', body: 'T1' });
    await world.deliver(env, 1);
    expect(world.control.breaker?.record).toMatchObject({ state: 'open', reason: 'outage' });

    // Act
    world.clock.advance(100);
    world.queue.send({ messageId: 'id-T2', body: 'T2' });
    await world.deliver(env, 1);

    // Assess: the snapshot it read before the trip is not trusted; T2 never started.
    expect(world.ledger.get('id-T2')).toBeUndefined();
  });

  it("given a failure here found the breaker closed, when another environment trips it, then this environment's next batch reads it and runs nothing", async () => {
    // Prepare: T1 fails here (one key: no outage), its fresh read finds the breaker closed; then
    // another environment's failure trips it, in the same instant (the campaign's case
    // kafka-stale-closed-breaker-after-a-failure-starts-a-keyless-call.json, on a queue).
    const transient = [{ do: 'throw', error: 'transient' }] as const;
    const { world } = testWorld({
      env: { PQ_OUTAGE_FAILURE_THRESHOLD: '2' },
      scripts: { T1: [transient], T2: [transient] },
    });
    const here = world.environment();
    world.queue.send({ messageId: 'id-T1', body: 'T1' });
    await world.deliver(here, 1);
    world.queue.send({ messageId: 'id-T2', body: 'T2' });
    await world.deliver(world.environment(), 1);
    expect(world.control.breaker?.record).toMatchObject({ state: 'open', reason: 'outage' });

    // Act: the next batch here, within the period a closed breaker may be cached.
    world.queue.send({ messageId: 'id-P', body: 'P' });
    await world.deliver(here, 1);

    // Assess: P never started; its keyless call was not made into the outage.
    expect(world.ledger.get('id-P')).toBeUndefined();
  });

  it("given a failure whose fresh read of the breaker failed, when another environment trips it, then this environment's next batch reads it and runs nothing", async () => {
    // Prepare: the breaker cached closed by a first batch; T's failure cannot read it again.
    const { world } = testWorld({ scripts: { T: [[{ do: 'throw', error: 'transient' }]] } });
    const here = world.environment();
    world.queue.send({ messageId: 'id-first', body: 'ok' });
    await world.deliver(here, 1);
    vi.spyOn(world.control, 'snapshot').mockRejectedValueOnce(new Error('throttled'));
    world.queue.send({ messageId: 'id-T', body: 'T' });
    await world.deliver(here, 1);
    await world.control.tripBreaker({ reason: 'outage', now: world.clock.date(), stop: false });

    // Act
    world.queue.send({ messageId: 'id-P', body: 'P' });
    await world.deliver(here, 1);

    // Assess: the closed snapshot from before the failure was not trusted.
    expect(world.ledger.get('id-T')).toMatchObject({ state: 'ready' });
    expect(world.ledger.get('id-P')).toBeUndefined();
  });
});
