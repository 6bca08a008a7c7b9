/**
 * The event sources a consumer can be wired to, and what crosses a process boundary of each:
 * the construct sets the kind (contract/env.ts `PQ_SOURCE_KIND`), the consumer picks the adapter
 * of that kind (lambdas/sources), and the local runners build the events the adapters read.
 */
export const SOURCE_KIND = {
  /** An SQS queue (standard or FIFO) through Lambda's SQS event source mapping. */
  sqs: 'sqs',
  /** A Kafka topic (Amazon MSK or self-managed) through Lambda's Kafka event source mapping. */
  kafka: 'kafka',
} as const;

export type SourceKind = (typeof SOURCE_KIND)[keyof typeof SOURCE_KIND];

/** Lambda's `eventSource` of a Kafka event, by kind of cluster. */
export const KAFKA_EVENT_SOURCE = {
  msk: 'aws:kafka',
  selfManaged: 'SelfManagedKafka',
} as const;

/**
 * A Kafka record's id (`topic-partition-offset`): the ledger's default message key, so an attempt
 * record is keyed by topic, partition and offset.
 */
export function kafkaRecordId(topic: string, partition: number, offset: number | string): string {
  return `${topic}-${partition}-${offset}`;
}

/**
 * A Kafka pipeline's name where an SQS one has its queue's ARN: the metrics' `Queue` dimension and
 * the consumer's `sourceQueueArn` (lib/kafka-source.ts and lambdas/core/config.ts both use it).
 */
export function kafkaSourceName(cluster: string, topic: string): string {
  return `${cluster}/${topic}`;
}

/** The ordering group of a Kafka record: its topic-partition, as the event groups records. */
export function kafkaPartitionKey(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

/**
 * Where a Kafka partial batch response (provisioned mode with `ReportBatchItemFailures`) tells the
 * mapping to resume a topic-partition: at `offset`, the partition's first record that stays.
 * Lambda's format, as AWS's Powertools batch utility writes it.
 */
export interface KafkaItemIdentifier {
  /** `topic-partition`, as the event keys its records (`kafkaPartitionKey`). */
  readonly partition: string;
  readonly offset: number;
}

/**
 * The record a Kafka item identifier names (`topic-partition-offset`), or undefined when it is not
 * one (Lambda then fails the whole batch); whether the batch holds it is the reader's to check.
 */
export function kafkaItemRecordId(identifier: unknown): string | undefined {
  const { partition, offset } = (identifier ?? {}) as Partial<Record<keyof KafkaItemIdentifier, unknown>>;
  return typeof partition === 'string' && Number.isSafeInteger(offset) && (offset as number) >= 0
    ? `${partition}-${offset}`
    : undefined;
}

/** A Kafka function's answer with partial batch responses on: one identifier per partition held. */
export interface KafkaBatchResponse {
  readonly batchItemFailures: readonly { readonly itemIdentifier: KafkaItemIdentifier }[];
}

/**
 * The headers an operator's replay adds to the record it produces back to its topic: which
 * quarantine record it came from and the ledger key it continues (as the SQS message attributes of
 * contract/message-attributes.ts do for a queue).
 */
export const KAFKA_REPLAY_HEADERS = {
  replayOf: 'pq-replay-of',
  messageKey: 'pq-message-key',
} as const;
