/**
 * The local Kafka runner (tools/local-aws/runner/kafka-runner.ts) against the embedded broker
 * (tools/kafka): real topics of 3 partitions, a real consumer group, real child processes running
 * test/integration/fixtures/kafka-scripted-handler.js, whose records' values script what happens
 * to them. The linked mapping's test adds the local AWS (moto) for the mapping.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UpdateEventSourceMappingCommand } from '@aws-sdk/client-lambda';
import { Admin, Producer } from '@platformatic/kafka';
import type { Context, MSKEvent, SelfManagedKafkaEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  KAFKA_EVENT_SOURCE,
  kafkaItemRecordId,
  kafkaPartitionKey,
  kafkaRecordId,
} from '../../contract/sources';
import { type AwsClients, createClients } from '../../lambdas/adapters/clients';
import { type KafkaBroker, startKafka } from '../../tools/kafka/broker';
import { LOCAL_CREDENTIALS, type LocalAws, startLocalAws } from '../../tools/local-aws/moto';
import {
  type KafkaRunner,
  type KafkaRunnerEventName,
  type KafkaRunnerEvents,
  type KafkaRunnerOptions,
  startKafkaRunner,
} from '../../tools/local-aws/runner';
import * as lambdaNames from '../../tools/local-aws/runner/kafka-event';
import { kafkaIdentifier, settleKafkaBatch } from '../../tools/local-aws/runner/kafka-settle';
import { createDecoyMapping } from './fixtures/decoy-mapping';
import { waitFor } from './fixtures/runner-harness';

const ROOT = join(__dirname, '..', '..');
const ENSURE_KAFKA = join(ROOT, 'tools', 'kafka', 'ensure-kafka.mjs');
const HANDLER = join(__dirname, 'fixtures', 'kafka-scripted-handler.js');
/** The first install downloads about 45 MB from Maven Central; a start takes a few seconds idle. */
const SETUP_TIMEOUT_MS = 300_000;
const script = (action: string, extra: Record<string, unknown> = {}) => JSON.stringify({ action, ...extra });

let broker: KafkaBroker;
let admin: Admin;
let producer: Producer;
/** Every runner a test started: each is stopped after the test, whatever happened. */
const runners: KafkaRunner[] = [];
let invocationLog: string;
let topicCount = 0;

beforeAll(async () => {
  const install = spawnSync(process.execPath, [ENSURE_KAFKA], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: SETUP_TIMEOUT_MS,
  });
  expect(install.status, `${install.stdout}${install.stderr}`).toBe(0);
  broker = await startKafka();
  admin = new Admin({ clientId: 'kafka-runner-test', bootstrapBrokers: [broker.bootstrap] });
  // Idempotent: a send retried on a loaded machine must not write a record twice.
  producer = new Producer({
    clientId: 'kafka-runner-test',
    bootstrapBrokers: [broker.bootstrap],
    idempotent: true,
  });
}, SETUP_TIMEOUT_MS);
afterEach(async () => {
  await Promise.all(runners.splice(0).map((each) => each.stop()));
});
afterAll(async () => {
  await producer?.close().catch(() => undefined);
  await admin?.close().catch(() => undefined);
  await broker?.stop();
}, SETUP_TIMEOUT_MS);

/** A fresh topic of 3 partitions, and a fresh invocation log for the handler. */
async function newTopic(): Promise<string> {
  topicCount += 1;
  const topic = `orders-${topicCount}`;
  await admin.createTopics({ topics: [topic], partitions: 3, replicas: 1 });
  invocationLog = join(mkdtempSync(join(tmpdir(), 'pq-kafka-runner-')), 'invocations.jsonl');
  writeFileSync(invocationLog, '');
  return topic;
}

interface Outgoing {
  readonly partition: number;
  readonly value: string | Buffer | null;
  readonly key?: Buffer | string;
  readonly headers?: Map<Buffer, Buffer>;
  readonly timestamp?: bigint;
}

async function produce(topic: string, records: readonly Outgoing[]): Promise<void> {
  await producer.send({
    messages: records.map((record) => ({
      topic,
      partition: record.partition,
      value: (typeof record.value === 'string' ? Buffer.from(record.value) : record.value) as Buffer,
      ...(record.key === undefined ? {} : { key: Buffer.from(record.key) }),
      ...(record.headers ? { headers: record.headers } : {}),
      ...(record.timestamp === undefined ? {} : { timestamp: record.timestamp }),
    })),
  });
}

async function startRunner(topic: string, overrides: Partial<KafkaRunnerOptions> = {}): Promise<KafkaRunner> {
  const runner = await startKafkaRunner({
    bootstrapServers: [broker.bootstrap],
    topic,
    groupId: `group-of-${topic}`,
    startingPosition: 'TRIM_HORIZON',
    region: 'us-east-1',
    handler: { file: HANDLER, exportName: 'handler' },
    environment: { INVOCATION_LOG: invocationLog, CUSTOM_SETTING: 'from-options' },
    functionName: 'kafka-runner-test',
    functionTimeoutMs: 5_000,
    batchSize: 10,
    maximumBatchingWindowMs: 0,
    maximumConcurrency: 3,
    fetchMaxWaitMs: 100,
    forwardLogs: false,
    ...overrides,
  });
  runners.push(runner);
  warnings.set(
    runner,
    collect(runner, 'warning').map((warning) => warning.message),
  );
  return runner;
}

type KafkaEvent = SelfManagedKafkaEvent | MSKEvent;

type Line =
  | {
      readonly phase: 'start';
      readonly pid: number;
      readonly at: number;
      readonly requestId: string;
      readonly ids: string[];
      readonly event: KafkaEvent;
      readonly context: Omit<Context, 'getRemainingTimeInMillis' | 'done' | 'fail' | 'succeed'> & {
        readonly remainingTimeMs: number;
      };
      readonly env: Readonly<Record<string, string | undefined>>;
    }
  | {
      readonly phase: 'end';
      readonly pid: number;
      readonly at: number;
      readonly requestId: string;
      ids: string[];
    };

function lines(): Line[] {
  return readFileSync(invocationLog, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);
}

function starts(): Extract<Line, { phase: 'start' }>[] {
  return lines().filter((line) => line.phase === 'start');
}

/** The record ids of each invocation of one partition, in the order they were invoked. */
function deliveriesOf(topic: string, partition: number): string[][] {
  const prefix = `${kafkaPartitionKey(topic, partition)}-`;
  return starts()
    .map((line) => line.ids)
    .filter((ids) => ids[0]?.startsWith(prefix));
}

function ids(topic: string, partition: number, offsets: number[]): string[] {
  return offsets.map((offset) => kafkaRecordId(topic, partition, offset));
}

function collect<E extends KafkaRunnerEventName>(from: KafkaRunner, event: E): KafkaRunnerEvents[E][] {
  const seen: KafkaRunnerEvents[E][] = [];
  from.on(event, (payload) => seen.push(payload));
  return seen;
}

/** Every warning of each runner, to tell why a wait timed out. */
const warnings = new WeakMap<KafkaRunner, string[]>();

/** Waits until each partition named has committed exactly its offset; a timeout tells what the runner saw. */
async function committed(
  from: KafkaRunner,
  expected: Record<string, number>,
  timeoutMs = 30_000,
): Promise<void> {
  const reached = () => {
    const offsets = from.stats().committedOffsets;
    return Object.entries(expected).every(([key, offset]) => offsets[key] === offset);
  };
  try {
    await waitFor(`commits ${JSON.stringify(expected)}`, reached, timeoutMs);
  } catch (error) {
    const seen = {
      stats: from.stats(),
      warnings: warnings.get(from),
      invocations: starts().map((line) => line.ids),
    };
    throw new Error(`${(error as Error).message}\n${JSON.stringify(seen, null, 1)}`);
  }
}

/** Java's signed byte, as Lambda writes a header's bytes. */
const signed = (bytes: number[]) => bytes.map((byte) => (byte > 127 ? byte - 256 : byte));
const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64');

describe("the Kafka runner delivers Lambda's Kafka event", () => {
  it('one partition per invocation, in offset order, key, value and headers byte for byte', async () => {
    // Prepare
    const topic = await newTopic();
    const binaryKey = Buffer.from([0x6b, 0x00, 0xff]);
    const binaryValue = Buffer.concat([Buffer.from('value – ü '), Buffer.from([0x00, 0xfe, 0x80])]);
    await produce(topic, [
      {
        partition: 1,
        key: binaryKey,
        value: binaryValue,
        timestamp: 1_700_000_000_123n,
        headers: new Map([
          [Buffer.from('trace'), Buffer.from([0x00, 0xff, 0x80, 0x7f])],
          [Buffer.from('attempt'), Buffer.from('1')],
          [Buffer.from('trace'), Buffer.from('second')],
        ]),
      },
      { partition: 1, value: 'no key' },
      { partition: 1, key: 'gone', value: null },
      { partition: 0, key: 'a', value: script('ok') },
      { partition: 2, value: script('ok') },
    ]);

    // Act
    const started = await startRunner(topic);
    const invoked = collect(started, 'invoke');
    await committed(started, { [`${topic}-0`]: 1, [`${topic}-1`]: 3, [`${topic}-2`]: 1 });

    // Assess
    const all = starts();
    for (const line of all) {
      expect(line.event.eventSource).toBe(KAFKA_EVENT_SOURCE.selfManaged);
      expect(line.event.bootstrapServers).toBe(broker.bootstrap);
      expect(Object.keys(line.event.records)).toHaveLength(1);
    }
    const ofPartition1 = all.flatMap((line) => line.event.records[kafkaPartitionKey(topic, 1)] ?? []);
    expect(ofPartition1).toStrictEqual([
      {
        topic,
        partition: 1,
        offset: 0,
        timestamp: 1_700_000_000_123,
        timestampType: 'CREATE_TIME',
        key: b64(binaryKey),
        value: b64(binaryValue),
        headers: [
          { trace: signed([0x00, 0xff, 0x80, 0x7f]) },
          { attempt: [0x31] },
          { trace: [...Buffer.from('second')] },
        ],
      },
      {
        topic,
        partition: 1,
        offset: 1,
        timestamp: expect.any(Number),
        timestampType: 'CREATE_TIME',
        value: b64('no key'),
        headers: [],
      },
      {
        topic,
        partition: 1,
        offset: 2,
        timestamp: expect.any(Number),
        timestampType: 'CREATE_TIME',
        key: b64('gone'),
        headers: [],
      },
    ]);
    // Signed bytes come back as the producer's bytes through Buffer.from, as a consumer reads them.
    expect(Buffer.from(ofPartition1[0].headers[0].trace)).toStrictEqual(
      Buffer.from([0x00, 0xff, 0x80, 0x7f]),
    );
    expect(Buffer.from(ofPartition1[0].key, 'base64')).toStrictEqual(binaryKey);
    // The ids the runner reports are the consumer's ledger keys and Lambda's item identifiers.
    expect(invoked.flatMap((ref) => ref.messageIds).sort()).toStrictEqual(
      [...ids(topic, 0, [0]), ...ids(topic, 1, [0, 1, 2]), ...ids(topic, 2, [0])].sort(),
    );
    expect(all[0].context).toMatchObject({
      functionName: 'kafka-runner-test',
      invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:kafka-runner-test',
      awsRequestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(all[0].env).toStrictEqual({ region: 'us-east-1', custom: 'from-options' });
    expect(await started.lag()).toStrictEqual(
      [0, 1, 2].map((partition) => ({
        topic,
        partition,
        key: kafkaPartitionKey(topic, partition),
        committed: partition === 1 ? 3 : 1,
        start: 0,
        end: partition === 1 ? 3 : 1,
        left: 0,
      })),
    );
  });

  it("builds Amazon MSK's event when asked: eventSource aws:kafka and the cluster ARN", async () => {
    // Prepare
    const topic = await newTopic();
    const clusterArn =
      'arn:aws:kafka:us-east-1:111122223333:cluster/demo/0b9d6d4e-1b2c-4c5d-9e8f-1a2b3c4d5e6f-2';
    await produce(topic, [{ partition: 2, key: 'k', value: 'v' }]);

    // Act
    const started = await startRunner(topic, { eventShape: { kind: 'msk', clusterArn } });
    await committed(started, { [`${topic}-2`]: 1 });

    // Assess
    const [line] = starts();
    expect(line.event).toStrictEqual({
      eventSource: KAFKA_EVENT_SOURCE.msk,
      eventSourceArn: clusterArn,
      bootstrapServers: broker.bootstrap,
      records: {
        [`${topic}-2`]: [
          {
            topic,
            partition: 2,
            offset: 0,
            timestamp: expect.any(Number),
            timestampType: 'CREATE_TIME',
            key: b64('k'),
            value: b64('v'),
            headers: [],
          },
        ],
      },
    });
    expect(line.context.invokedFunctionArn).toBe(
      'arn:aws:lambda:us-east-1:111122223333:function:kafka-runner-test',
    );
  });

  it.each([
    [2, 'fewer slots than partitions: at most 2 invocations at once', 2],
    [5, 'more slots than partitions: still one invocation per partition', 3],
  ])(
    'invokes partitions side by side, never two batches of one partition at once (concurrency %i: %s)',
    async (maximumConcurrency, _, overlap) => {
      // Prepare
      const topic = await newTopic();
      await produce(
        topic,
        [0, 1, 2].flatMap((partition) =>
          Array.from({ length: 4 }, () => ({ partition, value: script('sleep', { ms: 250 }) })),
        ),
      );

      // Act
      const started = await startRunner(topic, { batchSize: 2, maximumConcurrency });
      await committed(started, { [`${topic}-0`]: 4, [`${topic}-1`]: 4, [`${topic}-2`]: 4 });

      // Assess
      for (const partition of [0, 1, 2]) {
        expect(deliveriesOf(topic, partition)).toStrictEqual([
          ids(topic, partition, [0, 1]),
          ids(topic, partition, [2, 3]),
        ]);
        expect(
          maximumOverlap(lines().filter((line) => line.ids[0]?.startsWith(`${topic}-${partition}-`))),
        ).toBe(1);
      }
      expect(maximumOverlap(lines())).toBe(overlap);
      expect(started.stats()).toMatchObject({ invocations: 6, recordsReceived: 12, recordsCommitted: 12 });
    },
  );
});

describe('the Kafka runner commits only what the function finished', () => {
  it('holds only the partition whose record throws, delivers that record again, and the others commit and move on', async () => {
    // Prepare
    const topic = await newTopic();
    const gate = join(mkdtempSync(join(tmpdir(), 'pq-kafka-gate-')), 'open');
    await produce(topic, [
      { partition: 0, value: script('ok') },
      { partition: 1, value: script('throw-until', { file: gate }) },
      { partition: 1, value: script('ok') },
      { partition: 2, value: script('ok') },
    ]);
    const started = await startRunner(topic);
    const errors = collect(started, 'function-error');
    const seeks = collect(started, 'seek');

    // Act
    await committed(started, { [`${topic}-0`]: 1, [`${topic}-2`]: 1 });
    await waitFor('partition 1 failed twice', () => errors.length >= 2);
    await produce(topic, [{ partition: 0, value: script('ok') }]);
    await committed(started, { [`${topic}-0`]: 2 });
    const held = started.stats().committedOffsets[`${topic}-1`];
    writeFileSync(gate, '');
    await committed(started, { [`${topic}-1`]: 2 });

    // Assess
    expect(held).toBeUndefined();
    const deliveries = deliveriesOf(topic, 1);
    expect(deliveries.length).toBe(errors.length + 1);
    for (const delivered of deliveries) expect(delivered).toStrictEqual(ids(topic, 1, [0, 1]));
    expect(errors.every((error) => error.partition === `${topic}-1` && error.error.name === 'Error')).toBe(
      true,
    );
    expect(seeks.every((seek) => seek.partition === `${topic}-1` && seek.offset === 0)).toBe(true);
    expect(deliveriesOf(topic, 0)).toStrictEqual([ids(topic, 0, [0]), ids(topic, 0, [1])]);
    expect(deliveriesOf(topic, 2)).toStrictEqual([ids(topic, 2, [0])]);
    // A function error keeps the environment warm.
    expect(started.stats()).toMatchObject({ crashes: 0, timeouts: 0, environmentsStarted: 3 });
  });

  it('commits up to the lowest failed offset of a partial batch response and delivers again from it', async () => {
    // Prepare
    const topic = await newTopic();
    await produce(topic, [
      { partition: 0, value: script('ok') },
      { partition: 0, value: script('ok') },
      { partition: 0, value: script('fail', { times: 1 }) },
      { partition: 0, value: script('fail', { times: 1 }) },
      { partition: 0, value: script('ok') },
    ]);

    // Act
    const started = await startRunner(topic, { reportBatchItemFailures: true });
    const results = collect(started, 'result');
    await committed(started, { [`${topic}-0`]: 5 });

    // Assess
    expect(
      results.map(({ committed, redelivered, committedOffset, batchItemFailures }) => ({
        committed,
        redelivered,
        committedOffset,
        batchItemFailures,
      })),
    ).toStrictEqual([
      {
        committed: ids(topic, 0, [0, 1]),
        redelivered: ids(topic, 0, [2, 3, 4]),
        committedOffset: 2,
        batchItemFailures: ids(topic, 0, [2, 3]),
      },
      { committed: ids(topic, 0, [2, 3, 4]), redelivered: [], committedOffset: 5, batchItemFailures: [] },
    ]);
    expect(deliveriesOf(topic, 0)).toStrictEqual([ids(topic, 0, [0, 1, 2, 3, 4]), ids(topic, 0, [2, 3, 4])]);
    expect(started.stats()).toMatchObject({ recordsReceived: 8, recordsCommitted: 5, recordsRedelivered: 3 });
  });

  it.each([
    [
      'an SQS-style itemIdentifier (a record id, not a partition and offset)',
      'bad-id',
      'invalid itemIdentifier "',
    ],
    ['an identifier of no record of the batch', 'unknown-id', 'is not a message of this batch'],
  ])('delivers the whole batch again for %s', async (_, action, reason) => {
    // Prepare
    const topic = await newTopic();
    await produce(topic, [
      { partition: 2, value: script('ok') },
      { partition: 2, value: script(action, { times: 1 }) },
    ]);

    // Act
    const started = await startRunner(topic, { reportBatchItemFailures: true });
    const results = collect(started, 'result');
    await committed(started, { [`${topic}-2`]: 2 });

    // Assess
    expect(results[0]).toMatchObject({
      committed: [],
      redelivered: ids(topic, 2, [0, 1]),
      committedOffset: 0,
      wholeBatchFailure: expect.stringContaining(reason),
    });
    expect(deliveriesOf(topic, 2)).toStrictEqual([ids(topic, 2, [0, 1]), ids(topic, 2, [0, 1])]);
  });

  it.each([
    ['SIGKILL', 'crash', { signal: 'SIGKILL', exitCode: null }],
    ['process.exit', 'exit', { signal: null, exitCode: 3 }],
  ])(
    'after a crash (%s) delivers again from the committed offset, in a fresh environment',
    async (_, action, death) => {
      // Prepare: two records committed before the crash.
      const topic = await newTopic();
      await produce(topic, [
        { partition: 1, value: script('ok') },
        { partition: 1, value: script('ok') },
      ]);
      const started = await startRunner(topic);
      const crashes = collect(started, 'crash');
      const replaced = collect(started, 'env-replaced');
      await committed(started, { [`${topic}-1`]: 2 });

      // Act
      await produce(topic, [
        { partition: 1, value: script('ok') },
        { partition: 1, value: script(action, { times: 1 }) },
        { partition: 1, value: script('ok') },
      ]);
      await committed(started, { [`${topic}-1`]: 5 });

      // Assess
      const deliveries = starts().filter((line) => line.ids[0]?.startsWith(`${topic}-1-`));
      expect(deliveries.map((line) => line.ids)).toStrictEqual([
        ids(topic, 1, [0, 1]),
        ids(topic, 1, [2, 3, 4]),
        ids(topic, 1, [2, 3, 4]),
      ]);
      expect(crashes).toMatchObject([
        { pid: deliveries[1].pid, messageIds: ids(topic, 1, [2, 3, 4]), ...death },
      ]);
      expect(replaced).toMatchObject([{ reason: 'crash', pid: deliveries[2].pid }]);
      expect(deliveries[2].pid).not.toBe(deliveries[1].pid);
      // Record 2 finished before the crash, yet nothing of a crashed batch is committed.
      expect(started.stats()).toMatchObject({ crashes: 1, recordsCommitted: 5, recordsRedelivered: 3 });
    },
  );

  it('after a timeout (SIGKILL at the function timeout) delivers again from the committed offset', async () => {
    // Prepare
    const topic = await newTopic();
    await produce(topic, [
      { partition: 0, value: script('ok') },
      { partition: 0, value: script('hang', { times: 1 }) },
    ]);

    // Act
    const started = await startRunner(topic, { functionTimeoutMs: 1_000, batchSize: 1 });
    const timeouts = collect(started, 'timeout');
    const replaced = collect(started, 'env-replaced');
    await committed(started, { [`${topic}-0`]: 2 });

    // Assess
    const deliveries = starts().filter((line) => line.ids[0]?.startsWith(`${topic}-0-`));
    expect(deliveries.map((line) => line.ids)).toStrictEqual([
      ids(topic, 0, [0]),
      ids(topic, 0, [1]),
      ids(topic, 0, [1]),
    ]);
    expect(timeouts).toMatchObject([
      { pid: deliveries[1].pid, messageIds: ids(topic, 0, [1]), timeoutMs: 1_000 },
    ]);
    expect(replaced).toMatchObject([{ reason: 'timeout', pid: deliveries[2].pid }]);
    expect(deliveries[1].context.remainingTimeMs).toBeLessThanOrEqual(1_000);
    expect(() => process.kill(deliveries[1].pid, 0)).toThrow(/ESRCH/);
  });
});

describe('the Kafka runner and its consumer group', () => {
  it('resumes a group from its committed offsets; a new group at LATEST skips what was there', async () => {
    // Prepare
    const topic = await newTopic();
    await produce(topic, [
      { partition: 0, value: script('ok') },
      { partition: 0, value: script('ok') },
    ]);
    const first = await startRunner(topic);
    await committed(first, { [`${topic}-0`]: 2 });
    await first.stop();
    await produce(topic, [{ partition: 0, value: script('ok') }]);

    // Act
    const again = await startRunner(topic);
    await committed(again, { [`${topic}-0`]: 3 });
    await again.stop();
    const latest = await startRunner(topic, { groupId: `latest-of-${topic}`, startingPosition: 'LATEST' });
    await produce(topic, [{ partition: 0, value: script('ok') }]);
    await committed(latest, { [`${topic}-0`]: 4 });

    // Assess
    expect(deliveriesOf(topic, 0)).toStrictEqual([
      ids(topic, 0, [0, 1]),
      ids(topic, 0, [2]),
      ids(topic, 0, [3]),
    ]);
  });

  it('kills every environment it started and leaves the group when stopped', async () => {
    // Prepare
    const topic = await newTopic();
    const started = await startRunner(topic, { maximumConcurrency: 2 });
    const pids = started.stats().environments.map((environment) => environment.pid);
    expect(pids).toHaveLength(2);

    // Act
    await started.stop();

    // Assess
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    const groups = await admin.describeGroups({ groups: [`group-of-${topic}`] });
    expect(groups.get(`group-of-${topic}`)?.members.size).toBe(0);
    await expect(started.lag()).rejects.toThrow('the Kafka runner is stopped');
  });

  it('refuses impossible options, naming each, and a topic that does not exist', async () => {
    const topic = await newTopic();
    await expect(
      startRunner(topic, {
        batchSize: 0,
        startingPosition: 'AT_TIMESTAMP' as 'LATEST',
        bootstrapServers: [],
      }),
    ).rejects.toThrow(
      /bootstrapServers must be host:port[\s\S]*startingPosition must be TRIM_HORIZON or LATEST \(given AT_TIMESTAMP\)[\s\S]*batchSize must be an integer in 1..10000 \(given 0\)/,
    );
    await expect(startRunner('no-such-topic')).rejects.toThrow(/no-such-topic/);
  });
});

describe('the Kafka runner following its mapping in the local AWS', () => {
  let aws: LocalAws;
  let clients: AwsClients;

  beforeAll(async () => {
    aws = await startLocalAws();
    clients = createClients({ region: aws.region, endpoint: aws.endpoint, credentials: LOCAL_CREDENTIALS });
  });
  afterAll(async () => {
    await aws?.stop();
  });

  it('polls nothing while the mapping is disabled, lets the invocation under way finish, and resumes when enabled', async () => {
    // Prepare
    const topic = await newTopic();
    const { uuid } = await createDecoyMapping(clients, aws.endpoint, { batchSize: 10 });
    const started = await startRunner(topic, { clients, mapping: { uuid, pollStateEveryMs: 100 } });
    const invoked = collect(started, 'invoke');
    await produce(topic, [{ partition: 1, value: script('sleep', { ms: 1_500 }) }]);
    await waitFor('the slow record invoked', () => invoked.length === 1);

    // Act: disabled while the slow record runs.
    await clients.lambda.send(new UpdateEventSourceMappingCommand({ UUID: uuid, Enabled: false }));
    await waitFor('the runner to stop polling', () => !started.stats().polling);
    await committed(started, { [`${topic}-1`]: 1 });
    await produce(topic, [
      { partition: 0, value: script('ok') },
      { partition: 1, value: script('ok') },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    // Assess: nothing new invoked, two records left in the topic.
    expect(started.stats().invocations).toBe(1);
    const left = await started.lag();
    expect(left.map((partition) => [partition.key, partition.committed, partition.left])).toStrictEqual([
      [`${topic}-0`, null, 1],
      [`${topic}-1`, 1, 1],
      [`${topic}-2`, null, 0],
    ]);

    // Act: enabled again.
    await clients.lambda.send(new UpdateEventSourceMappingCommand({ UUID: uuid, Enabled: true }));
    await committed(started, { [`${topic}-0`]: 1, [`${topic}-1`]: 2 });

    // Assess
    expect(deliveriesOf(topic, 1)).toStrictEqual([ids(topic, 1, [0]), ids(topic, 1, [1])]);
    expect((await started.lag()).every((partition) => partition.left === 0)).toBe(true);
  });
});

describe("Lambda's Kafka partial batch response rules", () => {
  const records = [5n, 6n, 7n, 8n].map((offset) => ({ id: `t-0-${offset}`, offset }));
  const failed = (...offsets: number[]) => ({
    batchItemFailures: offsets.map((offset) => ({ itemIdentifier: { partition: 't-0', offset } })),
  });

  it('commits past the whole batch when nothing failed', () => {
    expect(settleKafkaBatch(records, { batchItemFailures: [] }, true)).toStrictEqual({
      kind: 'settled',
      commitTo: 9n,
      committed: ['t-0-5', 't-0-6', 't-0-7', 't-0-8'],
      redelivered: [],
    });
  });

  it('commits up to the lowest failed offset, whatever order the failures are listed in', () => {
    expect(settleKafkaBatch(records, failed(8, 6), true)).toStrictEqual({
      kind: 'settled',
      commitTo: 6n,
      committed: ['t-0-5'],
      redelivered: ['t-0-6', 't-0-7', 't-0-8'],
    });
  });

  it('reads no answer without ReportBatchItemFailures (on-demand mode): the batch succeeded', () => {
    expect(settleKafkaBatch(records, failed(6), false)).toMatchObject({ kind: 'settled', commitTo: 9n });
  });

  it.each([
    [
      'a partition of no record of the batch',
      { partition: 't-1', offset: 5 },
      'is not a message of this batch',
    ],
    ['an SQS-style record id', 't-0-6', 'invalid itemIdentifier "t-0-6"'],
    ['a negative offset', { partition: 't-0', offset: -1 }, 'invalid itemIdentifier'],
  ])('fails the whole batch for %s', (_, itemIdentifier, reason) => {
    expect(settleKafkaBatch(records, { batchItemFailures: [{ itemIdentifier }] }, true)).toStrictEqual({
      kind: 'whole-batch-failed',
      reason: expect.stringContaining(reason),
    });
  });

  it.each([
    { partition: 'orders-0', offset: 4 },
    { partition: 'orders-0', offset: 1.5 },
    { partition: 0, offset: 4 },
    'orders-0-4',
    null,
  ])('reads the item identifier %j as contract/sources.ts does', (identifier) => {
    expect(kafkaIdentifier(identifier)).toBe(kafkaItemRecordId(identifier));
  });

  it("names records and partitions as contract/sources.ts does (the local AWS spells Lambda's names itself)", () => {
    expect(lambdaNames.kafkaRecordId('orders.eu', 12, 345n)).toBe(kafkaRecordId('orders.eu', 12, 345));
    expect(lambdaNames.kafkaPartitionKey('orders.eu', 12)).toBe(kafkaPartitionKey('orders.eu', 12));
    expect(lambdaNames.KAFKA_EVENT_SOURCE).toStrictEqual(KAFKA_EVENT_SOURCE);
  });
});

/** The most invocations that ran at the same moment, from the log's start and end lines. */
function maximumOverlap(from: readonly Line[]): number {
  const edges = from.map((line) => ({ at: line.at, delta: line.phase === 'start' ? 1 : -1 }));
  edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let running = 0;
  let most = 0;
  for (const edge of edges) {
    running += edge.delta;
    most = Math.max(most, running);
  }
  return most;
}
