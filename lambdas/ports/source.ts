/**
 * One delivered record as the consumer's orchestration sees it, whatever its source: each
 * source's adapter (lambdas/sources) maps its event into these and the records that stay back
 * into its own response. An SQS record is one as it is; a Kafka record is mapped field by field.
 */
import type { SQSMessageAttributes } from 'aws-lambda';

/** A Kafka record's own fields, as Lambda's Kafka event delivers them (lambdas/sources/kafka.ts). */
export interface KafkaRecordDetails {
  /** The topic the record was read from. */
  readonly topic: string;
  /** Its partition of the topic. */
  readonly partition: number;
  /** Its offset in the partition. */
  readonly offset: number;
  /** Epoch milliseconds. */
  readonly timestamp: number;
  /** `CREATE_TIME` (the producer's) or `LOG_APPEND_TIME` (the broker's). */
  readonly timestampType: string;
  /** The record's key, base64 as delivered; absent for a record without a key. */
  readonly key?: string;
  /** The record's value, base64 as delivered: its exact bytes. */
  readonly value: string;
  /** The headers in order (a header may repeat). */
  readonly headers: readonly KafkaHeader[];
}

/** One header of a Kafka record. */
export interface KafkaHeader {
  /** Its name. */
  readonly name: string;
  /** Its value, base64: the exact bytes. */
  readonly value: string;
}

export interface SourceRecord {
  /** What identifies this delivery's message: SQS's messageId; Kafka's `topic-partition-offset`. */
  readonly messageId: string;
  /** What the source's port acts on (SQS's receipt handle; for Kafka, the messageId). */
  readonly receiptHandle: string;
  /** The body as text: SQS's body; a Kafka record's value decoded as UTF-8. */
  readonly body: string;
  /**
   * The exact bytes of the body, base64, where the text cannot be trusted to hold them (a Kafka
   * value may be any bytes); absent: the body's UTF-8 is exact.
   */
  readonly exactBodyBase64?: string;
  /** SQS's system attributes; a Kafka record's topic, partition, offset and timestamp. */
  readonly attributes: { readonly ApproximateReceiveCount?: string };
  /** SQS's message attributes; a Kafka record's headers (as String attributes, UTF-8). */
  readonly messageAttributes: SQSMessageAttributes;
  readonly md5OfBody?: string;
  /** The source as evidence: the queue's ARN; the Kafka cluster (MSK ARN or bootstrap servers). */
  readonly eventSourceARN: string;
  /**
   * Records of one group run one at a time, in order, and one that stays holds the rest of its
   * group: an SQS FIFO message group, a Kafka topic-partition. Absent: no order to keep.
   */
  readonly orderGroup?: string;
  /** The Kafka record as delivered; absent for SQS. */
  readonly kafka?: KafkaRecordDetails;
}

/** The body as its exact bytes would be stored: base64 where it has some, else the text. */
export function exactBody(record: SourceRecord): {
  readonly body: string;
  readonly encoding: 'utf8' | 'base64';
} {
  return record.exactBodyBase64 === undefined
    ? { body: record.body, encoding: 'utf8' }
    : { body: record.exactBodyBase64, encoding: 'base64' };
}

/**
 * One kind of event source as the consumer's handler meets it (lambdas/sources): its event in,
 * the consumer's records out, and back the answer that leaves the records that stay at the
 * source, nothing else. The rules never see the event's shape.
 */
export interface EventSourcePort<Event, Response> {
  /** The event's records; those of one order group in the order the source delivered them. */
  records(event: Event): readonly SourceRecord[];
  /** The invocation's answer, given the records that stay at the source for a later delivery. */
  respond(stay: readonly SourceRecord[], context: InvocationClock): Promise<Response>;
}

/** What the answer may know of its invocation: the time left before Lambda ends it. */
export interface InvocationClock {
  getRemainingTimeInMillis(): number;
}
