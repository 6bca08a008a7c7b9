/**
 * The Kafka runner's broker calls, through @platformatic/kafka: a member of the consumer group
 * (joined as Lambda's pollers join theirs, so the group shows its member and a second consumer of
 * the group shares the partitions), fetches at offsets the runner chooses (so a partition can go
 * back to its committed offset after a failure, which a message stream cannot), commits, and
 * reads a partition's committed and end offsets.
 */
import { Consumer, IS_CONTROL, type RecordsBatch } from '@platformatic/kafka';
import type { FetchedRecord } from './kafka-event';
import { kafkaPartitionKey } from './kafka-event';
import type { KafkaPartitionLag, KafkaStartingPosition } from './kafka-types';

/** Bit 3 of a record batch's attributes: the broker stamped the time (LogAppendTime). */
const LOG_APPEND_TIME = 1 << 3;
/** ListOffsets' special timestamps. */
const EARLIEST = -2n;
const LATEST = -1n;
/** Kafka's max.partition.fetch.bytes default. */
const PARTITION_MAX_BYTES = 1_048_576;
/** OffsetCommit without a leader epoch: the broker then does not check it. */
const NO_LEADER_EPOCH = -1;

export interface KafkaSourceSettings {
  readonly bootstrapServers: readonly string[];
  readonly topic: string;
  readonly groupId: string;
  readonly clientId: string;
}

/** What one fetch brought for a partition: its records, and where the next fetch starts. */
export interface FetchedPartition {
  readonly records: FetchedRecord[];
  /** After the last batch returned, control batches (transaction markers) included. */
  readonly next: bigint;
}

export class KafkaSource {
  private constructor(
    private readonly settings: KafkaSourceSettings,
    private readonly consumer: Consumer,
  ) {}

  /** Joins the group; fails, naming the topic, when the topic does not exist. */
  static async open(settings: KafkaSourceSettings): Promise<KafkaSource> {
    const consumer = new Consumer({
      clientId: settings.clientId,
      groupId: settings.groupId,
      bootstrapBrokers: [...settings.bootstrapServers],
      autocommit: false,
    });
    const source = new KafkaSource(settings, consumer);
    try {
      const metadata = await consumer.metadata({ topics: [settings.topic] }).catch((error: Error) => {
        throw new Error(`the topic ${settings.topic} cannot be read: ${error.message}`);
      });
      if (!metadata.topics.has(settings.topic)) throw new Error(`the topic ${settings.topic} does not exist`);
      consumer.topics.track(settings.topic);
      await consumer.joinGroup({});
      return source;
    } catch (error) {
      await source.close();
      throw error;
    }
  }

  /** The partitions of the topic the group assigned to this member. */
  assigned(): number[] {
    const assignment = this.consumer.assignments?.find((each) => each.topic === this.settings.topic);
    return [...(assignment?.partitions ?? [])].sort((a, b) => a - b);
  }

  /** Called with the assigned partitions each time the member (re)joins the group. */
  onAssignment(listener: (partitions: number[]) => void): void {
    this.consumer.on('consumer:group:join', () => listener(this.assigned()));
  }

  /**
   * Where each partition starts: the group's committed offset, else the starting position.
   * `committed` is null for a partition the group never committed.
   */
  async startOffsets(
    partitions: readonly number[],
    position: KafkaStartingPosition,
  ): Promise<Map<number, { readonly offset: bigint; readonly committed: bigint | null }>> {
    const { topic } = this.settings;
    const committed = await this.consumer.listCommittedOffsets({
      topics: [{ topic, partitions: [...partitions] }],
    });
    const fallback = await this.logOffsets(position === 'TRIM_HORIZON' ? EARLIEST : LATEST);
    const offsets = new Map<number, { offset: bigint; committed: bigint | null }>();
    for (const partition of partitions) {
      const mine = committed.get(topic)?.[partition] ?? -1n;
      offsets.set(partition, {
        offset: mine >= 0n ? mine : (fallback[partition] ?? 0n),
        committed: mine >= 0n ? mine : null,
      });
    }
    return offsets;
  }

  /** One fetch of every given partition from its offset, waiting up to `maxWaitMs` for records. */
  async fetch(
    positions: ReadonlyMap<number, bigint>,
    maxWaitMs: number,
  ): Promise<Map<number, FetchedPartition>> {
    const { topic } = this.settings;
    const metadata = await this.consumer.metadata({ topics: [topic] });
    const described = metadata.topics.get(topic);
    if (!described) throw new Error(`the topic ${topic} is gone`);
    const byLeader = new Map<number, number[]>();
    for (const partition of positions.keys()) {
      const leader = described.partitions[partition]?.leader;
      if (leader === undefined) throw new Error(`the topic ${topic} has no partition ${partition}`);
      byLeader.set(leader, [...(byLeader.get(leader) ?? []), partition]);
    }
    const fetched = new Map<number, FetchedPartition>();
    await Promise.all(
      [...byLeader].map(async ([node, partitions]) => {
        const response = await this.consumer.fetch({
          node,
          maxWaitTime: maxWaitMs,
          topics: [
            {
              topicId: described.id,
              partitions: partitions.map((partition) => ({
                partition,
                fetchOffset: positions.get(partition) ?? 0n,
                partitionMaxBytes: PARTITION_MAX_BYTES,
                currentLeaderEpoch: -1,
                lastFetchedEpoch: -1,
              })),
            },
          ],
        });
        for (const answer of response.responses.flatMap((each) => each.partitions)) {
          const from = positions.get(answer.partitionIndex);
          // A partition lingering in the broker's fetch session, not asked for this time.
          if (from === undefined || !partitions.includes(answer.partitionIndex)) continue;
          const batches = answer.records ?? [];
          const last = batches.at(-1);
          fetched.set(answer.partitionIndex, {
            records: batches.flatMap((batch) => recordsOf(topic, answer.partitionIndex, batch, from)),
            next: last ? last.firstOffset + BigInt(last.lastOffsetDelta) + 1n : from,
          });
        }
      }),
    );
    return fetched;
  }

  /** Commits Kafka's way: `offset` is the next record the group will read. */
  async commit(partition: number, offset: bigint): Promise<void> {
    await this.consumer.commit({
      offsets: [{ topic: this.settings.topic, partition, offset, leaderEpoch: NO_LEADER_EPOCH }],
    });
  }

  async lag(): Promise<KafkaPartitionLag[]> {
    const { topic } = this.settings;
    const starts = await this.logOffsets(EARLIEST);
    const ends = await this.logOffsets(LATEST);
    const partitions = ends.map((_, partition) => partition);
    const committed = (await this.consumer.listCommittedOffsets({ topics: [{ topic, partitions }] })).get(
      topic,
    );
    return partitions.map((partition) => {
      const mine = committed?.[partition] ?? -1n;
      const start = starts[partition] ?? 0n;
      const end = ends[partition] ?? 0n;
      return {
        topic,
        partition,
        key: kafkaPartitionKey(topic, partition),
        committed: mine >= 0n ? Number(mine) : null,
        start: Number(start),
        end: Number(end),
        left: Number(end - (mine >= 0n ? mine : start)),
      };
    });
  }

  /** Leaves the group and closes every connection. */
  async close(): Promise<void> {
    await this.consumer.close(true);
  }

  /** Each partition's first offset (EARLIEST) or end offset (LATEST), by partition number. */
  private async logOffsets(timestamp: bigint): Promise<bigint[]> {
    const { topic } = this.settings;
    const offsets = await this.consumer.listOffsets({ topics: [topic], timestamp });
    return offsets.get(topic) ?? [];
  }
}

/** The data records of a batch from `from` on (a batch may begin before the offset asked for). */
function recordsOf(topic: string, partition: number, batch: RecordsBatch, from: bigint): FetchedRecord[] {
  if (batch.attributes & IS_CONTROL) return [];
  const logAppendTime = (batch.attributes & LOG_APPEND_TIME) !== 0;
  return batch.records.flatMap((record) => {
    const offset = batch.firstOffset + BigInt(record.offsetDelta);
    if (offset < from) return [];
    return [
      {
        topic,
        partition,
        offset,
        timestamp: logAppendTime ? batch.maxTimestamp : batch.firstTimestamp + record.timestampDelta,
        timestampType: logAppendTime ? 'LOG_APPEND_TIME' : 'CREATE_TIME',
        key: record.key,
        value: record.value,
        headers: record.headers,
      },
    ];
  });
}
