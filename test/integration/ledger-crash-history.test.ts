/**
 * What the ledger knows of a key's crashes, on the in-memory world and on the real adapter over
 * the local AWS: `glance`, the one read that orders a batch's redelivered records
 * (core/suspects.ts; its BatchGetItem projection must name every field), and `crashes`, the
 * generation's crash count that tells a repeated crash alone from a shared outage (core/delivery.ts).
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
    const [once, twice, done, unseen] = ['once', 'twice', 'done', 'unseen'].map(
      (what) => `${what}-${randomUUID()}`,
    );
    await ports.ledger.start(startOf(once, 'a-1'));
    await ports.ledger.start(startOf(twice, 'a-1'));
    await ports.ledger.restartAfterCrash({
      ...startOf(twice, 'a-2'),
      envId: 'env-b',
      previousAttemptId: 'a-1',
      charge: 1,
    });
    await ports.ledger.start(startOf(done, 'a-1'));
    await ports.ledger.complete(done, 'a-1', T0);

    // Act
    const glances = await ports.ledger.glance([once, twice, done, unseen]);

    // Assess
    expect(Object.fromEntries(glances)).toStrictEqual({
      [once]: { state: 'in-flight', attempts: 1, charged: 0 },
      [twice]: { state: 'in-flight', attempts: 2, charged: 1 },
      [done]: { state: 'completed', attempts: 1, charged: 0 },
    });
  });

  it('given crashes settled by a restart and by an outage, then both count, and a replay reset forgets them', async () => {
    // Prepare
    const key = `crashed-${randomUUID()}`;
    const counters = { charged: 0, transientFailures: 0, unknownFailures: 0 };
    await ports.ledger.start(startOf(key, 'a-1'));
    const restarted = await ports.ledger.restartAfterCrash({
      ...startOf(key, 'a-2'),
      previousAttemptId: 'a-1',
      charge: 0,
    });
    const settled = await ports.ledger.recordFailure(key, 'a-2', { counters, crashed: true, now: T0 });
    await ports.ledger.start(startOf(key, 'a-3'));
    await ports.ledger.markQuarantined(key, { attemptId: 'a-3', quarantineId: 'q-1', charge: 1, now: T0 });

    // Act
    const reset = await ports.ledger.resetForReplay(key, {
      expectedState: 'quarantined',
      quarantineId: 'q-1',
      now: T0,
    });

    // Assess
    expect(restarted.started && restarted.item.crashes).toBe(1);
    expect(settled.crashes).toBe(2);
    expect(reset.crashes).toBeUndefined();
  });
});
