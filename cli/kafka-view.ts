/**
 * A quarantined Kafka record as `pq list`, `pq find`, `pq show` and the console show it: topic,
 * partition, offset, time, the key and each header value as text when they are printable UTF-8,
 * else base64 (cli/body.ts `bytesText`). Read from the envelope (core/kafka-replay.ts
 * `kafkaEvidenceOf`); where the envelope is missing, the topic, partition and offset still show,
 * from the record's ids (`topic-partition-offset`, its group `topic-partition`).
 */
import type { KafkaEvidence } from '../lambdas/core/kafka-replay';
import { kafkaEvidenceOf } from '../lambdas/core/kafka-replay';
import type { QuarantineRecord } from '../lambdas/core/quarantine-record';
import { absentAs } from '../lambdas/ports/errors';
import { type BytesText, bytesLine, bytesText } from './body';
import type { Deployment } from './deployment';

export interface KafkaRecordView {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** ISO-8601, from the record's epoch milliseconds. */
  readonly timestamp?: string;
  readonly timestampType?: string;
  /** Null: the record has no key. Undefined: not known (the envelope is missing or unreadable). */
  readonly key?: BytesText | null;
  readonly headers?: readonly { readonly name: string; readonly value: BytesText }[];
  /** Why the key and headers are not shown. */
  readonly problem?: string;
}

/** The view of a record of a Kafka source, from its envelope (undefined: missing). */
export function kafkaView(
  record: Pick<QuarantineRecord, 'messageId' | 'messageGroupId'>,
  envelope: Readonly<Record<string, unknown>> | undefined,
): KafkaRecordView | undefined {
  const evidence: KafkaEvidence | undefined =
    envelope === undefined
      ? { ok: false, problem: 'the envelope is missing from the quarantine bucket' }
      : kafkaEvidenceOf(envelope);
  if (evidence?.ok) {
    const { topic, partition, offset, timestamp, timestampType, key, headers } = evidence.record;
    return {
      topic,
      partition,
      offset,
      ...(timestamp === undefined ? {} : { timestamp: new Date(timestamp).toISOString() }),
      ...(timestampType === undefined ? {} : { timestampType }),
      key: key === undefined ? null : bytesText(Buffer.from(key, 'base64')),
      headers: headers.map(({ name, value }) => ({ name, value: bytesText(Buffer.from(value, 'base64')) })),
    };
  }
  const coordinates = kafkaCoordinates(record);
  if (coordinates === undefined) return undefined;
  return { ...coordinates, problem: evidence?.problem ?? 'the envelope holds no Kafka record' };
}

/** Topic, partition and offset from `topic-partition-offset` and its group `topic-partition`. */
export function kafkaCoordinates(
  record: Pick<QuarantineRecord, 'messageId' | 'messageGroupId'>,
): { readonly topic: string; readonly partition: number; readonly offset: number } | undefined {
  const id = /^(.+)-(\d+)-(\d+)$/.exec(record.messageId);
  if (id === null || `${id[1]}-${id[2]}` !== record.messageGroupId) return undefined;
  return { topic: id[1] as string, partition: Number(id[2]), offset: Number(id[3]) };
}

/** The key as one line: text quoted, else base64, or why it is not known. */
export function keyLine(view: KafkaRecordView): string {
  if (view.key === null) return '(none)';
  return view.key === undefined ? `(not known: ${view.problem})` : bytesLine(view.key);
}

/** `pq show`'s lines of the record: topic, partition (its order broken), offset, time and key. */
export function kafkaFields(view: KafkaRecordView, orderBroken: boolean | undefined): [string, unknown][] {
  return [
    ['Topic', view.topic],
    ['Partition', `${view.partition}${orderBroken ? ' (its order was broken: the partition moved on)' : ''}`],
    ['Offset', view.offset],
    ...(view.timestamp === undefined
      ? []
      : [
          ['Timestamp', `${view.timestamp}${view.timestampType ? ` (${view.timestampType})` : ''}`] as [
            string,
            unknown,
          ],
        ]),
    ['Key', keyLine(view)],
  ];
}

/** Records at a time whose envelopes `pq list` reads for their keys. */
const ENVELOPE_READS = 8;

/**
 * The views of records of a Kafka source, by record id, each from its envelope (one S3 read per
 * record, a few at a time); nothing for an SQS source.
 */
export async function kafkaViews(
  deployment: Deployment,
  records: readonly QuarantineRecord[],
): Promise<ReadonlyMap<string, KafkaRecordView>> {
  const views = new Map<string, KafkaRecordView>();
  if (deployment.kafka === undefined) return views;
  for (let start = 0; start < records.length; start += ENVELOPE_READS) {
    const batch = records.slice(start, start + ENVELOPE_READS);
    const envelopes = await Promise.all(
      batch.map((record) => deployment.records.readEnvelope(record.id).catch(absentAs(undefined))),
    );
    batch.forEach((record, index) => {
      const view = kafkaView(record, envelopes[index]);
      if (view !== undefined) views.set(record.id, view);
    });
  }
  return views;
}
