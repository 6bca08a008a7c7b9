/**
 * The outage step of a crash found at redelivery (consumer/begin-attempt.ts carryOut): a crash is
 * a rule 7 failure event, and when crashes of distinct messages reach the outage threshold the
 * consumer pauses for an outage, settles the crashed attempt uncharged (it was the dependency,
 * not the message) and hands the record back; in a half-open window a crash of a message that
 * is no poison suspect is the probe failing. Mutation testing (npm run mutation) found none of
 * this pinned: removing the crash's failure event, or the pause, failed no test.
 */
import { describe, expect, it } from 'vitest';
import { BREAKER_STATE } from '../../contract/control';
import { ENV } from '../../contract/env';
import { setHalfOpenBreaker } from '../../sim/world/breaker-states';
import { testWorld } from '../../sim/world/scenario';
import type { Step } from '../../sim/world/scripted-processor';

const crashes: readonly Step[] = [{ do: 'stage', name: 'parse' }, { do: 'crash' }];

/** Messages that each crash their first `crashing` attempts alone, in environments of their own. */
function twoCrashedMessages(threshold: string, crashing = 1) {
  const script = [...Array.from({ length: crashing }, () => crashes), []];
  const made = testWorld({
    env: { [ENV.outageFailureThreshold]: threshold, [ENV.outageWindowSeconds]: '600' },
    scripts: { M1: script, M2: script },
  });
  const { world } = made;
  const deliverOne = async () => {
    const next = world.queue.nextVisibleAt();
    if (next !== undefined) world.clock.advanceTo(next);
    return world.deliver(world.environment(), 1);
  };
  return { ...made, deliverOne };
}

describe('crashes found at redelivery are rule 7 failure events', () => {
  it('given two messages crashed alone and a threshold of 2, then the second crash found pauses for an outage, uncharged', async () => {
    // Prepare
    const { world, deliverOne } = twoCrashedMessages('2');
    world.queue.send({ messageId: 'M1', body: 'M1' });
    world.queue.send({ messageId: 'M2', body: 'M2' });

    // Act: each crashes alone; then their redeliveries find the crashes.
    const kinds = [];
    for (let delivery = 0; delivery < 4; delivery++) kinds.push((await deliverOne()).kind);

    // Assess: the first crash found is M1's own (charged 1, its work runs again and completes);
    // the second, of another message within the window, is the outage: settled as a crash,
    // uncharged, and handed back while the breaker is open.
    expect(kinds).toStrictEqual(['crashed', 'crashed', 'returned', 'returned']);
    expect(world.control.breaker?.record).toMatchObject({ state: BREAKER_STATE.open, reason: 'outage' });
    expect(world.ledger.get('M1')).toMatchObject({ state: 'completed', charged: 1 });
    expect(world.ledger.get('M2')).toMatchObject({
      state: 'ready',
      charged: 0,
      crashes: 1,
      lastAttemptCrashed: true,
    });
    // No window was open: this crash was no probe.
    expect(world.ledger.get('M2')?.failedProbes).toBeUndefined();
    expect(world.queue.messages.has('M2')).toBe(true);
  });

  it('given the same crashes and a threshold of 3, then no outage: the second crash is charged and its work runs again', async () => {
    // Prepare
    const { world, deliverOne } = twoCrashedMessages('3');
    world.queue.send({ messageId: 'M1', body: 'M1' });
    world.queue.send({ messageId: 'M2', body: 'M2' });

    // Act
    for (let delivery = 0; delivery < 4; delivery++) await deliverOne();

    // Assess
    expect(world.control.breaker?.record.state ?? BREAKER_STATE.closed).toBe(BREAKER_STATE.closed);
    expect(world.ledger.get('M2')).toMatchObject({ state: 'completed', charged: 1 });
  });
});

describe('a crash found in a half-open window is the probe failing', () => {
  it('given a fresh message that crashed, when its redelivery probes, then a probe failure is counted and the attempt says so', async () => {
    // Prepare: M1 crashes alone while the breaker is closed; then the breaker is half-open.
    const { world, deliverOne } = twoCrashedMessages('1');
    world.queue.send({ messageId: 'M1', body: 'M1' });
    await deliverOne();
    setHalfOpenBreaker(world);

    // Act: the probe finds the crash; with a threshold of 1 it is an outage.
    const probe = await deliverOne();

    // Assess
    expect(probe.kind).toBe('returned');
    expect(world.control.breaker?.probeFailures).toBe(1);
    expect(world.ledger.get('M1')).toMatchObject({ charged: 0, failedProbes: 1 });
  });

  it("given a fresh message that crashed, when its redelivery probes below the outage threshold, then the probe failure is counted and the crash is still rule 6's to charge", async () => {
    // Prepare: M1 crashes alone while the breaker is closed; then the breaker is half-open. A
    // threshold of 5: this one crash is no outage.
    const { world, deliverOne } = twoCrashedMessages('5');
    world.queue.send({ messageId: 'M1', body: 'M1' });
    await deliverOne();
    setHalfOpenBreaker(world);

    // Act
    await deliverOne();

    // Assess: the dependency is charged a failed probe, but a crash is not handed back uncharged
    // as a transient failure would be: attributable (alone), it is charged and the work runs again.
    expect(world.control.breaker?.probeFailures).toBe(1);
    expect(world.ledger.get('M1')).toMatchObject({ state: 'completed', charged: 1 });
    expect(world.ledger.get('M1')?.failedProbes).toBeUndefined();
  });

  it('given a message charged for a crash before, when its next crash is found in the window, then it is the message, not the probe', async () => {
    // Prepare: M1 crashes alone twice (the first found is charged), then the breaker is half-open.
    const { world, deliverOne } = twoCrashedMessages('5', 2);
    world.queue.send({ messageId: 'M1', body: 'M1' });
    await deliverOne();
    await deliverOne();
    expect(world.ledger.get('M1')).toMatchObject({ charged: 1, crashes: 1 });
    setHalfOpenBreaker(world);

    // Act
    await deliverOne();

    // Assess: a poison suspect's crash says nothing about the dependency.
    expect(world.control.breaker?.probeFailures).toBe(0);
    expect(world.ledger.get('M1')?.failedProbes).toBeUndefined();
  });
});
