/**
 * Turns fetched Kafka records into the event Lambda's Kafka event source mapping delivers, field
 * by field, so handler code cannot tell the runner from the real mapping:
 * - records grouped under `topic-partition` (the runner sends one partition per invocation);
 * - `offset` and `timestamp` as numbers, `timestampType` CREATE_TIME or LOG_APPEND_TIME;
 * - `key` and `value` as base64; a record without a key (null) has no `key` field, and a null
 *   value (a tombstone) has no `value` field;
 * - `headers` as a list of one-entry objects, in the record's order (a name may repeat), each
 *   value as an array of SIGNED bytes (-128..127): Lambda serialises Java's byte[], so 0xff
 *   arrives as -1 (powertools-lambda-python#6862, aws-lambda-go#506, aws-lambda-dotnet#1476).
 *   `Buffer.from(values)` gives the bytes back, as Node.js keeps the low 8 bits of each number.
 */
import type { MSKEvent, MSKRecord, SelfManagedKafkaEvent, SelfManagedKafkaRecord } from 'aws-lambda';
import type { KafkaEventShape } from './kafka-types';

// Lambda's own names, which contract/sources.ts mirrors for the consumer. They are spelled here
// again because the local AWS imports nothing of the project (test/unit/architecture.test.ts);
// test/integration/kafka-runner.test.ts holds the two spellings equal.

/** Lambda's `eventSource` of a Kafka event, by kind of cluster (contract/sources.ts KAFKA_EVENT_SOURCE). */
export const KAFKA_EVENT_SOURCE = { msk: 'aws:kafka', selfManaged: 'SelfManagedKafka' } as const;

/** A record's `itemIdentifier` in a partial batch response (contract/sources.ts kafkaRecordId). */
export function kafkaRecordId(topic: string, partition: number, offset: number | bigint): string {
  return `${topic}-${partition}-${offset}`;
}

/** The key of a partition's records in the event (contract/sources.ts kafkaPartitionKey). */
export function kafkaPartitionKey(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

/** A record as the broker returned it, before it becomes JSON. */
export interface FetchedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  /** Milliseconds since the epoch: the producer's (CREATE_TIME) or the broker's (LOG_APPEND_TIME). */
  readonly timestamp: bigint;
  readonly timestampType: 'CREATE_TIME' | 'LOG_APPEND_TIME';
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  /** In the record's order; Kafka allows a null value (a null name is not valid, but read as ''). */
  readonly headers: readonly (readonly [Buffer | null, Buffer | null])[];
}

export interface KafkaEventSource {
  readonly shape: KafkaEventShape;
  /** Comma-separated, as Lambda gives them. */
  readonly bootstrapServers: string;
}

export type KafkaEvent = SelfManagedKafkaEvent | MSKEvent;

/** The event of one invocation; every record must be of the same topic-partition. */
export function buildKafkaEvent(records: readonly FetchedRecord[], source: KafkaEventSource): KafkaEvent {
  const [first] = records;
  if (!first) throw new Error('a Kafka event needs at least one record');
  const key = kafkaPartitionKey(first.topic, first.partition);
  const converted = records.map((record) => {
    if (kafkaPartitionKey(record.topic, record.partition) !== key) {
      throw new Error(`one invocation, one partition: ${key} and ${record.topic}-${record.partition}`);
    }
    return toLambdaRecord(record);
  });
  if (source.shape.kind === 'msk') {
    return {
      eventSource: KAFKA_EVENT_SOURCE.msk,
      eventSourceArn: source.shape.clusterArn,
      bootstrapServers: source.bootstrapServers,
      records: { [key]: converted },
    };
  }
  return {
    eventSource: KAFKA_EVENT_SOURCE.selfManaged,
    bootstrapServers: source.bootstrapServers,
    records: { [key]: converted },
  };
}

/**
 * The @types/aws-lambda record types make `key` and `value` required strings; Lambda leaves them
 * out when they are null, so the record is built as a plain object and the cast states that fact.
 */
function toLambdaRecord(record: FetchedRecord): SelfManagedKafkaRecord & MSKRecord {
  return {
    topic: record.topic,
    partition: record.partition,
    offset: Number(record.offset),
    timestamp: Number(record.timestamp),
    timestampType: record.timestampType,
    ...(record.key === null ? {} : { key: record.key.toString('base64') }),
    ...(record.value === null ? {} : { value: record.value.toString('base64') }),
    headers: record.headers.map(([name, value]) => ({
      [name?.toString('utf8') ?? '']: signedBytes(value ?? Buffer.alloc(0)),
    })),
  } as SelfManagedKafkaRecord & MSKRecord;
}

/** Java's byte: 0..127 as they are, 128..255 as -128..-1. */
export function signedBytes(bytes: Uint8Array): number[] {
  return Array.from(new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}
