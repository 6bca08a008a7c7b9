/**
 * A replay of a Kafka record (rule 4), the Kafka side of replay-flow.ts: the record's key, value
 * bytes and headers exactly, plus the replay's two headers (core/kafka-replay.ts), produced to its
 * own topic and partition or to a replay topic the operator names. Everything is read and checked
 * first, as for SQS: the envelope's record, the body, where the brokers are, and that the topic
 * (and partition) exist; a cluster that cannot be reached fails here, before anything changes.
 */
import { kafkaRecordId } from '../contract/sources';
import {
  isKafkaTopicName,
  type KafkaReplayRecord,
  kafkaEvidenceOf,
  kafkaReplayRecord,
  refusalByKafka,
} from '../lambdas/core/kafka-replay';
import type { QuarantineRecord } from '../lambdas/core/quarantine-record';
import { replayKeyOf } from '../lambdas/core/replay-message';
import { type BytesText, bytesLine, bytesText } from './body';
import type { Deployment, KafkaSource } from './deployment';
import { UsageError } from './errors';

/** The replay command's option: produce to this topic instead of the record's own. */
export const REPLAY_TOPIC_OPTION = 'replay-topic';

/** What a Kafka replay produces. */
export interface KafkaReplayMessage {
  readonly kind: 'kafka';
  readonly record: KafkaReplayRecord;
}

/** `--replay-topic`, checked before anything runs: a topic name, and a Kafka consumer's only. */
export function replayTopicOption(deployment: Deployment, given: string | undefined): string | undefined {
  if (given === undefined) return undefined;
  if (deployment.kafka === undefined) {
    throw new UsageError(`--${REPLAY_TOPIC_OPTION} is for a Kafka consumer; this one reads an SQS queue`);
  }
  if (!isKafkaTopicName(given)) {
    throw new UsageError(
      `--${REPLAY_TOPIC_OPTION} takes a Kafka topic name (1 to 249 of letters, digits, '.', '_', '-'; given ${given})`,
    );
  }
  return given;
}

/** The record a replay of `record` would produce, or why it cannot; throws where the cluster cannot be asked. */
export async function kafkaReplayMessage(
  kafka: KafkaSource,
  deployment: Deployment,
  record: QuarantineRecord,
  replayTopic: string | undefined,
): Promise<KafkaReplayMessage | { readonly refused: string }> {
  // First: where the brokers are (a UsageError when the deployment does not say).
  const topics = kafka.topics();
  const evidence = kafkaEvidenceOf(await deployment.records.readEnvelope(record.id));
  if (evidence === undefined || !evidence.ok) {
    const why =
      evidence === undefined ? 'its envelope holds no Kafka record' : `its envelope: ${evidence.problem}`;
    return { refused: `${why}, so its key and headers are not known; nothing was produced` };
  }
  const value = await deployment.records.readBody(record.id);
  const produced = kafkaReplayRecord(
    evidence.record,
    value,
    { replayOf: record.id, messageKey: replayKeyOf(record) },
    replayTopic,
  );
  const refusal = refusalByKafka(produced, await topics.partitions(produced.topic));
  return refusal === undefined ? { kind: 'kafka', record: produced } : { refused: refusal.reason };
}

/** Produces the replay; its id is the new record's `topic-partition-offset`. */
export async function produceReplay(deployment: Deployment, message: KafkaReplayMessage): Promise<string> {
  if (deployment.kafka === undefined)
    throw new Error('a Kafka replay of a consumer that reads no Kafka topic');
  const landed = await deployment.kafka.topics().produce(message.record);
  return kafkaRecordId(landed.topic, landed.partition, landed.offset);
}

/** What `--dry-run` says a replay would produce (its JSON). */
export interface KafkaProduceSummary {
  readonly topic: string;
  /** The original's partition, or `by key` (the client's partitioner) to another topic. */
  readonly partition: number | 'by key';
  readonly key: BytesText | null;
  readonly valueBytes: number;
  readonly headers: readonly { readonly name: string; readonly value: BytesText }[];
}

export function produceSummary({ record }: KafkaReplayMessage): KafkaProduceSummary {
  return {
    topic: record.topic,
    partition: record.partition ?? 'by key',
    key: record.key === undefined ? null : bytesText(record.key),
    valueBytes: record.value.length,
    headers: record.headers.map(([name, value]) => ({ name, value: bytesText(value) })),
  };
}

/** The dry run's line: where, which key, how big, which headers. */
export function describeProduce(summary: KafkaProduceSummary): string {
  const where =
    summary.partition === 'by key'
      ? `topic ${summary.topic} (partition by key)`
      : `topic ${summary.topic} partition ${summary.partition}`;
  const key = summary.key === null ? 'no key' : `key ${bytesLine(summary.key)}`;
  const names = summary.headers.map(({ name }) => name).join(', ');
  return `would produce to ${where}: ${key}, ${summary.valueBytes}-byte value, headers ${names}`;
}
