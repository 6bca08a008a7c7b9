/**
 * The source a local pipeline reads, as the rehearsal and the tools around it touch it: put a
 * message in, and tell how many are left. An SQS queue (sqs-source.ts) or a Kafka topic on the
 * embedded broker (kafka-source.ts); the consumer and the AWS state are the same either way.
 */
import type { QueueDepth as SqsDepth } from '../../lambdas/adapters/source-queue';

/** What is left at the source: visible, in flight (received, not settled), delayed, and all of them. */
export interface QueueDepth extends SqsDepth {
  readonly total: number;
}

/** The demo's topic on the embedded broker. */
export const LOCAL_KAFKA_TOPIC = 'orders';

export interface PipelineSource {
  readonly kind: 'sqs' | 'kafka';
  /** Puts one message in (a Kafka record into `partition`, 0 by default); returns its messageId. */
  send(body: string, partition?: number): Promise<string>;
  /** Puts up to 10 messages in at once, so one poll can take them together; ids in order. */
  sendBatch(bodies: readonly string[]): Promise<string[]>;
  depth(): Promise<QueueDepth>;
  /** What sits past the ledger: SQS's dead-letter queue; a Kafka source has none. */
  backstopDepth(): Promise<QueueDepth>;
}

export function withTotal(depth: SqsDepth): QueueDepth {
  return { ...depth, total: depth.visible + depth.inFlight + depth.delayed };
}

export const EMPTY: QueueDepth = withTotal({ visible: 0, inFlight: 0, delayed: 0 });
