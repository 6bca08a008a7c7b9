/**
 * The operator CLI against a Kafka consumer: the construct deployed into moto (cli-harness.ts) and
 * the embedded Kafka broker (tools/kafka), with its SASL_SSL listener when users are given. A
 * Kafka consumer is a Lambda function whose environment is the deployed consumer's with the Kafka
 * source's variables instead of the queue's (contract/env.ts), and whose event source mapping
 * holds the access configurations `pq` authenticates by: moto makes no Kafka mapping, so it is a
 * mapping on a decoy queue keeping the Kafka mapping's topic, servers and access configurations,
 * as tools/local-aws/deploy does. Its quarantine records are seeded as the consumer writes them:
 * a record produced to the broker, read back, mapped by the consumer's own Kafka source adapter
 * (lambdas/sources/kafka.ts), its content and record written by the consumer's writer.
 */
import { randomUUID } from 'node:crypto';
import {
  CreateEventSourceMappingCommand,
  CreateFunctionCommand,
  GetFunctionConfigurationCommand,
  type LambdaClient,
  type SourceAccessConfiguration,
} from '@aws-sdk/client-lambda';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { Admin, Consumer, type Message, MessagesStreamModes, Producer } from '@platformatic/kafka';
import type { SelfManagedKafkaEvent } from 'aws-lambda';
import { ENV } from '../../../contract/env';
import { KAFKA_EVENT_SOURCE, SOURCE_KIND } from '../../../contract/sources';
import { QuarantineWriter } from '../../../lambdas/adapters/quarantine-writer';
import { errorSignature } from '../../../lambdas/core/evidence';
import { bodyDigest, quarantineId } from '../../../lambdas/core/ids';
import { exactBody } from '../../../lambdas/ports/source';
import { kafkaRecords } from '../../../lambdas/sources/kafka';
import { type KafkaBroker, type KafkaUser, startKafka } from '../../../tools/kafka/broker';
import { LOCAL_CREDENTIALS } from '../../../tools/local-aws/moto';
import { type CapturedRun, runCliCaptured } from '../../support/run-cli';
import { type CliHarness, PARSE_ERROR } from './cli-harness';

/** The smallest valid zip (an empty archive): moto stores the code and never runs it. */
const EMPTY_ZIP = Buffer.from(`504b0506${'00'.repeat(18)}`, 'hex');

/** A record as a producer sent it: exact bytes. */
export interface KafkaRecordBytes {
  readonly key?: Buffer;
  readonly value: Buffer;
  /** In order; a name may repeat. */
  readonly headers: readonly (readonly [string, Buffer])[];
}

/** A record as read back from the broker. */
export interface ReadRecord extends KafkaRecordBytes {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly timestamp: bigint;
}

export interface SeededKafka {
  readonly id: string;
  readonly messageKey: string;
  readonly original: ReadRecord;
}

/** The consumer's event source mapping: its access configurations, or none at all. */
export type KafkaMapping = { readonly access: readonly SourceAccessConfiguration[] } | 'none';

export interface KafkaCli {
  readonly broker: KafkaBroker;
  /**
   * A Kafka consumer function reading `topic` of `cluster` (bootstrap servers or an MSK ARN),
   * with a mapping of these access configurations (by default none: no authentication).
   */
  consumer(cluster: string, topic: string, mapping?: KafkaMapping): Promise<string>;
  /** A Secrets Manager secret holding `text`; its ARN. */
  secret(text: string): Promise<string>;
  /** `pq ARGS` against the consumer `functionName`. */
  run(functionName: string, ...argv: string[]): Promise<CapturedRun>;
  /** `configs`: topic settings (max.message.bytes...). */
  createTopic(topic: string, partitions: number, configs?: Readonly<Record<string, string>>): Promise<void>;
  /** Produces `record` to `topic`/`partition`, reads it back, and quarantines it as the consumer would. */
  quarantine(
    topic: string,
    partition: number,
    record: KafkaRecordBytes,
    cluster: string,
  ): Promise<SeededKafka>;
  /** The records of a partition from `offset` on (reads until it has `count` or 10 s pass). */
  read(topic: string, partition: number, offset: bigint, count: number): Promise<ReadRecord[]>;
  /** The next offset of each of the first `partitions` partitions of `topic`: what has been produced so far. */
  endOffsets(topic: string, partitions?: number): Promise<bigint[]>;
  stop(): Promise<void>;
}

/** `saslUsers`: the broker's SASL_SSL listener takes them (tools/kafka/broker.ts). */
export async function startKafkaCli(
  cli: CliHarness,
  options: { readonly saslUsers?: readonly KafkaUser[] } = {},
): Promise<KafkaCli> {
  const broker = await startKafka(options.saslUsers ? { saslListener: { users: options.saslUsers } } : {});
  const bootstrapBrokers = [broker.bootstrap];
  const admin = new Admin({ clientId: 'pq-test-admin', bootstrapBrokers });
  const producer = new Producer({ clientId: 'pq-test-producer', bootstrapBrokers });
  const { clients, names, aws } = cli.pipeline;
  const writer = new QuarantineWriter(
    clients.s3,
    clients.dynamodb,
    names.quarantineBucket,
    names.quarantineTable,
  );

  async function read(
    topic: string,
    partition: number,
    offset: bigint,
    count: number,
  ): Promise<ReadRecord[]> {
    const consumer = new Consumer({
      clientId: 'pq-test-reader',
      groupId: `reader-${randomUUID()}`,
      bootstrapBrokers,
      autocommit: false,
      maxWaitTime: 200,
    });
    const found: ReadRecord[] = [];
    try {
      const stream = await consumer.consume({ topics: [topic], mode: MessagesStreamModes.EARLIEST });
      const deadline = setTimeout(() => void stream.close(), 10_000);
      for await (const message of stream as AsyncIterable<Message>) {
        if (message.partition !== partition || message.offset < offset) continue;
        found.push(readRecord(message));
        if (found.length === count) break;
      }
      clearTimeout(deadline);
      await stream.close();
    } finally {
      await consumer.close(true);
    }
    return found;
  }

  const secrets = new SecretsManagerClient({
    endpoint: aws.endpoint,
    region: aws.region,
    credentials: LOCAL_CREDENTIALS,
  });

  return {
    broker,
    async consumer(cluster, topic, mapping = { access: [] }) {
      const name = await kafkaConsumerFunction(clients.lambda, cli.functionName, cluster, topic);
      if (mapping !== 'none') await decoyMapping(clients, name, cluster, topic, mapping.access);
      return name;
    },
    async secret(text) {
      const { ARN } = await secrets.send(
        new CreateSecretCommand({ Name: `kafka/${randomUUID()}`, SecretString: text }),
      );
      return String(ARN);
    },
    run: (functionName, ...argv) =>
      runCliCaptured([
        ...argv,
        '--function',
        functionName,
        '--endpoint-url',
        aws.endpoint,
        '--region',
        aws.region,
      ]),
    createTopic: async (topic, partitions, configs = {}) => {
      await admin.createTopics({
        topics: [topic],
        partitions,
        replicas: 1,
        configs: Object.entries(configs).map(([name, value]) => ({ name, value })),
      });
    },
    async quarantine(topic, partition, record, cluster) {
      const [{ offsets = [] } = {}] = [
        await producer.send({
          messages: [
            {
              topic,
              partition,
              ...(record.key ? { key: record.key } : {}),
              value: record.value,
              headers: new Map(record.headers.map(([name, value]) => [Buffer.from(name), value])),
            },
          ],
        }),
      ];
      const offset = offsets[0]?.offset ?? -1n;
      const [original] = await read(topic, partition, offset, 1);
      if (original === undefined) throw new Error(`seed: ${topic}-${partition}-${offset} not read back`);
      const [delivered] = kafkaRecords(selfManagedEvent(original, cluster), cluster);
      if (delivered === undefined) throw new Error('seed: the Kafka source adapter mapped no record');
      const messageKey = delivered.messageId;
      const id = quarantineId(messageKey, 0, 3);
      await quarantinedLedger(cli, messageKey, delivered.messageId, delivered.body, id);
      const { value: _inTheBody, ...kafka } = delivered.kafka ?? { value: '' };
      const evidence = {
        quarantineId: id,
        reason: 'crash-limit' as const,
        messageKey,
        messageId: delivered.messageId,
        generation: 0,
        attemptsStarted: 3,
        attemptsCharged: 3,
        stage: 'parsed',
        lastError: PARSE_ERROR,
        firstAttemptAt: '2030-01-01T00:00:00.000Z',
        lastAttemptAt: '2030-01-01T00:02:00.000Z',
        sourceQueueArn: delivered.eventSourceARN,
        messageGroupId: delivered.orderGroup,
        orderBroken: true,
      };
      // As lambdas/consumer/quarantine-step.ts writeQuarantine writes them.
      const stored = await writer.putContent(id, {
        ...exactBody(delivered),
        envelope: {
          ...evidence,
          attributes: delivered.attributes,
          messageAttributes: delivered.messageAttributes,
          kafka,
        },
      });
      await writer.putRecord({
        ...evidence,
        ...stored,
        id,
        status: 'open',
        cause: 'unidentified',
        createdAt: new Date().toISOString(),
        errorSignature: errorSignature(PARSE_ERROR),
      });
      return { id, messageKey, original };
    },
    read,
    async endOffsets(topic, partitions = 3) {
      const indexes = Array.from({ length: partitions }, (_, partitionIndex) => partitionIndex);
      const [listed] = await admin.listOffsets({
        topics: [
          { name: topic, partitions: indexes.map((partitionIndex) => ({ partitionIndex, timestamp: -1n })) },
        ],
      });
      return (listed?.partitions ?? [])
        .sort((a, b) => a.partitionIndex - b.partitionIndex)
        .map((partition) => partition.offset);
    },
    async stop() {
      secrets.destroy();
      await producer.close().catch(() => undefined);
      await admin.close().catch(() => undefined);
      await broker.stop();
    },
  };
}

function readRecord(message: Message): ReadRecord {
  return {
    topic: message.topic,
    partition: message.partition,
    offset: message.offset,
    timestamp: message.timestamp,
    ...(message.key === undefined || message.key === null || message.key.length === 0
      ? {}
      : { key: Buffer.from(message.key) }),
    value: Buffer.from(message.value ?? Buffer.alloc(0)),
    headers: message.headerEntries.map(
      ([name, value]) => [name.toString('utf8'), Buffer.from(value)] as const,
    ),
  };
}

/** Lambda's self-managed Kafka event of one record (key, value base64; headers as byte arrays). */
function selfManagedEvent(record: ReadRecord, cluster: string): SelfManagedKafkaEvent {
  return {
    eventSource: KAFKA_EVENT_SOURCE.selfManaged,
    bootstrapServers: cluster,
    records: {
      [`${record.topic}-${record.partition}`]: [
        {
          topic: record.topic,
          partition: record.partition,
          offset: Number(record.offset),
          timestamp: Number(record.timestamp),
          timestampType: 'CREATE_TIME',
          ...(record.key ? { key: record.key.toString('base64') } : {}),
          value: record.value.toString('base64'),
          headers: record.headers.map(([name, value]) => ({ [name]: [...value] })),
        },
      ],
    },
  } as SelfManagedKafkaEvent;
}

/** The ledger item the consumer leaves: quarantined by the record, after three charged attempts. */
async function quarantinedLedger(cli: CliHarness, key: string, messageId: string, body: string, id: string) {
  const started = await cli.consumerLedger.start({
    key,
    attemptId: randomUUID(),
    envId: 'env-1',
    messageId,
    bodyDigest: bodyDigest(body),
    attemptLimit: 3,
    now: new Date('2030-01-01T00:00:00Z'),
    expiresAt: 1_900_000_000,
  });
  if (!started.started) throw new Error(`seed: the ledger item ${key} existed already`);
  await cli.consumerLedger.markQuarantined(key, {
    attemptId: started.item.attemptId,
    quarantineId: id,
    charge: 3,
    now: new Date(),
  });
}

/**
 * The consumer's Kafka mapping as moto keeps one: on a decoy queue (moto takes no Kafka source),
 * with the topic, the self-managed cluster's servers and the access configurations Lambda lists.
 */
async function decoyMapping(
  clients: { readonly lambda: LambdaClient; readonly sqs: SQSClient },
  functionName: string,
  cluster: string,
  topic: string,
  access: readonly SourceAccessConfiguration[],
): Promise<void> {
  const { QueueUrl } = await clients.sqs.send(
    new CreateQueueCommand({ QueueName: `${functionName}-kafka-esm-decoy` }),
  );
  const { Attributes } = await clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  await clients.lambda.send(
    new CreateEventSourceMappingCommand({
      FunctionName: functionName,
      EventSourceArn: Attributes?.QueueArn,
      Topics: [topic],
      ...(cluster.startsWith('arn:')
        ? {}
        : { SelfManagedEventSource: { Endpoints: { KAFKA_BOOTSTRAP_SERVERS: cluster.split(',') } } }),
      ...(access.length > 0 ? { SourceAccessConfigurations: [...access] } : {}),
    }),
  );
}

/** A consumer function with the deployed consumer's environment and role, reading a Kafka topic. */
async function kafkaConsumerFunction(
  lambda: LambdaClient,
  deployed: string,
  cluster: string,
  topic: string,
): Promise<string> {
  const { Role, Environment } = await lambda.send(
    new GetFunctionConfigurationCommand({ FunctionName: deployed }),
  );
  const sqsOnly = new Set<string>([
    ENV.sourceQueueUrl,
    ENV.sourceQueueArn,
    ENV.fifo,
    ENV.backstopMaxReceiveCount,
  ]);
  const variables = Object.fromEntries(
    Object.entries(Environment?.Variables ?? {}).filter(([name]) => !sqsOnly.has(name)),
  );
  const name = `kafka-consumer-${randomUUID().slice(0, 8)}`;
  await lambda.send(
    new CreateFunctionCommand({
      FunctionName: name,
      Runtime: 'nodejs22.x',
      Role,
      Handler: 'index.handler',
      Code: { ZipFile: EMPTY_ZIP },
      Environment: {
        Variables: {
          ...variables,
          [ENV.sourceKind]: SOURCE_KIND.kafka,
          [ENV.kafkaCluster]: cluster,
          [ENV.kafkaTopic]: topic,
        },
      },
    }),
  );
  return name;
}
