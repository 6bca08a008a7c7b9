/**
 * What an operator's replay of a Kafka record needs of the cluster (cli/replay-flow.ts): how many
 * partitions a topic has, and to produce one record. adapters/kafka-topic.ts implements it with
 * the Kafka client; tests may pass their own. Every failure is a KafkaTopicError (ports/errors.ts).
 */
import type { KafkaReplayRecord } from '../core/kafka-replay';

/** Where a produced record landed. */
export interface ProducedRecord {
  readonly topic: string;
  readonly partition: number;
  /** Kafka's offsets are 64-bit: kept as text. */
  readonly offset: string;
}

export interface KafkaTopicPort {
  /** The topic's partition count; undefined when the cluster has no such topic. */
  partitions(topic: string): Promise<number | undefined>;
  /** Produces the record, acknowledged by every in-sync replica. */
  produce(record: KafkaReplayRecord): Promise<ProducedRecord>;
  /** Closes the connection, if one was opened; the next call opens another. */
  close(): Promise<void>;
}
