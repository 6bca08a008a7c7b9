/**
 * A Kafka cluster as an operator's replay uses it (ports/kafka-topic.ts): a topic's partition
 * count, and one record produced. Built on the Kafka client `@platformatic/kafka` (pure
 * JavaScript), loaded on first use, so nothing else the CLI does loads it; one connection per
 * command, closed by it. It connects as `connection` says (ports/kafka-access.ts): TLS trusting
 * Node.js's CAs, SASL/PLAIN, SCRAM or OAUTHBEARER (MSK IAM), or neither. Every client failure
 * leaves as a KafkaTopicError naming the cluster and what was asked, with the broker's error codes
 * (MESSAGE_TOO_LARGE, TOPIC_AUTHORIZATION_FAILED, SASL_AUTHENTICATION_FAILED...).
 */
import { isIP } from 'node:net';
import type { ConnectionOptions, Producer } from '@platformatic/kafka';
import type { KafkaReplayRecord } from '../core/kafka-replay';
import { KafkaTopicError } from '../ports/errors';
import type { KafkaConnection } from '../ports/kafka-access';
import type { KafkaTopicPort, ProducedRecord } from '../ports/kafka-topic';

export interface KafkaTopicsOptions {
  /** The cluster as the consumer names it (PQ_KAFKA_CLUSTER): what every failure names. */
  readonly cluster: string;
  /**
   * Where and how to connect, found on first use (the consumer's mapping, its secret, an MSK
   * cluster's brokers); it fails with a KafkaTopicError of its own.
   */
  readonly connection: () => Promise<KafkaConnection>;
  /** @default 'pq-replay' */
  readonly clientId?: string;
  /** Per connection attempt. @default 5000 */
  readonly connectTimeoutMs?: number;
  /** Retries of a failed request (a broker that cannot be reached, a leader moving). @default 2 */
  readonly retries?: number;
}

/** Kafka's answer when a metadata request names a topic the cluster does not have. */
const UNKNOWN_TOPIC = /^Unknown topic /;
/** The client's error for a refused SASL handshake or authentication. */
const AUTHENTICATION_FAILED = 'PLT_KFK_AUTHENTICATION';
/** Node.js's codes for a broker certificate no trusted CA signed. */
const UNTRUSTED_CERTIFICATE = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_UNTRUSTED',
]);

export class KafkaTopics implements KafkaTopicPort {
  private producer: Promise<Producer> | undefined;
  /** The connection the producer was made with, once it is found: failures say how it authenticated. */
  private connected: KafkaConnection | undefined;

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
    this.producer ??= Promise.all([import('@platformatic/kafka'), this.options.connection()]).then(
      ([{ Producer: KafkaProducer }, connection]) => {
        this.connected = connection;
        return new KafkaProducer({
          clientId: this.options.clientId ?? 'pq-replay',
          bootstrapBrokers: [...connection.brokers],
          ...securityOptions(connection),
          connectTimeout: this.options.connectTimeoutMs ?? 5_000,
          // More than 1: an idempotent producer would otherwise retry for ever.
          retries: this.options.retries ?? 2,
          retryDelay: 500,
          idempotent: true,
          acks: -1,
          autocreateTopics: false,
        });
      },
    );
    return this.producer;
  }

  private failure(what: string, error: unknown): KafkaTopicError {
    return new KafkaTopicError(
      `Kafka cluster ${this.options.cluster}: ${what} failed: ${failureHint(error, this.connected)}${describeKafkaError(error)}`,
      { cause: error },
    );
  }
}

/**
 * The client's TLS and SASL options: TLS with Node.js's CAs (NODE_EXTRA_CA_CERTS adds others), and
 * SNI for brokers named by host (Node.js refuses an IP address as a server name).
 */
export function securityOptions(
  connection: KafkaConnection,
): Pick<ConnectionOptions, 'tls' | 'tlsServerName' | 'sasl'> {
  const { tls, sasl, brokers } = connection;
  const options: Pick<ConnectionOptions, 'tls' | 'tlsServerName' | 'sasl'> = {};
  if (tls) {
    options.tls = {};
    options.tlsServerName = brokers.every((broker) => isIP(hostOf(broker)) === 0);
  }
  if (sasl?.mechanism === 'OAUTHBEARER') options.sasl = { mechanism: sasl.mechanism, token: sasl.token };
  else if (sasl !== undefined) {
    options.sasl = { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password };
  }
  return options;
}

/** `host` of `host:port`, brackets of an IPv6 address dropped. */
function hostOf(broker: string): string {
  return broker.slice(0, broker.lastIndexOf(':')).replace(/^\[(.*)\]$/, '$1');
}

/** What a failure of these kinds means to an operator: the credentials were refused, or the CA is unknown. */
function failureHint(error: unknown, connection: KafkaConnection | undefined): string {
  if (someError(error, (one) => (one as { code?: unknown }).code === AUTHENTICATION_FAILED)) {
    const sasl = connection?.sasl;
    const as =
      sasl === undefined
        ? ''
        : ` (SASL/${sasl.mechanism}${'username' in sasl ? ` as ${sasl.username}` : ''})`;
    return `authentication failed${as}: `;
  }
  if (someError(error, (one) => UNTRUSTED_CERTIFICATE.has(String((one as { code?: unknown }).code)))) {
    return "the brokers' TLS certificate is not signed by a CA Node.js trusts (NODE_EXTRA_CA_CERTS=FILE adds the CAs of a PEM file): ";
  }
  return '';
}

/** Whether `error`, its nested errors or their causes hold one that `matches`. */
function someError(error: unknown, matches: (error: Error) => boolean): boolean {
  if (!(error instanceof Error)) return false;
  return (
    matches(error) ||
    nestedErrors(error).some((one) => someError(one, matches)) ||
    someError(error.cause, matches)
  );
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
 * answer) and what caused them (a refused authentication, a TLS error): the broker's code and
 * message where there is one, each distinct one once.
 */
export function describeKafkaError(error: unknown): string {
  const top = error instanceof Error ? trimmed(error) : String(error);
  const details = [...new Set(innerMessages(error))];
  return details.length === 0 ? top : `${top}: ${details.join('; ')}`;
}

/** What an error's nested errors say, each in place of its wrapper; else what its cause says. */
function innerMessages(error: unknown): string[] {
  if (!(error instanceof Error)) return [];
  const nested = nestedErrors(error);
  if (nested.length > 0) return nested.flatMap(leafMessages);
  return error.cause === undefined ? [] : leafMessages(error.cause);
}

function leafMessages(error: unknown): string[] {
  if (!(error instanceof Error)) return [String(error)];
  const { apiId, serverErrorMessage } = error as { apiId?: unknown; serverErrorMessage?: unknown };
  const message = trimmed(error);
  if (typeof apiId === 'string') {
    return [`${apiId} (${typeof serverErrorMessage === 'string' ? serverErrorMessage : message})`];
  }
  if (nestedErrors(error).length > 0) return innerMessages(error);
  const causes = innerMessages(error);
  return causes.length === 0 ? [message] : causes.map((cause) => `${message}: ${cause}`);
}

/** The errors an aggregate holds (the client's retries, brokers, a response's errors). */
function nestedErrors(error: Error): unknown[] {
  const nested = (error as { errors?: unknown }).errors;
  return Array.isArray(nested) ? nested : [];
}

function trimmed(error: Error): string {
  return error.message.replace(/\.$/, '');
}
