/**
 * Reads a handler's normal return the way Lambda's Kafka event source mapping does. Without
 * ReportBatchItemFailures (on-demand mode) the answer is not read: the function succeeded, the
 * batch is committed. With it (provisioned mode), each `itemIdentifier` names a topic-partition and
 * the offset to resume it from, `{ partition: "topic-N", offset }`; one that is malformed or names
 * no record of the batch fails the whole batch, as for SQS (batch-response.ts). A partition is a
 * log, not a set of messages: it commits up to (not including) the lowest offset named, and every
 * record from there on comes again, those that succeeded after it included.
 */
import { type IdentifierReader, listedIdentifiers, settleBatch } from './batch-response';

/** Lambda's Kafka item identifier -> the record it names (`topic-partition-offset`, kafka-event.ts). */
export const kafkaIdentifier: IdentifierReader = (identifier) => {
  const { partition, offset } = (identifier ?? {}) as { partition?: unknown; offset?: unknown };
  return typeof partition === 'string' && Number.isSafeInteger(offset) && (offset as number) >= 0
    ? `${partition}-${offset}`
    : undefined;
};

/** The records the answer names, for reporting. */
export function listedKafkaIdentifiers(response: unknown): string[] {
  return listedIdentifiers(response, kafkaIdentifier);
}

export interface SettledRecord {
  /** `topic-partition-offset`. */
  readonly id: string;
  readonly offset: bigint;
}

export type KafkaSettlement =
  | {
      readonly kind: 'settled';
      /** The partition's new committed offset: the next record to read. */
      readonly commitTo: bigint;
      readonly committed: readonly string[];
      /** From the lowest failed offset on; empty when every record succeeded. */
      readonly redelivered: readonly string[];
    }
  | { readonly kind: 'whole-batch-failed'; readonly reason: string };

/**
 * `records` are one partition's batch, in offset order; `readsItemFailures`: the mapping's
 * FunctionResponseTypes hold ReportBatchItemFailures.
 */
export function settleKafkaBatch(
  records: readonly SettledRecord[],
  response: unknown,
  readsItemFailures: boolean,
): KafkaSettlement {
  const last = records.at(-1);
  if (!last) throw new Error('a batch has at least one record');
  const settlement = settleBatch(
    records.map((record) => record.id),
    readsItemFailures ? response : undefined,
    kafkaIdentifier,
  );
  if (settlement.kind === 'whole-batch-failed') return settlement;
  const failed = new Set(settlement.failed);
  const firstFailed = records.find((record) => failed.has(record.id));
  const commitTo = firstFailed ? firstFailed.offset : last.offset + 1n;
  return {
    kind: 'settled',
    commitTo,
    committed: records.filter((record) => record.offset < commitTo).map((record) => record.id),
    redelivered: records.filter((record) => record.offset >= commitTo).map((record) => record.id),
  };
}
