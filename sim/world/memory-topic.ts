/**
 * A Kafka topic in memory, as Lambda's Kafka mapping meets it: partitions of records in offset
 * order and one consumer group's committed offset per partition. Nothing is deleted: a record
 * leaves only when the group commits past it, and until then it is fetched again, in order.
 */
export interface TopicRecord {
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
  /** base64, absent for a record without a key. */
  readonly key?: string;
  /** base64: the exact bytes. */
  readonly value: string;
  readonly headers: readonly { readonly name: string; readonly value: Buffer }[];
}

export class MemoryTopic {
  private readonly partitions: TopicRecord[][];
  private readonly committed: number[];

  constructor(
    readonly name: string,
    partitions: number,
    private readonly now: () => number,
  ) {
    this.partitions = Array.from({ length: partitions }, () => []);
    this.committed = Array.from({ length: partitions }, () => 0);
  }

  get partitionCount(): number {
    return this.partitions.length;
  }

  /** Appends a record to a partition; its offset is the partition's next. */
  produce(
    partition: number,
    record: { readonly key?: string; readonly value: Buffer; readonly headers?: TopicRecord['headers'] },
  ): TopicRecord {
    const log = this.log(partition);
    const produced: TopicRecord = {
      partition,
      offset: log.length,
      timestamp: this.now(),
      ...(record.key === undefined ? {} : { key: Buffer.from(record.key, 'utf8').toString('base64') }),
      value: record.value.toString('base64'),
      headers: record.headers ?? [],
    };
    log.push(produced);
    return produced;
  }

  /** Up to `max` records from the committed offset on, in order. */
  fetch(partition: number, max: number): readonly TopicRecord[] {
    const from = this.committedOffset(partition);
    return this.log(partition).slice(from, from + max);
  }

  /** The group moves past everything before `nextOffset` (never backwards). */
  commit(partition: number, nextOffset: number): void {
    this.committed[partition] = Math.max(this.committedOffset(partition), nextOffset);
  }

  committedOffset(partition: number): number {
    return this.committed[partition] ?? 0;
  }

  /** Records not yet committed: the topic's "left in the queue". */
  lag(partition?: number): number {
    const partitions = partition === undefined ? this.partitions.map((_, index) => index) : [partition];
    return partitions.reduce((sum, index) => sum + this.log(index).length - this.committedOffset(index), 0);
  }

  private log(partition: number): TopicRecord[] {
    const log = this.partitions[partition];
    if (log === undefined) throw new RangeError(`topic ${this.name} has no partition ${partition}`);
    return log;
  }
}
