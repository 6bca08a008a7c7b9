/**
 * A Kafka payload of several partitions with a record that stays (issue 38): without partial batch
 * responses the invocation fails whole and every partition of it waits; with them (provisioned
 * mode, PQ_KAFKA_PARTIAL_BATCH_RESPONSE) the consumer answers where the held partition resumes,
 * in Lambda's format, and the other partitions are committed. Over the in-memory world, whose
 * mapping reads the answer as Lambda does.
 */
import type { SelfManagedKafkaEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { ENV } from '../../contract/env';
import {
  KAFKA_EVENT_SOURCE,
  kafkaItemRecordId,
  kafkaPartitionKey,
  kafkaRecordId,
} from '../../contract/sources';
import { kafkaSource } from '../../lambdas/sources/kafka';
import { kafkaEvent } from '../../sim/world/kafka-mapping';
import { MemoryTopic } from '../../sim/world/memory-topic';
import { OutsideSystem, scriptedProcessor } from '../../sim/world/scripted-processor';
import { WORLD_TOPIC, World } from '../../sim/world/world';

/** Partition 0's first record fails transiently every time; the rest complete. */
async function mixedPayload(env: Record<string, string>) {
  const outside = new OutsideSystem();
  const world: World = new World({
    source: 'kafka',
    env,
    processorFor: (environment) =>
      scriptedProcessor(environment, world, outside, (message) =>
        message.body === 'stays' ? [{ do: 'throw', error: 'transient' }] : [],
      ),
  });
  const topic = new MemoryTopic(WORLD_TOPIC, 2, () => world.clock.now());
  const records = [
    topic.produce(0, { value: Buffer.from('stays') }),
    topic.produce(0, { value: Buffer.from('behind it') }),
    topic.produce(1, { value: Buffer.from('healthy 1') }),
    topic.produce(1, { value: Buffer.from('healthy 2') }),
  ];
  const result = await world.invokeWith(world.environment(), kafkaEvent(topic, records));
  return { world, result };
}

describe('a payload of two partitions, one of them held', () => {
  it('given partial batch responses, then the answer names where partition 0 resumes and partition 1 is done', async () => {
    // Act
    const { world, result } = await mixedPayload({ [ENV.kafkaPartialBatchResponse]: 'true' });

    // Assess
    expect(result).toStrictEqual({ kind: 'returned', failed: [kafkaRecordId(WORLD_TOPIC, 0, 0)] });
    expect(world.ledger.get(kafkaRecordId(WORLD_TOPIC, 1, 1))?.state).toBe('completed');
  });

  it('given none (on-demand mode), then the invocation fails whole', async () => {
    // Act
    const { result } = await mixedPayload({});

    // Assess
    expect(result).toMatchObject({ kind: 'function-error', error: { name: 'RecordsHeldError' } });
  });
});

describe("the consumer's answer in Lambda's format", () => {
  const record = (partition: number, offset: number) => ({
    topic: WORLD_TOPIC,
    partition,
    offset,
    timestamp: 0,
    timestampType: 'CREATE_TIME',
    value: '',
    headers: [],
  });

  it('given records that stay in two partitions, then one identifier per partition, at its first such record', async () => {
    // Prepare
    const { port } = kafkaSource({
      cluster: 'c',
      marginMs: 0,
      sleep: async () => undefined,
      partialBatchResponse: true,
    });
    const stay = port.records({
      eventSource: KAFKA_EVENT_SOURCE.selfManaged,
      bootstrapServers: 'c',
      records: { 'orders-0': [record(0, 5), record(0, 4)], 'orders-2': [record(2, 9)] },
    } as unknown as SelfManagedKafkaEvent);

    // Act
    const answer = await port.respond(stay, { getRemainingTimeInMillis: () => 10_000 });

    // Assess
    expect(answer).toStrictEqual({
      batchItemFailures: [
        { itemIdentifier: { partition: kafkaPartitionKey(WORLD_TOPIC, 0), offset: 4 } },
        { itemIdentifier: { partition: kafkaPartitionKey(WORLD_TOPIC, 2), offset: 9 } },
      ],
    });
  });

  it.each([
    [{ partition: 'orders-0', offset: 4 }, 'orders-0-4'],
    [{ partition: 'orders-0', offset: -1 }, undefined],
    [{ partition: 'orders-0', offset: 1.5 }, undefined],
    [{ partition: 0, offset: 4 }, undefined],
    ['orders-0-4', undefined],
    [null, undefined],
  ])('given the item identifier %j, then it names record %s', (identifier, id) => {
    expect(kafkaItemRecordId(identifier)).toBe(id);
  });
});
