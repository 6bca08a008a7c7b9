/**
 * A Kafka cluster as an operator's replay uses it (ports/kafka-topic.ts): a topic's partition
 * count, and one record produced. Built on the Kafka client `@platformatic/kafka` (pure
 * JavaScript), loaded on first use, so nothing else the CLI does loads it; one connection per
 * command, closed by it. Plain connections only (PLAINTEXT): no TLS, SASL or MSK IAM
 * authentication. Every client failure leaves as a KafkaTopicError naming the cluster and what
 * was asked, with the broker's error codes (MESSAGE_TOO_LARGE, TOPIC_AUTHORIZATION_FAILED...).
 */
import type { Producer } from '@platformatic/kafka';
import type { KafkaReplayRecord } from '../core/kafka-replay';
import { KafkaTopicError } from '../ports/errors';
import type { KafkaTopicPort, ProducedRecord } from '../ports/kafka-topic';

export interface KafkaTopicsOptions {
  /** `host:port` of one or more brokers. */
  readonly bootstrapBrokers: readonly string[];
  /** @default 'pq-replay' */
  readonly clientId?: string;
  /** Per connection attempt. @default 5000 */
  readonly connectTimeoutMs?: number;
  /** Retries of a failed request (a broker that cannot be reached, a leader moving). @default 2 */
  readonly retries?: number;
}

/** Kafka's answer when a metadata request names a topic the cluster does not have. */
const UNKNOWN_TOPIC = /^Unknown topic /;

export class KafkaTopics implements KafkaTopicPort {
  private producer: Promise<Producer> | undefined;

  constructor(private readonly options: KafkaTopicsOptions) {}

  async partitions(topic: string): Promise<number | undefined> {
    const producer = await this.connection();
    try {
      const metadata = await producer.metadata({ topics: [topic], forceUpdate: true });
      return metadata.topics.get(topic)?.partitionsCount;
    } catch (error) {
      if (isUnknownTopic(error)) return undefined;
      throw this.failure(`metadata of topic ${topic}`, error);
    }
  }

  /**
   * Idempotent (the client's own retries cannot write it twice) and acknowledged by every in-sync
   * replica; never creates the topic. Headers keep their order and repeated names.
   */
  async produce(record: KafkaReplayRecord): Promise<ProducedRecord> {
    const producer = await this.connection();
    try {
      const result = await producer.send({
        messages: [
          {
            topic: record.topic,
            ...(record.partition === undefined ? {} : { partition: record.partition }),
            ...(record.key === undefined ? {} : { key: record.key }),
            value: record.value,
            // Each name its own Buffer: a Map keeps a repeated name as two entries.
            headers: new Map(record.headers.map(([name, value]) => [Buffer.from(name, 'utf8'), value])),
          },
        ],
      });
      const [landed] = result.offsets ?? [];
      if (landed === undefined) throw new Error('the cluster acknowledged no offset');
      return { topic: landed.topic, partition: landed.partition, offset: String(landed.offset) };
    } catch (error) {
      throw this.failure(`produce to topic ${record.topic}`, error);
    }
  }

  async close(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    if (producer === undefined) return;
    await (await producer.catch(() => undefined))?.close().catch(() => undefined);
  }

  private connection(): Promise<Producer> {
    if (!clientSupports(process.versions.node)) {
      throw new KafkaTopicError(
        `the Kafka client needs Node.js 22.22, 24.6 or newer (this is ${process.versions.node}): nothing was produced`,
      );
    }
    this.producer ??= import('@platformatic/kafka').then(
      ({ Producer: KafkaProducer }) =>
        new KafkaProducer({
          clientId: this.options.clientId ?? 'pq-replay',
          bootstrapBrokers: [...this.options.bootstrapBrokers],
          connectTimeout: this.options.connectTimeoutMs ?? 5_000,
          retries: this.options.retries ?? 2,
          retryDelay: 500,
          idempotent: true,
          acks: -1,
          autocreateTopics: false,
        }),
    );
    return this.producer;
  }

  private failure(what: string, error: unknown): KafkaTopicError {
    return new KafkaTopicError(
      `Kafka cluster ${this.options.bootstrapBrokers.join(',')}: ${what} failed: ${describeKafkaError(error)}`,
      { cause: error },
    );
  }
}

/** `@platformatic/kafka`'s engines: >= 22.22 or >= 24.6. */
export function clientSupports(nodeVersion: string): boolean {
  const [major = 0, minor = 0] = nodeVersion.split('.').map(Number);
  return major > 24 || (major === 24 && minor >= 6) || major === 23 || (major === 22 && minor >= 22);
}

function isUnknownTopic(error: unknown): boolean {
  return error instanceof Error && UNKNOWN_TOPIC.test(error.message);
}

/**
 * The client's error with what its nested errors say (it wraps each retry and each broker's
 * answer): the broker's code and message where there is one, each distinct one once.
 */
export function describeKafkaError(error: unknown): string {
  const top = error instanceof Error ? error.message.replace(/\.$/, '') : String(error);
  const details = [...new Set(leafMessages(error))].filter((detail) => detail !== top);
  return details.length === 0 ? top : `${top}: ${details.join('; ')}`;
}

function leafMessages(error: unknown): string[] {
  if (!(error instanceof Error)) return [String(error)];
  const nested = (error as { errors?: unknown }).errors;
  if (Array.isArray(nested) && nested.length > 0) return nested.flatMap(leafMessages);
  const { apiId, serverErrorMessage } = error as { apiId?: unknown; serverErrorMessage?: unknown };
  const message = error.message.replace(/\.$/, '');
  if (typeof apiId !== 'string') return [message];
  return [`${apiId} (${typeof serverErrorMessage === 'string' ? serverErrorMessage : message})`];
}
