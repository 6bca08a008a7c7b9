/**
 * Issue 38: the seed's rehearsal and the incident on a Kafka topic, through the real consumer
 * over the in-memory world, with Lambda's Kafka mapping played (sim/world/kafka-mapping.ts): the
 * same rules, keyed by topic, partition and offset, and a partition that moves on past its poison.
 */
import { describe, expect, it, vi } from 'vitest';
import { kafkaRecordId } from '../../contract/sources';
import type { QueueMessage } from '../../lambdas/consumer/types';
import { driveKafka } from '../../sim/world/kafka-mapping';
import { MemoryTopic } from '../../sim/world/memory-topic';
import { OutsideSystem, type Step, scriptedProcessor } from '../../sim/world/scripted-processor';
import { WORLD_TOPIC, World } from '../../sim/world/world';

/** A corrupted protobuf: bytes that are no UTF-8 at all. */
const CORRUPTED = Buffer.from([0x0a, 0xff, 0xfe, 0x00, 0xc3, 0x28]);

/** A world reading a Kafka topic whose records' values say what each does. */
function kafkaWorld(partitions: number, scriptOf: (value: Buffer) => readonly Step[]) {
  const outside = new OutsideSystem();
  const world: World = new World({
    source: 'kafka',
    processorFor: (env) =>
      scriptedProcessor(env, world, outside, (message) =>
        scriptOf(Buffer.from(message.kafka?.value ?? '', 'base64')),
      ),
  });
  const topic = new MemoryTopic(WORLD_TOPIC, partitions, () => world.clock.now());
  return { world, topic, outside };
}

const book: Step = { do: 'external', name: 'book', result: 'ok' };

function seed(m3: readonly Step[]) {
  const { world, topic, outside } = kafkaWorld(1, (value) => (value.toString() === 'M3' ? m3 : [book]));
  for (const label of ['M1', 'M2', 'M3', 'M4', 'M5']) topic.produce(0, { value: Buffer.from(label) });
  return { world, topic, outside };
}

describe('the seed rehearsal on a Kafka topic (in memory)', () => {
  it('given M3 crashes the parser every time, then 7 attempts, 4 completed, 1 quarantined, 0 left', async () => {
    // Prepare
    const { world, topic } = seed([{ do: 'crash' }]);

    // Act
    const report = await driveKafka(world, topic, { batchSize: 1 });

    // Assess
    const items = world.ledger.all();
    expect(items.reduce((sum, item) => sum + item.attempts, 0)).toBe(7);
    expect(items.filter((item) => item.state === 'completed').map((item) => item.key)).toStrictEqual(
      ['0', '1', '3', '4'].map((offset) => kafkaRecordId(WORLD_TOPIC, 0, offset)),
    );
    expect([...world.quarantine.records.values()].map((record) => record.reason)).toStrictEqual([
      'crash-limit',
    ]);
    expect(topic.lag()).toBe(0);
    expect(report.crashes).toBe(3);
  });

  it('given M3 dies after sending its request, then 5 attempts, 1 outcome-unknown, one request for M3', async () => {
    // Prepare
    const { world, topic, outside } = seed([{ do: 'external', name: 'book', result: 'crash-during' }]);

    // Act
    await driveKafka(world, topic, { batchSize: 1 });

    // Assess
    const items = world.ledger.all();
    expect(items.reduce((sum, item) => sum + item.attempts, 0)).toBe(5);
    expect(items.filter((item) => item.state === 'completed')).toHaveLength(4);
    expect([...world.quarantine.records.values()].map((record) => record.reason)).toStrictEqual([
      'outcome-unknown',
    ]);
    expect(outside.count(kafkaRecordId(WORLD_TOPIC, 0, 2), 'book')).toBe(1);
    expect(topic.lag()).toBe(0);
  });

  it('given a batch of five with M3 crashing, then the records before it are not worked twice', async () => {
    // Prepare
    const { world, topic, outside } = seed([{ do: 'crash' }]);

    // Act
    await driveKafka(world, topic, { batchSize: 5 });

    // Assess: M1 and M2 came back with every crash of M3, and were acknowledged without work.
    expect(outside.count(kafkaRecordId(WORLD_TOPIC, 0, 0), 'book')).toBe(1);
    expect(outside.count(kafkaRecordId(WORLD_TOPIC, 0, 1), 'book')).toBe(1);
    expect([...world.quarantine.records.values()].map((record) => record.reason)).toStrictEqual([
      'crash-limit',
    ]);
    expect(topic.lag()).toBe(0);
  });
});

describe('the incident: one corrupted record on one of three partitions (in memory)', () => {
  it('given a record that crashes the deserializer at one offset, then only its partition waits, and only for the limit', async () => {
    // Prepare: 20 records on each of three partitions; partition 1's offset 7 is corrupted.
    const { world, topic } = kafkaWorld(3, (value) => (value.equals(CORRUPTED) ? [{ do: 'crash' }] : [book]));
    for (let offset = 0; offset < 20; offset += 1)
      for (const partition of [0, 1, 2])
        topic.produce(partition, {
          key: `order-${partition}-${offset}`,
          value: partition === 1 && offset === 7 ? CORRUPTED : Buffer.from(`order ${offset}`),
          headers: [{ name: 'trace-id', value: Buffer.from(`t-${partition}-${offset}`) }],
        });

    // Act
    const report = await driveKafka(world, topic, { batchSize: 5 });

    // Assess: the record crashed the limit's three invocations and held its partition for those
    // alone: each redelivery waited, within itself, for the crashed attempt's lease to lapse (it
    // might have been a rebalance's duplicate still running: docs/behaviour.md, "Kafka"), then ran
    // it; the fourth delivery quarantined it and the partition moved on. The others were never held.
    expect(report.crashes).toBe(3);
    expect(report.held[0]).toBe(0);
    expect(report.held[2]).toBe(0);
    expect(report.held[1]).toBe(3);
    expect(topic.lag()).toBe(0);
    const [record] = [...world.quarantine.records.values()];
    expect(record).toMatchObject({
      reason: 'crash-limit',
      messageKey: kafkaRecordId(WORLD_TOPIC, 1, 7),
      messageGroupId: `${WORLD_TOPIC}-1`,
      orderBroken: true,
    });
    expect(world.quarantine.records.size).toBe(1);
    expect(world.ledger.all().filter((item) => item.state === 'completed')).toHaveLength(59);
    // Its exact bytes in the bucket; its key, headers, topic, partition and offset beside them.
    expect(world.quarantine.objects.get(record.bodyKey)).toStrictEqual(CORRUPTED);
    const envelope = JSON.parse(world.quarantine.objects.get(record.envelopeKey)?.toString() ?? '{}');
    expect(envelope.kafka).toStrictEqual({
      topic: WORLD_TOPIC,
      partition: 1,
      offset: 7,
      timestamp: expect.any(Number),
      timestampType: 'CREATE_TIME',
      key: Buffer.from('order-1-7').toString('base64'),
      headers: [{ name: 'trace-id', value: Buffer.from('t-1-7').toString('base64') }],
    });
  });
});

describe("what the user's code gets (issue 38)", () => {
  /** The first message the processor is given, in a world of `source`. */
  async function firstMessage(source: 'sqs' | 'kafka'): Promise<QueueMessage> {
    const seen: QueueMessage[] = [];
    const world: World = new World({
      source,
      processorFor: () => ({
        process: async (message) => {
          seen.push(message);
        },
      }),
    });
    if (source === 'sqs') {
      world.queue.send({ messageId: 'id-1', body: '{"id":1}' });
      await world.deliver(world.environment(), 1);
    } else {
      const topic = new MemoryTopic(WORLD_TOPIC, 1, () => world.clock.now());
      topic.produce(0, { key: 'order-1', value: Buffer.from('{"id":1}') });
      await driveKafka(world, topic, { batchSize: 1 });
    }
    const [message] = seen;
    if (message === undefined) throw new Error('the processor was not called');
    return message;
  }

  it('given an SQS message, then it has no Kafka record', async () => {
    // Act
    const message = await firstMessage('sqs');

    // Assess
    expect(message).toStrictEqual({
      messageId: 'id-1',
      key: 'id-1',
      body: '{"id":1}',
      attributes: expect.any(Object),
      messageAttributes: {},
      attempt: 1,
    });
  });

  it('given a Kafka record, then its value as text and the record as delivered', async () => {
    // Act
    const message = await firstMessage('kafka');

    // Assess
    expect(message).toMatchObject({
      messageId: kafkaRecordId(WORLD_TOPIC, 0, 0),
      key: kafkaRecordId(WORLD_TOPIC, 0, 0),
      body: '{"id":1}',
      attempt: 1,
      kafka: {
        topic: WORLD_TOPIC,
        partition: 0,
        offset: 0,
        key: Buffer.from('order-1').toString('base64'),
        value: Buffer.from('{"id":1}').toString('base64'),
        headers: [],
      },
    });
  });
});

describe('a crash on an ordered source (issue 38)', () => {
  it('given a poison record, then no isolation trial starts: the records behind it run one at a time already', async () => {
    // Prepare
    const { world, topic } = seed([{ do: 'crash' }]);
    const passed = vi.spyOn(world.control, 'isolationMessagePassed');
    const started = vi.spyOn(world.control, 'startIsolation');

    // Act
    await driveKafka(world, topic, { batchSize: 1 });

    // Assess
    expect(started).not.toHaveBeenCalled();
    expect(passed).not.toHaveBeenCalled();
    expect(world.control.isolation).toBeUndefined();
  });
});
