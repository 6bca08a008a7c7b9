/**
 * Lambda's Kafka event (Amazon MSK or self-managed), as the consumer reads it. Records come
 * grouped by topic-partition, each partition's in offset order; each becomes a consumer record
 * keyed `topic-partition-offset` (the ledger's default key, Lambda's own item identifier) whose
 * order group is its topic-partition, so the batch runs a partition's records one at a time, in
 * order, and one that stays holds the rest of its partition (lambdas/consumer/batch.ts runFifo).
 *
 * A Kafka mapping commits offsets, not messages: there is no visibility to change and nothing to
 * delete early. So a batch with a record that stays fails as a whole once it has run what it can
 * (`RecordsHeldError`): the mapping delivers it again from its first offset, whatever its retry
 * settings or response types, and the records before it that finished are acknowledged by the
 * ledger without work (rule 13). A mapping that reads partial batch responses (provisioned mode,
 * `partialBatchResponse`) is answered instead where each held partition resumes: its first record
 * that stays; the payload's other partitions are committed. A hand-back's delay (a transient
 * retry's backoff, a pause's cool-down) is waited out in the invocation, as far as its time
 * allows, before either answer: the partition waits as an SQS message would under its visibility
 * timeout.
 */
import type { MSKEvent, SelfManagedKafkaEvent, SQSMessageAttributes } from 'aws-lambda';
import {
  KAFKA_EVENT_SOURCE,
  type KafkaBatchResponse,
  kafkaPartitionKey,
  kafkaRecordId,
} from '../../contract/sources';
import type { SourceQueuePort } from '../ports/consumer-ports';
import type { EventSourcePort, InvocationClock, KafkaRecordDetails, SourceRecord } from '../ports/source';
import { SourceEventError } from './errors';

export type KafkaEvent = MSKEvent | SelfManagedKafkaEvent;
type DeliveredKafkaRecord = MSKEvent['records'][string][number];

/** The batch ran what it could; these records stay, and the mapping delivers them again. */
export class RecordsHeldError extends Error {
  override readonly name = 'RecordsHeldError';
  constructor(readonly held: readonly string[]) {
    super(
      `${held.length} record(s) stay at the source (from ${firstOfEachPartition(held).join(', ')}): ` +
        'the batch fails so that the Kafka mapping delivers them again from there; finished records ' +
        'before them are acknowledged without work',
    );
  }
}

export interface KafkaSourceOptions {
  /** The cluster as evidence where the event names none (self-managed): bootstrap servers. */
  readonly cluster: string;
  /** Time kept back from a hand-back's wait, so the failure is answered before Lambda's deadline. */
  readonly marginMs: number;
  readonly sleep: (ms: number) => Promise<void>;
  /**
   * The mapping reads partial batch responses (ReportBatchItemFailures, provisioned mode): held
   * partitions are answered, not failed. @default false
   */
  readonly partialBatchResponse?: boolean;
}

/** The Kafka source's two faces: the event adapter, and the port the batch hands records back through. */
export function kafkaSource(options: KafkaSourceOptions): {
  readonly port: EventSourcePort<KafkaEvent, KafkaBatchResponse>;
  readonly queue: SourceQueuePort;
} {
  // One invocation at a time per execution environment: the longest wait a hand-back asked for.
  let holdSeconds = 0;
  const queue: SourceQueuePort = {
    delay: async (_record, seconds) => {
      holdSeconds = Math.max(holdSeconds, seconds);
    },
    // The mapping commits what the invocation acknowledges when it returns; nothing to do sooner.
    acknowledge: async () => undefined,
  };
  const port: EventSourcePort<KafkaEvent, KafkaBatchResponse> = {
    records: (event) => {
      holdSeconds = 0;
      return kafkaRecords(event, options.cluster);
    },
    respond: async (stay, context) => {
      const waitMs = heldWaitMs(holdSeconds, context, options.marginMs);
      holdSeconds = 0;
      if (stay.length === 0) return { batchItemFailures: [] };
      if (waitMs > 0) await options.sleep(waitMs);
      if (options.partialBatchResponse === true) return { batchItemFailures: resumePoints(stay) };
      throw new RecordsHeldError(stay.map(({ messageId }) => messageId));
    },
  };
  return { port, queue };
}

function heldWaitMs(holdSeconds: number, context: InvocationClock, marginMs: number): number {
  return Math.max(0, Math.min(holdSeconds * 1000, context.getRemainingTimeInMillis() - marginMs));
}

/** The event's records, partition by partition, each partition's in offset order. */
export function kafkaRecords(event: KafkaEvent, cluster: string): SourceRecord[] {
  if (!isKafkaEvent(event)) {
    throw new SourceEventError(
      'kafka',
      'an event without Kafka records (eventSource aws:kafka or SelfManagedKafka)',
    );
  }
  const source = event.eventSource === KAFKA_EVENT_SOURCE.msk ? event.eventSourceArn : cluster;
  return Object.values(event.records).flatMap((partition) =>
    [...partition].sort((a, b) => a.offset - b.offset).map((record) => sourceRecord(record, source)),
  );
}

function sourceRecord(record: DeliveredKafkaRecord, eventSourceARN: string): SourceRecord {
  const id = kafkaRecordId(record.topic, record.partition, record.offset);
  const kafka = details(record);
  const attributes: SourceRecord['attributes'] & Record<string, string> = {
    topic: record.topic,
    partition: String(record.partition),
    offset: String(record.offset),
    timestamp: String(record.timestamp),
    timestampType: record.timestampType,
    ...(kafka.key === undefined ? {} : { key: kafka.key }),
  };
  return {
    messageId: id,
    receiptHandle: id,
    body: Buffer.from(kafka.value, 'base64').toString('utf8'),
    exactBodyBase64: kafka.value,
    attributes,
    messageAttributes: headerAttributes(kafka.headers),
    eventSourceARN,
    orderGroup: kafkaPartitionKey(record.topic, record.partition),
    kafka,
  };
}

function details(record: DeliveredKafkaRecord): KafkaRecordDetails {
  // A record without a key, or a tombstone without a value, may come without the field.
  const key = record.key as string | null | undefined;
  const value = record.value as string | null | undefined;
  return {
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    timestamp: record.timestamp,
    timestampType: record.timestampType,
    ...(key === undefined || key === null ? {} : { key }),
    value: value ?? '',
    headers: (record.headers ?? []).flatMap((header) =>
      Object.entries(header).map(([name, bytes]) => ({ name, value: Buffer.from(bytes).toString('base64') })),
    ),
  };
}

/**
 * Headers as String attributes (UTF-8), so the replay headers (pq-message-key, pq-replay-of) are
 * read as a queue's replay attributes are; a repeated header keeps its last value here and every
 * value in `kafka.headers`.
 */
function headerAttributes(headers: KafkaRecordDetails['headers']): SQSMessageAttributes {
  return Object.fromEntries(
    headers.map(({ name, value }) => [
      name,
      { stringValue: Buffer.from(value, 'base64').toString('utf8'), dataType: 'String' },
    ]),
  );
}

function isKafkaEvent(event: unknown): event is KafkaEvent {
  const candidate = event as Partial<KafkaEvent> | undefined;
  return (
    (candidate?.eventSource === KAFKA_EVENT_SOURCE.msk ||
      candidate?.eventSource === KAFKA_EVENT_SOURCE.selfManaged) &&
    typeof candidate.records === 'object' &&
    candidate.records !== null
  );
}

/** Where each partition with a record that stays resumes: its first such record (offset order). */
function resumePoints(stay: readonly SourceRecord[]): KafkaBatchResponse['batchItemFailures'] {
  const first = new Map<string, number>();
  for (const record of stay) {
    const { topic, partition, offset } = kafkaDetailsOf(record);
    const key = kafkaPartitionKey(topic, partition);
    first.set(key, Math.min(offset, first.get(key) ?? offset));
  }
  return [...first].map(([partition, offset]) => ({ itemIdentifier: { partition, offset } }));
}

function kafkaDetailsOf(record: SourceRecord): KafkaRecordDetails {
  if (record.kafka === undefined) throw new Error(`record ${record.messageId} is no Kafka record`);
  return record.kafka;
}

/** `topic-partition-offset` ids -> the first of each partition, for the error's message. */
function firstOfEachPartition(ids: readonly string[]): string[] {
  const first = new Map<string, string>();
  for (const id of ids) {
    const partition = id.slice(0, id.lastIndexOf('-'));
    if (!first.has(partition)) first.set(partition, id);
  }
  return [...first.values()];
}
