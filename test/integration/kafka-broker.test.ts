/**
 * The embedded Apache Kafka broker (tools/kafka): installed once from Maven Central by
 * ensure-kafka.mjs, started by broker.ts as one KRaft node on 127.0.0.1, spoken to by the
 * project's Kafka client (@platformatic/kafka). A record comes back byte for byte (key, value,
 * headers in their order, a header key repeated), a partition's records in offset order, a
 * group's committed offset as committed; and when the broker stops, or the process that started
 * it is killed, nothing of it is left.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { Admin, Consumer, type Message, MessagesStreamModes, Producer } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KafkaBroker, startKafka } from '../../tools/kafka/broker';
import { describeProcess, leftAfter, processesMarked } from '../support/processes';

const ROOT = join(__dirname, '..', '..');
const ENSURE_KAFKA = join(ROOT, 'tools', 'kafka', 'ensure-kafka.mjs');
const BROKER_MODULE = join(ROOT, 'tools', 'kafka', 'broker.ts');
/** The first install downloads about 45 MB from Maven Central; a start takes a few seconds idle. */
const SETUP_TIMEOUT_MS = 300_000;
const PARTITIONS = 3;
const CHOSEN_PARTITION = 1;

function ensureKafka() {
  return spawnSync(process.execPath, [ENSURE_KAFKA], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: SETUP_TIMEOUT_MS,
  });
}

/** Records of one partition, in the order the test produces them: binary keys and values, headers repeated. */
function recordsFor(topic: string) {
  return [0, 1, 2, 3].map((index) => ({
    topic,
    partition: CHOSEN_PARTITION,
    key: Buffer.from([0x6b, 0x00, 0xff, index]),
    value: Buffer.concat([Buffer.from(`value ${index} – ü `), Buffer.from([0x00, 0xfe, index])]),
    // Two entries named `trace`: Kafka keeps a record's headers as a list, in order, repeats allowed.
    headers: new Map([
      [Buffer.from('trace'), Buffer.from([index, 0x00, 0xff])],
      [Buffer.from('attempt'), Buffer.from(String(index))],
      [Buffer.from('trace'), Buffer.from('second')],
    ]),
  }));
}

type Produced = ReturnType<typeof recordsFor>[number];

/** What a consumer gives back of a record, as plain bytes to compare. */
function bytesOf(message: Message) {
  return {
    partition: message.partition,
    offset: message.offset,
    key: message.key,
    value: message.value,
    headers: message.headerEntries,
  };
}

function expectedBytes(records: Produced[]) {
  return records.map((record, index) => ({
    partition: CHOSEN_PARTITION,
    offset: BigInt(index),
    key: record.key,
    value: record.value,
    headers: [...record.headers.entries()],
  }));
}

/** The first `count` messages of a stream; closes it. */
async function firstMessages(
  stream: AsyncIterable<Message> & { close(): Promise<void> },
  count: number,
): Promise<Message[]> {
  const messages: Message[] = [];
  for await (const message of stream) {
    messages.push(message);
    if (messages.length === count) break;
  }
  await stream.close();
  return messages;
}

describe.sequential('given the embedded Kafka broker, started on 127.0.0.1', () => {
  let broker: KafkaBroker;
  let admin: Admin;
  let producer: Producer;
  const consumers: Consumer[] = [];

  beforeAll(async () => {
    const install = ensureKafka();
    expect(install.status, `${install.stdout}${install.stderr}`).toBe(0);
    broker = await startKafka();
    admin = new Admin({ clientId: 'kafka-broker-test', bootstrapBrokers: [broker.bootstrap] });
    producer = new Producer({ clientId: 'kafka-broker-test', bootstrapBrokers: [broker.bootstrap] });
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    for (const consumer of consumers) await consumer.close(true).catch(() => undefined);
    await producer?.close().catch(() => undefined);
    await admin?.close().catch(() => undefined);
    await broker?.stop();
  }, SETUP_TIMEOUT_MS);

  function consumer(groupId: string): Consumer {
    const created = new Consumer({
      clientId: 'kafka-broker-test',
      groupId,
      bootstrapBrokers: [broker.bootstrap],
      autocommit: false,
      maxWaitTime: 500,
    });
    consumers.push(created);
    return created;
  }

  async function topicWithRecords(topic: string): Promise<Produced[]> {
    await admin.createTopics({ topics: [topic], partitions: PARTITIONS, replicas: 1 });
    const records = recordsFor(topic);
    await producer.send({ messages: records });
    return records;
  }

  it('when ensure-kafka.mjs runs again with the same pin, then it prints nothing and exits 0', () => {
    // Act
    const again = ensureKafka();

    // Assess
    expect({ status: again.status, stdout: again.stdout, stderr: again.stderr }).toStrictEqual({
      status: 0,
      stdout: '',
      stderr: '',
    });
  });

  it('when a topic is created with 3 partitions, then the broker lists it with 3', async () => {
    // Act
    await admin.createTopics({ topics: ['created'], partitions: PARTITIONS, replicas: 1 });

    // Assess
    const metadata = await admin.metadata({ topics: ['created'], forceUpdate: true });
    expect(metadata.topics.get('created')?.partitionsCount).toBe(PARTITIONS);
    expect(await admin.listTopics()).toContain('created');
  });

  it('when keyed records with headers are produced to one partition, then they read back in offset order, byte for byte', async () => {
    // Prepare
    const records = await topicWithRecords('orders');

    // Act
    const stream = await consumer('readers').consume({
      topics: ['orders'],
      mode: MessagesStreamModes.EARLIEST,
    });
    const messages = await firstMessages(stream, records.length);

    // Assess
    expect(messages.map(bytesOf)).toStrictEqual(expectedBytes(records));
  });

  it('when a consumer group commits an offset, then the group reads it back and resumes after it', async () => {
    // Prepare
    const records = await topicWithRecords('payments');
    const first = consumer('ledger');
    const read = await firstMessages(
      await first.consume({ topics: ['payments'], mode: MessagesStreamModes.EARLIEST }),
      records.length,
    );

    // Act: the second record is processed; Kafka's committed offset is the next one to read.
    await first.commit({
      offsets: [
        { topic: 'payments', partition: CHOSEN_PARTITION, offset: 2n, leaderEpoch: read[1].leaderEpoch },
      ],
    });
    await first.close(true);

    // Assess
    const [group] = await admin.listConsumerGroupOffsets({ groups: ['ledger'] });
    expect(group?.topics).toMatchObject([
      { name: 'payments', partitions: [{ partitionIndex: CHOSEN_PARTITION, committedOffset: 2n }] },
    ]);
    const resumed = consumer('ledger');
    const committed = await resumed.listCommittedOffsets({
      topics: [{ topic: 'payments', partitions: [CHOSEN_PARTITION] }],
    });
    expect(committed.get('payments')?.[CHOSEN_PARTITION]).toBe(2n);
    const rest = await firstMessages(
      await resumed.consume({ topics: ['payments'], mode: MessagesStreamModes.COMMITTED }),
      2,
    );
    expect(rest.map(bytesOf)).toStrictEqual(expectedBytes(records).slice(2));
  });

  it('when the broker is stopped, then none of its processes is left and its folder is gone', async () => {
    // Prepare
    const folder = dirname(broker.logFile);
    expect(processesMarked(broker.processMark)).toContain(broker.pid);

    // Act
    await broker.stop();

    // Assess
    expect((await leftAfter(broker.processMark, 5_000)).map(describeProcess)).toStrictEqual([]);
    expect(existsSync(folder)).toBe(false);
  });
});

/** The child's first line on stdout; rejects when it exits first (its stderr is the test's). */
function firstLineOf(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  return new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code, signal) =>
      reject(new Error(`the process exited (${signal ?? code}) before it started the broker`)),
    );
  }).finally(() => lines.close());
}

describe('given a process that started the broker', () => {
  it(
    'when it is killed with SIGKILL, then the broker goes with it and leaves no folder',
    async () => {
      // Prepare: a node process starting the broker, as a test worker does, then waiting.
      const script = `
      const loaded = await import(${JSON.stringify(BROKER_MODULE)});
      const { startKafka } = loaded.startKafka ? loaded : loaded.default;
      const broker = await startKafka();
      console.log(JSON.stringify({ mark: broker.processMark, logFile: broker.logFile }));
      setInterval(() => {}, 60_000);
    `;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let mark: string | undefined;
      try {
        const started = JSON.parse(await firstLineOf(child)) as { mark: string; logFile: string };
        mark = started.mark;
        expect(processesMarked(mark)).not.toStrictEqual([]);
        expect(dirname(started.logFile).startsWith(tmpdir())).toBe(true);

        // Act
        child.kill('SIGKILL');
        await once(child, 'exit');

        // Assess
        expect((await leftAfter(mark, 30_000)).map(describeProcess)).toStrictEqual([]);
        expect(existsSync(dirname(started.logFile))).toBe(false);
      } finally {
        child.kill('SIGKILL');
        for (const pid of mark ? processesMarked(mark) : []) process.kill(pid, 'SIGKILL');
      }
    },
    SETUP_TIMEOUT_MS,
  );
});
