/**
 * Plays Lambda's Kafka event source mapping over the world's topic: each partition's records in
 * offset order, one invocation per partition at a time, with Lambda's Kafka event; the group's
 * offset is committed only after the function returned normally (past every record, or up to the
 * lowest one a partial batch response names), and a function error or a crash commits nothing,
 * so the same records come again at once (the mapping's default: retry for ever).
 */
import type { SelfManagedKafkaEvent } from 'aws-lambda';
import { KAFKA_EVENT_SOURCE, kafkaPartitionKey, kafkaRecordId } from '../../contract/sources';
import type { MemoryTopic, TopicRecord } from './memory-topic';
import {
  type ExecutionEnvironment,
  type Handle,
  type InvocationResult,
  WORLD_CLUSTER,
  type World,
} from './world';

type Environment = ExecutionEnvironment & { readonly handle: Handle };

/** Lambda's self-managed Kafka event for one partition's records. */
export function kafkaEvent(topic: MemoryTopic, records: readonly TopicRecord[]): SelfManagedKafkaEvent {
  const byPartition: SelfManagedKafkaEvent['records'] = {};
  for (const record of records) {
    const group = kafkaPartitionKey(topic.name, record.partition);
    byPartition[group] ??= [];
    byPartition[group].push({
      topic: topic.name,
      partition: record.partition,
      offset: record.offset,
      timestamp: record.timestamp,
      timestampType: 'CREATE_TIME',
      ...(record.key === undefined ? {} : { key: record.key }),
      value: record.value,
      headers: record.headers.map(({ name, value }) => ({ [name]: [...value] })),
    } as SelfManagedKafkaEvent['records'][string][number]);
  }
  return {
    eventSource: KAFKA_EVENT_SOURCE.selfManaged,
    bootstrapServers: WORLD_CLUSTER,
    records: byPartition,
  };
}

/** One poll of one partition: fetch from the committed offset, invoke, commit as Lambda does. */
export async function deliverPartition(
  world: World,
  env: Environment,
  topic: MemoryTopic,
  partition: number,
  batchSize: number,
): Promise<InvocationResult & { readonly records: readonly TopicRecord[] }> {
  const records = topic.fetch(partition, batchSize);
  if (records.length === 0) return { kind: 'returned', failed: [], records };
  const result = await world.invokeWith(env, kafkaEvent(topic, records));
  if (result.kind === 'returned') topic.commit(partition, committedAfter(topic, records, result.failed));
  return { ...result, records };
}

/** The next offset to commit: past the batch, or up to its lowest failed record. */
function committedAfter(
  topic: MemoryTopic,
  records: readonly TopicRecord[],
  failed: readonly string[],
): number {
  const failedIds = new Set(failed);
  const firstFailed = records.find((record) =>
    failedIds.has(kafkaRecordId(topic.name, record.partition, record.offset)),
  );
  return firstFailed?.offset ?? (records.at(-1)?.offset ?? -1) + 1;
}

export interface KafkaDriveReport {
  /** Invocations per partition. */
  readonly invocations: readonly number[];
  /** Invocations per partition that committed nothing (the partition was held). */
  readonly held: readonly number[];
  readonly crashes: number;
  readonly functionErrors: number;
}

/**
 * Polls every partition in turn, each with its own execution environment (a fresh one after a
 * crash), until nothing is left to commit or `maxPolls` polls. Between rounds one second passes.
 */
export async function driveKafka(
  world: World,
  topic: MemoryTopic,
  options: { readonly batchSize?: number; readonly maxPolls?: number } = {},
): Promise<KafkaDriveReport> {
  const partitions = Array.from({ length: topic.partitionCount }, (_, index) => index);
  const envs = partitions.map(() => world.environment());
  const invocations = partitions.map(() => 0);
  const held = partitions.map(() => 0);
  let crashes = 0;
  let functionErrors = 0;
  let polls = 0;
  while (polls < (options.maxPolls ?? 200) && topic.lag() > 0) {
    for (const partition of partitions.filter((index) => topic.lag(index) > 0)) {
      polls += 1;
      invocations[partition] += 1;
      const before = topic.committedOffset(partition);
      const result = await deliverPartition(
        world,
        envs[partition],
        topic,
        partition,
        options.batchSize ?? 10,
      );
      if (topic.committedOffset(partition) === before) held[partition] += 1;
      if (result.kind === 'crashed') {
        crashes += 1;
        envs[partition] = world.environment();
      }
      if (result.kind === 'function-error') functionErrors += 1;
    }
    world.clock.advanceTo(world.clock.now() + 1000);
  }
  return { invocations, held, crashes, functionErrors };
}
