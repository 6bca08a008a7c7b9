/**
 * The record an operator's replay produces back to a Kafka topic (rule 4): the quarantined
 * record's key, value bytes and headers exactly, plus the replay's two headers
 * (contract/sources.ts `KAFKA_REPLAY_HEADERS`), which the consumer reads as a queue replay's
 * attributes, so the replay lands on the original's ledger item. Also how the quarantine envelope
 * keeps a Kafka record (lambdas/consumer/quarantine-step.ts writes `kafka`), read back. Pure: the
 * CLI reads the envelope and the body, the adapter (adapters/kafka-topic.ts) produces.
 */
import { KAFKA_REPLAY_HEADERS } from '../../contract/sources';
import { type Refusal, refuse } from './operator';

/** A Kafka record as its quarantine envelope keeps it (the value is the body object). */
export interface QuarantinedKafkaRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** Epoch milliseconds. */
  readonly timestamp?: number;
  readonly timestampType?: string;
  /** Base64; absent for a record without a key. */
  readonly key?: string;
  /** In order, each value base64 (a name may repeat). */
  readonly headers: readonly { readonly name: string; readonly value: string }[];
}

/** The envelope's `kafka` field: absent for an SQS message, else the record or what is wrong with it. */
export type KafkaEvidence =
  | { readonly ok: true; readonly record: QuarantinedKafkaRecord }
  | { readonly ok: false; readonly problem: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Reads the envelope's `kafka` field; undefined when it has none (an SQS message). */
export function kafkaEvidenceOf(envelope: Readonly<Record<string, unknown>>): KafkaEvidence | undefined {
  const raw = envelope.kafka;
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object') return { ok: false, problem: 'its kafka field is not an object' };
  const kafka = raw as Record<string, unknown>;
  const problems: string[] = [];
  const { topic, partition, offset, timestamp, timestampType, key, headers } = kafka;
  if (typeof topic !== 'string' || topic === '') problems.push('no topic');
  if (!isWholeNumber(partition)) problems.push('no partition');
  if (!isWholeNumber(offset)) problems.push('no offset');
  if (key !== undefined && (typeof key !== 'string' || !BASE64.test(key)))
    problems.push('a key not in base64');
  const entries = Array.isArray(headers) ? headers : undefined;
  if (entries === undefined || !entries.every(isHeader)) problems.push('headers not a list of {name, value}');
  if (problems.length > 0) return { ok: false, problem: `its kafka field has ${problems.join(', ')}` };
  return {
    ok: true,
    record: {
      topic: topic as string,
      partition: partition as number,
      offset: offset as number,
      ...(typeof timestamp === 'number' ? { timestamp } : {}),
      ...(typeof timestampType === 'string' ? { timestampType } : {}),
      ...(key === undefined ? {} : { key: key as string }),
      headers: (entries as { name: string; value: string }[]).map(({ name, value }) => ({ name, value })),
    },
  };
}

function isWholeNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isHeader(value: unknown): boolean {
  const { name, value: bytes } = (value ?? {}) as Record<string, unknown>;
  return typeof name === 'string' && typeof bytes === 'string' && BASE64.test(bytes);
}

/** What a replay produces: the exact bytes, to a topic, at a partition or where the key sends it. */
export interface KafkaReplayRecord {
  readonly topic: string;
  /** The original's partition when it goes back to its own topic; absent: the client's partitioner. */
  readonly partition?: number;
  readonly key?: Buffer;
  readonly value: Buffer;
  /** The original's headers in order, then the replay's two. */
  readonly headers: readonly (readonly [string, Buffer])[];
}

/**
 * The replay of `original` (value `value`) to `topic`: its own topic keeps its partition, so the
 * record goes back where its key went (whatever partitioner its producer used); another topic
 * lets the key decide. An earlier replay's headers are replaced, so a replay of a replay carries
 * one pair.
 */
export function kafkaReplayRecord(
  original: QuarantinedKafkaRecord,
  value: Buffer,
  marks: { readonly replayOf: string; readonly messageKey: string },
  topic: string = original.topic,
): KafkaReplayRecord {
  const replayHeaders: readonly string[] = Object.values(KAFKA_REPLAY_HEADERS);
  const kept = original.headers
    .filter(({ name }) => !replayHeaders.includes(name))
    .map(({ name, value: bytes }) => [name, Buffer.from(bytes, 'base64')] as const);
  return {
    topic,
    ...(topic === original.topic ? { partition: original.partition } : {}),
    ...(original.key === undefined ? {} : { key: Buffer.from(original.key, 'base64') }),
    value,
    headers: [
      ...kept,
      [KAFKA_REPLAY_HEADERS.replayOf, Buffer.from(marks.replayOf, 'utf8')],
      [KAFKA_REPLAY_HEADERS.messageKey, Buffer.from(marks.messageKey, 'utf8')],
    ],
  };
}

/**
 * Why the cluster would not take the replay where it goes, if it would not: the topic is not
 * there (a replay never creates one), or has no such partition. `partitions`: the topic's count
 * as the cluster reports it, undefined when it has no such topic.
 */
export function refusalByKafka(
  record: KafkaReplayRecord,
  partitions: number | undefined,
): Refusal | undefined {
  if (partitions === undefined) {
    return refuse(
      `the cluster has no topic ${record.topic} (a replay never creates one); nothing was produced`,
    );
  }
  if (record.partition !== undefined && record.partition >= partitions) {
    return refuse(
      `topic ${record.topic} has ${partitions} partition(s), no partition ${record.partition} to produce the replay to; nothing was produced`,
    );
  }
  return undefined;
}

/**
 * A topic name as Kafka accepts one: 1 to 249 of letters, digits, '.', '_' and '-', and neither
 * '.' nor '..'.
 */
export function isKafkaTopicName(name: string): boolean {
  return /^[A-Za-z0-9._-]{1,249}$/.test(name) && name !== '.' && name !== '..';
}
