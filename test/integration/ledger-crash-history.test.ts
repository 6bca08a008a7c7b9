/**
 * What the ledger knows of a key's crashes, on the in-memory world and on the real adapter over
 * the local AWS: `glance`, the one read that orders a batch's redelivered records
 * (core/suspects.ts; its BatchGetItem projection must name every field), and `crashes`, the
 * generation's count of crashes alone that tells a repeated crash alone from a shared outage
 * (core/delivery.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StartInput } from '../../lambdas/ports/ledger';
import { motoWorld } from './support/ports-moto';
import { memoryWorld, type PortsUnderTest } from './support/ports-worlds';

const T0 = new Date('2030-01-02T03:04:05.000Z');

function startOf(key: string, attemptId: string): StartInput {
  return {
    key,
    attemptId,
    envId: 'env-a',
    messageId: `m-${key}`,
    bodyDigest: 'digest-1',
    attemptLimit: 3,
    now: T0,
    expiresAt: 1_900_000_000,
  };
}

describe.each([memoryWorld(), motoWorld()])("$name: a key's crash history", (world) => {
  let ports: PortsUnderTest;
  beforeAll(() => world.setUp());
  afterAll(() => world.tearDown());
  beforeEach(async () => {
    ports = await world.fresh();
  });

  it('given keys started once, restarted after a crash, completed and never seen, then each as stored', async () => {
    // Prepare
    const [once, twice, done, settled, unseen] = ['once', 'twice', 'done', 'settled', 'unseen'].map(
      (what) => `${what}-${randomUUID()}`,
    );
    await ports.ledger.start(startOf(once, 'a-1'));
    await ports.ledger.start(startOf(twice, 'a-1'));
    await ports.ledger.restartAfterCrash({
      ...startOf(twice, 'a-2'),
      envId: 'env-b',
      previousAttemptId: 'a-1',
      charge: 1,
      crashedAlone: true,
    });
    await ports.ledger.start(startOf(done, 'a-1'));
    await ports.ledger.complete(done, 'a-1', T0);
    // A crash an outage settled uncharged: ready again, and still a crash suspect.
    await ports.ledger.start(startOf(settled, 'a-1'));
    await ports.ledger.recordFailure(settled, 'a-1', {
      counters: { charged: 0, transientFailures: 0, unknownFailures: 0 },
      crashed: true,
      now: T0,
    });

    // Act
    const glances = await ports.ledger.glance([once, twice, done, settled, unseen]);

    // Assess
    expect(Object.fromEntries(glances)).toStrictEqual({
      [once]: { state: 'in-flight', attempts: 1, charged: 0, crashed: true },
      [twice]: { state: 'in-flight', attempts: 2, charged: 1, crashed: true },
      [done]: { state: 'completed', attempts: 1, charged: 0, crashed: false },
      [settled]: { state: 'ready', attempts: 1, charged: 0, crashed: true },
    });
  });

  it('given a shared crash, a crash alone settled by a restart and one settled by an outage, then the two alone count, and a replay reset forgets them', async () => {
    // Prepare
    const key = `crashed-${randomUUID()}`;
    const counters = { charged: 0, transientFailures: 0, unknownFailures: 0 };
    await ports.ledger.start(startOf(key, 'a-1'));
    const shared = await ports.ledger.restartAfterCrash({
      ...startOf(key, 'a-2'),
      previousAttemptId: 'a-1',
      charge: 0,
      crashedAlone: false,
    });
    const restarted = await ports.ledger.restartAfterCrash({
      ...startOf(key, 'a-3'),
      previousAttemptId: 'a-2',
      charge: 1,
      crashedAlone: true,
    });
    const settled = await ports.ledger.recordFailure(key, 'a-3', { counters, crashed: true, now: T0 });
    await ports.ledger.start(startOf(key, 'a-4'));
    await ports.ledger.markQuarantined(key, { attemptId: 'a-4', quarantineId: 'q-1', charge: 1, now: T0 });

    // Act
    const reset = await ports.ledger.resetForReplay(key, {
      expectedState: 'quarantined',
      quarantineId: 'q-1',
      now: T0,
    });

    // Assess
    expect(shared.started && (shared.item.crashes ?? 0)).toBe(0);
    expect(restarted.started && restarted.item.crashes).toBe(1);
    expect(settled.crashes).toBe(2);
    expect(reset.crashes).toBeUndefined();
  });
});
