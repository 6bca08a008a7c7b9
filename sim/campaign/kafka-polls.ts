/**
 * Lambda's Kafka event source mapping as the campaign plays it over the world's topic: records
 * produced to partitions; each invocation fetches a payload from the committed offsets of its
 * partitions (one, or several: Lambda may mix partitions in one payload), Lambda's Kafka event,
 * and commits after a normal return only (past every record of a partition, or up to the lowest
 * one a partial batch response names); a function error or a crash commits nothing, and the same
 * records come at the next poll. A rebalance hands a partition to a second environment while the
 * first may still run its records: both are invoked with what was not committed, and both commit
 * on a normal return (offsets only move forward). Nothing is polled while the pause model has the
 * mapping disabled; the probe's footprint while half-open. Environments are the campaign's slots
 * (mapping.ts): a warm one serves whichever partition it is given, as Lambda's do.
 */
import { PROBE_FOOTPRINT } from '../../contract/control';
import { KAFKA_REPLAY_HEADERS, kafkaRecordId } from '../../contract/sources';
import { kafkaEvent } from '../world/kafka-mapping';
import type { MemoryTopic, TopicRecord } from '../world/memory-topic';
import type { InvocationResult, World } from '../world/world';
import type { KafkaInvocationLog, KafkaLog, ProducedRecord } from './kafka-log';
import type { Mapping } from './mapping';
import type { PauseModel } from './pause-model';
import type { CampaignConfig, KafkaInvocation, MessageSpec } from './schedule';

/** The mapping polls a partition again about a second after its last poll. */
const REPOLL_MS = 1000;

/** A record produced, as the campaign's sent messages hold it (schedule-source.ts SentMessage). */
export interface ProducedMessage {
  readonly messageId: string;
  /** The value as the consumer reads it: its UTF-8 text. */
  readonly body: string;
  readonly key: string;
  readonly bytes: Buffer;
}

export class KafkaPolls {
  private lastPollAt = Number.NEGATIVE_INFINITY;
  private drainPolls = 0;

  constructor(
    private readonly world: World,
    private readonly pause: PauseModel,
    private readonly config: CampaignConfig,
    private readonly mapping: Mapping,
    private readonly topic: MemoryTopic,
    private readonly log: KafkaLog,
  ) {}

  /** Records not committed yet: the topic's "left in the queue". */
  size(): number {
    return this.topic.lag();
  }

  /** When the mapping polls again, if any record waits: it does not sit out a probe window idle. */
  nextPollAt(): number | undefined {
    return this.size() === 0 ? undefined : Math.max(this.world.clock.now(), this.lastPollAt + REPOLL_MS);
  }

  /**
   * Produces a message's value to its partition (a replay's with the replay headers an operator's
   * `pq replay` adds) and returns it as the campaign's sent message.
   */
  produce(
    spec: MessageSpec,
    replay?: { readonly replayOf: string; readonly messageKey: string },
  ): ProducedMessage {
    const value =
      spec.bytes === undefined ? Buffer.from(spec.body, 'utf8') : Buffer.from(spec.bytes, 'base64');
    const headers = [
      ...(spec.headers ?? []),
      ...(replay === undefined
        ? []
        : [
            { name: KAFKA_REPLAY_HEADERS.replayOf, value: replay.replayOf },
            { name: KAFKA_REPLAY_HEADERS.messageKey, value: replay.messageKey },
          ]),
    ];
    const partition = Math.min(spec.partition ?? 0, this.topic.partitionCount - 1);
    const record = this.topic.produce(partition, {
      ...(spec.recordKey === undefined ? {} : { key: spec.recordKey }),
      value,
      headers: headers.map(({ name, value: text }) => ({ name, value: Buffer.from(text, 'utf8') })),
    });
    const messageId = kafkaRecordId(this.topic.name, partition, record.offset);
    const body = value.toString('utf8');
    // As the consumer reads them: headers as String attributes, the last of a repeated name.
    const messageAttributes = Object.fromEntries(
      headers.map(({ name, value: text }) => [name, { dataType: 'String', stringValue: text }]),
    );
    const key = this.mapping.keyOf({ messageId, body, messageAttributes });
    this.log.produced(record, key, spec);
    return { messageId, body, key, bytes: value };
  }

  /** One invocation per entry, all at once; false when the mapping is disabled. */
  async poll(invocations: readonly KafkaInvocation[]): Promise<boolean> {
    if (!this.mapping.enabled()) return false;
    const probing = this.pause.probing();
    const batchSize = probing ? PROBE_FOOTPRINT.batchSize : this.config.batchSize;
    const chosen = distinct(invocations).slice(0, probing ? PROBE_FOOTPRINT.maxConcurrency : undefined);
    await Promise.all(chosen.map((invocation) => this.invoke(invocation, batchSize)));
    return true;
  }

  /**
   * Slot `env` is invoked with the partition's records and, `afterMs` later, slot `to` with what
   * is still not committed then: a rebalance while the first may still run them.
   */
  async rebalance(partition: number, env: number, to: number, afterMs: number): Promise<boolean> {
    if (!this.mapping.enabled()) return false;
    const batchSize = this.pause.probing() ? PROBE_FOOTPRINT.batchSize : this.config.batchSize;
    // A second environment: one runs one invocation at a time.
    const other = to === env ? env + 1 : to;
    const first = this.invoke({ env, partitions: [partition] }, batchSize);
    const second = this.world.timers
      .after(afterMs, new AbortController().signal)
      .then(() =>
        this.pause.mappingEnabled()
          ? this.invoke({ env: other, partitions: [partition] }, batchSize)
          : undefined,
      );
    await Promise.all([first, second]);
    return true;
  }

  /**
   * The drain's poll: every partition with records left, each in its own slot (or all in one
   * payload, `mixed`), beginning with a partition of its turn (the probe's footprint takes the
   * first ones: each gets its turn).
   */
  async drainPoll(mixed: boolean): Promise<boolean> {
    const count = this.topic.partitionCount;
    const first = this.drainPolls++ % count;
    const partitions = Array.from({ length: count }, (_, index) => (first + index) % count).filter(
      (partition) => this.topic.lag(partition) > 0,
    );
    if (mixed) return this.poll([{ env: first, partitions }]);
    return this.poll(partitions.map((partition) => ({ env: partition, partitions: [partition] })));
  }

  private async invoke(invocation: KafkaInvocation, batchSize: number): Promise<void> {
    const fetched = this.fetch(invocation.partitions, batchSize);
    if (fetched.length === 0) return;
    this.lastPollAt = this.world.clock.now();
    const records = fetched.map((record) => this.producedOf(record));
    const run = this.mapping.begin(invocation.env);
    const entry: KafkaInvocationLog = {
      seq: run.seq,
      envId: run.env.id,
      records,
      breakerClosed: run.breaker === 'closed',
      endSeq: Number.POSITIVE_INFINITY,
    };
    this.log.invocations.push(entry);
    const result = await this.world.invokeWith(run.env, kafkaEvent(this.topic, fetched));
    entry.result = result.kind;
    entry.endSeq = this.log.mark();
    const held = heldBy(result);
    if (held !== undefined) entry.held = held;
    const committed = new Set<string>();
    if (result.kind === 'returned') {
      const failed = new Set(result.failed);
      for (const partition of new Set(records.map((record) => record.partition))) {
        const own = records.filter((record) => record.partition === partition);
        const firstFailed = own.find((record) => failed.has(record.messageId));
        const to = firstFailed?.offset ?? (own.at(-1)?.offset ?? -1) + 1;
        const from = this.topic.committedOffset(partition);
        this.log.committed(run.env.id, partition, from, to);
        this.topic.commit(partition, to);
        for (const record of own) if (record.offset < to) committed.add(record.messageId);
      }
    }
    this.mapping.end(run, records, (messageId) => !committed.has(messageId));
  }

  /** Up to `batchSize` records from the committed offsets, the partitions sharing it. */
  private fetch(partitions: readonly number[], batchSize: number): TopicRecord[] {
    const share = Math.max(1, Math.ceil(batchSize / Math.max(1, partitions.length)));
    const records: TopicRecord[] = [];
    for (const partition of partitions) {
      const room = batchSize - records.length;
      if (room <= 0) break;
      records.push(...this.topic.fetch(partition, Math.min(share, room)));
    }
    return records;
  }

  private producedOf(record: TopicRecord): ProducedRecord {
    const messageId = kafkaRecordId(this.topic.name, record.partition, record.offset);
    const produced = this.log.records.get(messageId);
    if (produced === undefined) throw new Error(`record ${messageId} was never produced by the campaign`);
    return produced;
  }
}

/** The records the consumer's answer held: none after a normal return, those its RecordsHeldError names. */
function heldBy(result: InvocationResult): ReadonlySet<string> | undefined {
  if (result.kind === 'returned') return new Set(result.failed);
  const error = result.kind === 'function-error' ? (result.error as { name?: string; held?: unknown }) : {};
  return error.name === 'RecordsHeldError' && Array.isArray(error.held)
    ? new Set(error.held as string[])
    : undefined;
}

/** A partition is read by one invocation of a poll, and an environment runs one at a time. */
function distinct(invocations: readonly KafkaInvocation[]): KafkaInvocation[] {
  const slots = new Set<number>();
  const taken = new Set<number>();
  const chosen: KafkaInvocation[] = [];
  for (const invocation of invocations) {
    const partitions = invocation.partitions.filter((partition) => !taken.has(partition));
    if (partitions.length === 0) continue;
    let env = invocation.env;
    while (slots.has(env)) env += 1;
    slots.add(env);
    for (const partition of partitions) taken.add(partition);
    chosen.push({ env, partitions });
  }
  return chosen;
}
