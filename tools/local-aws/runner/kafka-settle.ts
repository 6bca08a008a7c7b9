/**
 * Reads a handler's normal return the way Lambda's Kafka event source mapping reads a partial
 * batch response. The identifiers are validated as for SQS (batch-response.ts: an empty, missing or
 * unknown `itemIdentifier` fails the whole batch), but a partition is a log, not a set of
 * messages: nothing after a failed record can be committed without committing the failed one too.
 * So the partition commits up to (not including) the lowest failed offset, and every record from
 * there on comes again, those that succeeded after it included.
 */
import { settleBatch } from './batch-response';

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

/** `records` are one partition's batch, in offset order. */
export function settleKafkaBatch(records: readonly SettledRecord[], response: unknown): KafkaSettlement {
  const last = records.at(-1);
  if (!last) throw new Error('a batch has at least one record');
  const settlement = settleBatch(
    records.map((record) => record.id),
    response,
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
