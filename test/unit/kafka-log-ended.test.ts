/**
 * The campaign's Kafka oracle (sim/campaign/kafka-log.ts `ended`): which records a commit may pass.
 * A record whose key's item an operator reset for the replay of a quarantine holding its bytes has
 * ended (the replay carries it on, and the consumer acknowledges it as a duplicate); a record of
 * other bytes under that key, or the same bytes under an item never reset, has not.
 */
import { describe, expect, it } from 'vitest';
import { KafkaLog } from '../../sim/campaign/kafka-log';
import type { MessageSpec } from '../../sim/campaign/schedule';
import { Trace } from '../../sim/campaign/trace';
import type { StoredRecord } from '../../sim/world/memory-quarantine';
import { MemoryTopic } from '../../sim/world/memory-topic';
import { testWorld } from '../../sim/world/scenario';

const NOW = new Date('2030-01-01T00:00:00.000Z');
const SPEC: MessageSpec = { id: 'm1', body: 'M1', scripts: [] };

function oracle() {
  const { world } = testWorld();
  const topic = new MemoryTopic('orders', 1, () => NOW.getTime());
  const log = new KafkaLog(world, new Trace(), topic);
  const produce = (key: string, bytes: string) =>
    log.produced(topic.produce(0, { value: Buffer.from(bytes, 'utf8') }), key, SPEC);
  return { world, log, produce };
}

type World = ReturnType<typeof testWorld>['world'];

/** An attempt of `key` that ends `ready`: budget left, no replay. */
async function failedOnce(world: World, key: string, messageId: string) {
  await world.ledger.start({
    key,
    attemptId: 'a1',
    envId: 'env-a',
    messageId,
    bodyDigest: 'd',
    attemptLimit: 3,
    now: NOW,
    expiresAt: 1_900_000_000,
  });
  await world.ledger.recordFailure(key, 'a1', {
    counters: { charged: 1, transientFailures: 1, unknownFailures: 0 },
    now: NOW,
  });
}

/** `key`'s item quarantined by `q1` (its record holding `messageId` and `bytes`), then reset for its replay. */
async function quarantinedAndReset(world: World, key: string, messageId: string, bytes: string) {
  await failedOnce(world, key, messageId);
  await world.ledger.markQuarantined(key, { attemptId: 'a1', quarantineId: 'q1', now: NOW });
  world.quarantine.objects.set('q1/body', Buffer.from(bytes, 'utf8'));
  world.quarantine.records.set('q1', { id: 'q1', messageId, bodyKey: 'q1/body' } as StoredRecord);
  await world.ledger.resetForReplay(key, { expectedState: 'quarantined', quarantineId: 'q1', now: NOW });
}

describe('the Kafka oracle: which records have ended', () => {
  it('given an item reset for the replay of the record quarantined at offset 0, then that record and a duplicate of its bytes have ended, a record of other bytes has not', async () => {
    // Prepare
    const { world, log, produce } = oracle();
    const original = produce('order-1', 'same bytes');
    const duplicate = produce('order-1', 'same bytes');
    const other = produce('order-1', 'other bytes');
    await quarantinedAndReset(world, 'order-1', original.messageId, 'same bytes');

    // Act
    const ended = [original, duplicate, other].map((record) => log.ended(record));

    // Assess
    expect(ended).toEqual([true, true, false]);
  });

  it('given a ready item never reset for a replay, then a record of its bytes has not ended', async () => {
    // Prepare
    const { world, log, produce } = oracle();
    const record = produce('order-2', 'same bytes');
    await failedOnce(world, 'order-2', record.messageId);

    // Act
    const ended = log.ended(record);

    // Assess
    expect(ended).toBe(false);
  });

  it('given an item reset for the replay of a record of other bytes, then a record of these bytes has not ended', async () => {
    // Prepare
    const { world, log, produce } = oracle();
    const record = produce('order-3', 'these bytes');
    await quarantinedAndReset(world, 'order-3', 'another-id', 'those bytes');

    // Act
    const ended = log.ended(record);

    // Assess
    expect(ended).toBe(false);
  });
});
