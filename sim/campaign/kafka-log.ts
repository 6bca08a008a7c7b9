/**
 * What a Kafka schedule saw happen beyond the world's final state, for the Kafka invariants
 * (kafka-invariants.ts): each record produced (its partition, offset, key and exact bytes), each
 * commit and whether every record it passed had ended by then, each attempt that started while a
 * record before it in its partition had not, each invocation with its payload and the records it
 * looked at (a start write of the ledger: the consumer took it up). Whether a record has ended is
 * asked of the world as it stands at that moment: a quarantine record of its own, or its key's
 * ledger item completed or quarantined as this record (its messageId) or as the same bytes (a
 * duplicate, rule 13, acknowledged without work), or reset for the replay of a quarantine that
 * holds this record or its bytes (the replay carries it on; the record itself is a duplicate).
 * It decides nothing.
 */
import { LEDGER_STATE } from '../../contract/ledger';
import { kafkaRecordId } from '../../contract/sources';
import { bodyDigest } from '../../lambdas/core/ids';
import type { MemoryTopic, TopicRecord } from '../world/memory-topic';
import type { World } from '../world/world';
import type { MessageSpec } from './schedule';
import type { Trace } from './trace';

export interface ProducedRecord {
  readonly messageId: string;
  readonly partition: number;
  readonly offset: number;
  /** The key the consumer works it under. */
  readonly key: string;
  /** The value's exact bytes. */
  readonly bytes: Buffer;
  /** The value as the consumer's ledger digests it (its base64, as delivered). */
  readonly digest: string;
  /** As produced: the record's key (base64) and headers (values base64). */
  readonly recordKey?: string;
  readonly headers: readonly { readonly name: string; readonly value: string }[];
  readonly spec: MessageSpec;
}

export interface KafkaCommit {
  readonly seq: number;
  readonly envId: string;
  readonly partition: number;
  readonly from: number;
  readonly to: number;
  /** Records the commit passed that had neither completed nor been quarantined then. */
  readonly notEnded: readonly string[];
}

export interface KafkaInvocationLog {
  readonly seq: number;
  readonly envId: string;
  /** The payload's records, partition by partition, each partition's in offset order. */
  readonly records: readonly ProducedRecord[];
  /** The breaker stood closed as the poll found it (else the payload may be held whole, rule 7). */
  readonly breakerClosed: boolean;
  endSeq: number;
  result?: 'returned' | 'function-error' | 'crashed';
  /**
   * The records the consumer's answer left at the source (RecordsHeldError's `held`): none when it
   * returned, undefined when it crashed or failed otherwise (then every record stays).
   */
  held?: ReadonlySet<string>;
}

export class KafkaLog {
  readonly records = new Map<string, ProducedRecord>();
  readonly commits: KafkaCommit[] = [];
  /** Problems found as attempts started: a record before it in its partition had not ended. */
  readonly outOfOrder: string[] = [];
  readonly invocations: KafkaInvocationLog[] = [];
  /** Every start write the consumer made (its record taken up), by environment. */
  readonly looks: { readonly seq: number; readonly envId: string; readonly messageId: string }[] = [];

  constructor(
    private readonly world: World,
    private readonly trace: Trace,
    private readonly topic: MemoryTopic,
  ) {}

  /** A record produced to the topic, keyed as the consumer keys it. */
  produced(topicRecord: TopicRecord, key: string, spec: MessageSpec): ProducedRecord {
    const produced: ProducedRecord = {
      messageId: kafkaRecordId(this.topic.name, topicRecord.partition, topicRecord.offset),
      partition: topicRecord.partition,
      offset: topicRecord.offset,
      key,
      bytes: Buffer.from(topicRecord.value, 'base64'),
      digest: bodyDigest(topicRecord.value),
      ...(topicRecord.key === undefined ? {} : { recordKey: topicRecord.key }),
      headers: topicRecord.headers.map(({ name, value }) => ({ name, value: value.toString('base64') })),
      spec,
    };
    this.records.set(produced.messageId, produced);
    return produced;
  }

  /** A moment of the schedule (an invocation's end). */
  mark(): number {
    return this.trace.next();
  }

  /** Whether the record has completed or been quarantined, as the world stands now. */
  ended(record: ProducedRecord): boolean {
    for (const stored of this.world.quarantine.records.values())
      if (stored.messageId === record.messageId) return true;
    const item = this.world.ledger.get(record.key);
    if (item?.state !== LEDGER_STATE.completed && item?.state !== LEDGER_STATE.quarantined)
      return item?.replayOf !== undefined && this.holds(item.replayOf, record);
    return item.messageId === record.messageId || item.bodyDigest === record.digest;
  }

  /** The quarantine record `id` holds this record, or its exact bytes. */
  private holds(id: string, record: ProducedRecord): boolean {
    const stored = this.world.quarantine.records.get(id);
    if (stored === undefined) return false;
    return (
      stored.messageId === record.messageId ||
      this.world.quarantine.objects.get(stored.bodyKey)?.equals(record.bytes) === true
    );
  }

  /** The records of a partition before `offset`, in order. */
  before(partition: number, offset: number): ProducedRecord[] {
    return [...this.records.values()]
      .filter((record) => record.partition === partition && record.offset < offset)
      .sort((a, b) => a.offset - b.offset);
  }

  /** The group moved from `from` to `to` in `partition`: every record it passed must have ended. */
  committed(envId: string, partition: number, from: number, to: number): void {
    if (to <= from) return;
    const passed = [...this.records.values()].filter(
      (record) => record.partition === partition && record.offset >= from && record.offset < to,
    );
    const notEnded = passed.filter((record) => !this.ended(record)).map((record) => record.messageId);
    this.commits.push({ seq: this.trace.next(), envId, partition, from, to, notEnded });
  }

  /**
   * Taps the ledger's start writes (after the campaign's own taps, observe.ts): each call is a
   * look at its record, and each attempt that starts is checked against its partition's order.
   */
  tap(): void {
    const { ledger } = this.world;
    const start = ledger.start.bind(ledger);
    const restart = ledger.restartAfterCrash.bind(ledger);
    const looked = (envId: string, messageId: string) =>
      this.looks.push({ seq: this.trace.next(), envId, messageId });
    ledger.start = async (input) => {
      looked(input.envId, input.messageId);
      const result = await start(input);
      if (result.started) this.checkOrder(input.messageId);
      return result;
    };
    ledger.restartAfterCrash = async (input) => {
      looked(input.envId, input.messageId);
      const result = await restart(input);
      if (result.started) this.checkOrder(input.messageId);
      return result;
    };
  }

  /**
   * Only records still at the source count: one committed past was judged when it was (a replay
   * can later reset the ledger item a duplicate was acknowledged by).
   */
  private checkOrder(messageId: string): void {
    const record = this.records.get(messageId);
    if (record === undefined) return;
    const committed = this.topic.committedOffset(record.partition);
    const waiting = this.before(record.partition, record.offset).filter(
      (earlier) => earlier.offset >= committed && !this.ended(earlier),
    );
    if (waiting.length > 0)
      this.outOfOrder.push(
        `an attempt of ${messageId} started while ${waiting.map((earlier) => earlier.messageId).join(', ')}, before it in partition ${record.partition}, had neither completed nor been quarantined`,
      );
  }
}
