/**
 * Issue 38 item 3: operators reach Kafka records. The construct deployed into moto, a Kafka
 * consumer function beside it with its event source mapping (support/kafka-cli.ts), and the
 * embedded Kafka broker: a record produced to a topic and quarantined as the consumer would, then
 * `pq list`, `find` and `show` name its topic, partition, offset, key and headers, and `pq replay`
 * produces it back (rules 4, 11c, 12): the exact key, value bytes and headers plus pq-replay-of
 * and pq-message-key, audited, with a fresh budget. It authenticates as the mapping does: through
 * the broker's SASL_SSL listener with the mapping's secret (SCRAM-SHA-512 or PLAIN, from moto's
 * Secrets Manager), trusting its CA as NODE_EXTRA_CA_CERTS would. Where it cannot be produced
 * (the cluster unreachable, not named or refusing the credentials, a mapping pq cannot follow,
 * the record refused by the broker) nothing is replayed and the record stays open.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';
import * as tls from 'node:tls';
import { promisify } from 'node:util';
import type { SourceAccessType } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KAFKA_REPLAY_HEADERS } from '../../contract/sources';
import { type CliHarness, MOTO_CALLER, startCliHarness } from './support/cli-harness';
import { type KafkaCli, type KafkaRecordBytes, type SeededKafka, startKafkaCli } from './support/kafka-cli';

/** The broker starts in seconds idle, the pipeline in a minute on two busy cores. */
const SETUP_TIMEOUT_MS = 300_000;
const TOPIC = 'orders';
/** The user the consumer's mapping authenticates as, on the broker's SASL_SSL listener. */
const USER = { name: 'pq-orders', password: 'orders-secret-1' };
const CREDENTIALS = JSON.stringify({ username: USER.name, password: USER.password });
const MSK_ARN = 'arn:aws:kafka:us-east-1:123456789012:cluster/orders/0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e-2';
const ROOT = path.join(__dirname, '..', '..');

let cli: CliHarness;
let kafka: KafkaCli;
/** The Kafka consumer whose PQ_KAFKA_CLUSTER is the broker's bootstrap servers. */
let consumer: string;

beforeAll(async () => {
  cli = await startCliHarness();
  kafka = await startKafkaCli(cli, { saslUsers: [USER] });
  await kafka.createTopic(TOPIC, 3);
  consumer = await kafka.consumer(kafka.broker.bootstrap, TOPIC);
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await kafka?.stop();
  await cli?.stop();
}, SETUP_TIMEOUT_MS);

const pq = (...argv: string[]) => kafka.run(consumer, ...argv);

/** A keyed text record whose headers repeat a name and hold a binary value. */
const textRecord = (): KafkaRecordBytes => ({
  key: Buffer.from('order-7'),
  value: Buffer.from('{"order": 7, "city": "Zürich"}'),
  headers: [
    ['trace', Buffer.from([1, 0, 255])],
    ['tenant', Buffer.from('acme')],
    ['trace', Buffer.from('second')],
  ],
});

function seed(record = textRecord(), partition = 1): Promise<SeededKafka> {
  return kafka.quarantine(TOPIC, partition, record, kafka.broker.bootstrap);
}

const auditOf = async (id: string) =>
  (await cli.records.get(id))?.audit.map(({ who, what, why }) => ({ who, what, why }));

/** What a replay must produce: the original's key, value and headers, then the replay's two headers. */
function replayOf(seeded: SeededKafka) {
  const { key, value, headers } = seeded.original;
  return {
    key,
    value,
    headers: [
      ...headers,
      [KAFKA_REPLAY_HEADERS.replayOf, Buffer.from(seeded.id)],
      [KAFKA_REPLAY_HEADERS.messageKey, Buffer.from(seeded.messageKey)],
    ],
  };
}

/** The record as it must be when nothing was replayed: open, these audit entries, its ledger item quarantined by it. */
async function expectUntouched(seeded: SeededKafka, audit: readonly { what: string }[]) {
  const record = await cli.records.get(seeded.id);
  expect(record?.status).toBe('open');
  expect(record?.audit.map(({ what }) => ({ what }))).toStrictEqual(audit);
  expect(await cli.ledger.get(seeded.messageKey)).toMatchObject({
    state: 'quarantined',
    quarantineId: seeded.id,
  });
}

describe('pq list, find and show: where a Kafka record came from, its key and headers', () => {
  it('given a text record, then its topic, partition, offset and key in list and find, and in show the headers and the value as text', async () => {
    // Prepare
    const seeded = await seed();
    const offset = String(seeded.original.offset);

    // Act
    const list = await pq('list');
    const listJson = await pq('list', '--json');
    const find = await pq('find', '--message-id', `${TOPIC}-1-${offset}`);
    const show = await pq('show', seeded.id);

    // Assess
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /^ID +STATUS +REASON +QUARANTINED +ATT\/CHG +TOPIC +PARTITION +OFFSET +KEY +CAUSE/,
    );
    expect(list.stdout).toMatch(
      new RegExp(
        `^${seeded.id} +open +crash-limit +\\S+ +3/3 +orders +1 +${offset} +"order-7" +unidentified`,
        'm',
      ),
    );
    const listed = (JSON.parse(listJson.stdout) as { records: { id: string; kafka?: object }[] }).records;
    expect(listed.find((record) => record.id === seeded.id)?.kafka).toMatchObject({
      topic: TOPIC,
      partition: 1,
      offset: Number(offset),
      key: { text: 'order-7' },
    });
    expect(find.stdout).toMatch(new RegExp(`^${seeded.id} +open .* orders +1 +${offset} +"order-7"`, 'm'));
    expect(show).toMatchObject({ code: 0, stderr: '' });
    expect(show.stdout).toMatch(
      new RegExp(
        `^Source cluster: +${kafka.broker.bootstrap.replace(/\./g, '\\.')}\\nTopic: +orders\\nPartition: +1 \\(its order was broken: the partition moved on\\)\\nOffset: +${offset}\\nTimestamp: +\\S+ \\(CREATE_TIME\\)\\nKey: +"order-7"$`,
        'm',
      ),
    );
    expect(show.stdout).toContain(
      '\nHeaders\nNAME    VALUE\ntrace   (base64) AQD/\ntenant  acme\ntrace   second\n',
    );
    expect(show.stdout).toContain(
      `printed as text\n-----BEGIN BODY-----\n{"order": 7, "city": "Zürich"}\n-----END BODY-----\n`,
    );
    expect(show.stdout).not.toMatch(/Source queue|FIFO group|Message attributes/);
  });

  it('given a binary key and value, then both base64, and show says the body is printed so', async () => {
    // Prepare
    const seeded = await seed({
      key: Buffer.from([0x6b, 0x00, 0xff]),
      value: Buffer.from([0x7b, 0xff, 0x00, 0xfe]),
      headers: [],
    });

    // Act
    const show = await pq('show', seeded.id);
    const json = JSON.parse((await pq('show', seeded.id, '--json')).stdout) as Record<string, unknown>;

    // Assess
    expect(show.stdout).toMatch(/^Key: +\(base64\) awD\/$/m);
    expect(show.stdout).toContain('\nHeaders\n(none)\n');
    expect(show.stdout).toMatch(
      /Body \(the record's value\): 4 bytes, sha256 [0-9a-f]{64}, printed as base64 \(not printable UTF-8 text\)\n-----BEGIN BODY \(base64\)-----\ne\/8A\/g==\n-----END BODY-----\n/,
    );
    expect(json.kafka).toMatchObject({ key: { base64: 'awD/' }, headers: [] });
    expect(json.body).toMatchObject({ bytes: 4, base64: 'e/8A/g==' });
  });
});

describe('pq replay of a Kafka record', () => {
  it('given no cause, then it is refused (exit 2): nothing is produced and nothing changes', async () => {
    // Prepare
    const seeded = await seed();
    const before = await kafka.endOffsets(TOPIC);

    // Act
    const replay = await pq('replay', seeded.id);

    // Assess
    expect(replay).toStrictEqual({
      code: 2,
      stdout: '',
      stderr: `pq replay: refused: record ${seeded.id}: no cause is recorded yet: run pq cause ${seeded.id} "what went wrong" first\n`,
    });
    expect(await kafka.endOffsets(TOPIC)).toStrictEqual(before);
    await expectUntouched(seeded, []);
  });

  it('given a cause, then the dry run says what it would produce and produces nothing; the replay produces the exact record with the replay headers, audited, with a fresh budget', async () => {
    // Prepare
    const seeded = await seed();
    await pq('cause', seeded.id, 'consumer rejected the city field (INC-38)');
    const before = await kafka.endOffsets(TOPIC);

    // Act
    const dryRun = await pq('replay', seeded.id, '--dry-run');
    const afterDryRun = await kafka.endOffsets(TOPIC);
    const replay = await pq('replay', seeded.id, '--reason', 'city field fixed');

    // Assess
    expect(dryRun.code).toBe(0);
    expect(dryRun.stdout).toMatch(
      new RegExp(
        `^${seeded.id} +would replay +cause: consumer rejected the city field \\(INC-38\\); would produce to topic orders partition 1: key "order-7", 31-byte value, headers trace, tenant, trace, pq-replay-of, pq-message-key$`,
        'm',
      ),
    );
    expect(afterDryRun).toStrictEqual(before);
    const offset = before[1] as bigint;
    expect(replay).toStrictEqual({
      code: 0,
      stdout: `Replayed ${seeded.id} as Kafka record orders-1-${offset} (ledger generation 1: a fresh attempt budget). Status: replayed.\n`,
      stderr: '',
    });
    const [produced] = await kafka.read(TOPIC, 1, offset, 1);
    expect(produced && { key: produced.key, value: produced.value, headers: produced.headers }).toStrictEqual(
      replayOf(seeded),
    );
    expect(await cli.ledger.get(seeded.messageKey)).toMatchObject({
      state: 'ready',
      generation: 1,
      charged: 0,
    });
    expect((await cli.records.get(seeded.id))?.status).toBe('replayed');
    expect(await auditOf(seeded.id)).toStrictEqual([
      {
        who: MOTO_CALLER,
        what: 'set-cause "consumer rejected the city field (INC-38)"',
        why: 'identified the cause',
      },
      { who: MOTO_CALLER, what: 'replay-started', why: 'city field fixed' },
      { who: MOTO_CALLER, what: 'replay', why: 'city field fixed' },
    ]);
  });

  it('given --replay-topic, then the record goes to that topic, where its key puts it', async () => {
    // Prepare
    await kafka.createTopic('orders-replay', 1);
    const seeded = await seed();
    await pq('cause', seeded.id, 'replaying to a quarantine topic');

    // Act
    const replay = await pq('replay', seeded.id, '--replay-topic', 'orders-replay');

    // Assess
    expect(replay.stdout).toMatch(new RegExp(`^Replayed ${seeded.id} as Kafka record orders-replay-0-0 `));
    const [produced] = await kafka.read('orders-replay', 0, 0n, 1);
    expect(produced && { key: produced.key, value: produced.value, headers: produced.headers }).toStrictEqual(
      replayOf(seeded),
    );
  });

  it('given replay frozen, then it is refused (rule 11c) and nothing is produced', async () => {
    // Prepare
    const seeded = await seed();
    await pq('cause', seeded.id, 'known bug');
    await pq('freeze', '--reason', 'fix not deployed');
    const before = await kafka.endOffsets(TOPIC);

    // Act
    const replay = await pq('replay', seeded.id);
    await pq('unfreeze', '--reason', 'done');

    // Assess
    expect(replay).toMatchObject({ code: 2, stderr: expect.stringContaining('replay is frozen') });
    expect(await kafka.endOffsets(TOPIC)).toStrictEqual(before);
    await expectUntouched(seeded, [{ what: 'set-cause "known bug"' }]);
  });

  it('given a cluster that cannot be reached, then the replay and its dry run fail (exit 1) and the record is as it was', async () => {
    // Prepare
    const unreachable = await kafka.consumer(`127.0.0.1:${await closedPort()}`, TOPIC);
    const seeded = await seed();
    await kafka.run(unreachable, 'cause', seeded.id, 'INC-40');
    const before = await kafka.endOffsets(TOPIC);

    // Act
    const dryRun = await kafka.run(unreachable, 'replay', seeded.id, '--dry-run');
    const replay = await kafka.run(unreachable, 'replay', seeded.id);

    // Assess
    await expectUntouched(seeded, [{ what: 'set-cause "INC-40"' }]);
    expect(await kafka.endOffsets(TOPIC)).toStrictEqual(before);
    for (const run of [dryRun, replay]) {
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /^pq replay: failed: KafkaTopicError: Kafka cluster 127\.0\.0\.1:\d+: metadata of topic orders failed: .*Connection to 127\.0\.0\.1:\d+ failed/,
      );
    }
  });

  it('given a record the broker refuses (larger than the topic takes), then the claim is released and the ledger quarantined again: open, nothing replayed', async () => {
    // Prepare: a topic that takes 2 MB, a replay topic that takes the broker's default (1 MB).
    await kafka.createTopic('orders-large', 3, { 'max.message.bytes': '2000000' });
    await kafka.createTopic('orders-small', 1);
    const seeded = await kafka.quarantine(
      'orders-large',
      0,
      { key: Buffer.from('order-9'), value: Buffer.alloc(1_200_000, 0x61), headers: [] },
      kafka.broker.bootstrap,
    );
    await pq('cause', seeded.id, 'INC-41');

    // Act
    const replay = await pq('replay', seeded.id, '--replay-topic', 'orders-small', '--reason', 'try');

    // Assess
    expect(replay.code).toBe(1);
    expect(replay.stderr).toMatch(
      /^pq replay: failed: KafkaTopicError: Kafka cluster \S+: produce to topic orders-small failed: .*MESSAGE_TOO_LARGE/,
    );
    expect(await kafka.endOffsets('orders-small', 1)).toStrictEqual([0n]);
    await expectUntouched(seeded, [
      { what: 'set-cause "INC-41"' },
      { what: 'replay-started' },
      { what: 'replay-aborted' },
    ]);
  });
});

describe("pq replay authenticating as the consumer's mapping does", () => {
  /** The broker's SASL_SSL listener, which a consumer whose mapping holds a secret reads. */
  const saslListener = () => kafka.broker.saslListener ?? { bootstrap: '', caFile: '' };
  const nodeCas = tls.getCACertificates('default');

  /** A consumer whose mapping authenticates with `type` and a secret holding `text`. */
  async function authenticated(
    type: SourceAccessType,
    text = CREDENTIALS,
    cluster = saslListener().bootstrap,
  ) {
    const secret = await kafka.secret(text);
    return {
      consumer: await kafka.consumer(cluster, TOPIC, { access: [{ Type: type, URI: secret }] }),
      secret,
    };
  }

  /** A record seeded and given a cause through `consumer`, and where its topic ends now. */
  async function caused(consumer: string) {
    const seeded = await seed();
    await kafka.run(consumer, 'cause', seeded.id, 'INC-42');
    return { seeded, before: await kafka.endOffsets(TOPIC) };
  }

  /** The replay produced, read back: the exact record with the replay's headers. */
  async function expectReplayed(seeded: SeededKafka, before: readonly bigint[]) {
    const [produced] = await kafka.read(TOPIC, 1, before[1] as bigint, 1);
    expect(produced && { key: produced.key, value: produced.value, headers: produced.headers }).toStrictEqual(
      replayOf(seeded),
    );
    expect((await cli.records.get(seeded.id))?.status).toBe('replayed');
  }

  it("given the brokers' certificate of a CA Node.js does not trust, then TLS fails saying how to trust it, and nothing is produced", async () => {
    // Prepare
    const { consumer } = await authenticated('SASL_SCRAM_512_AUTH');
    const { seeded, before } = await caused(consumer);

    // Act
    const replay = await kafka.run(consumer, 'replay', seeded.id);

    // Assess
    expect(replay.code).toBe(1);
    expect(replay.stderr).toContain(
      `pq replay: failed: KafkaTopicError: Kafka cluster ${saslListener().bootstrap}: metadata of topic orders failed: the brokers' TLS certificate is not signed by a CA Node.js trusts (NODE_EXTRA_CA_CERTS=FILE adds the CAs of a PEM file): `,
    );
    expect(replay.stderr).toContain('self-signed certificate');
    expect(await kafka.endOffsets(TOPIC)).toStrictEqual(before);
    await expectUntouched(seeded, [{ what: 'set-cause "INC-42"' }]);
  });

  it('given the CA in NODE_EXTRA_CA_CERTS, then pq as a process trusts it and produces the replay through SCRAM', async () => {
    // Prepare
    const { consumer } = await authenticated('SASL_SCRAM_512_AUTH');
    const { seeded, before } = await caused(consumer);
    const { endpoint, region } = cli.pipeline.aws;

    // Act
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        'bin/pq.ts',
        'replay',
        seeded.id,
        '--function',
        consumer,
        '--endpoint-url',
        endpoint,
        '--region',
        region,
      ],
      { cwd: ROOT, env: { ...process.env, NODE_EXTRA_CA_CERTS: saslListener().caFile }, timeout: 60_000 },
    );

    // Assess
    expect(stdout).toMatch(new RegExp(`^Replayed ${seeded.id} as Kafka record orders-1-${before[1]} `));
    await expectReplayed(seeded, before);
  });

  describe('with the CA trusted (tls.setDefaultCACertificates: NODE_EXTRA_CA_CERTS in this process)', () => {
    beforeAll(() => tls.setDefaultCACertificates([...nodeCas, readFileSync(saslListener().caFile, 'utf8')]));
    afterAll(() => tls.setDefaultCACertificates(nodeCas));

    it('given a SASL_SCRAM_512_AUTH mapping, then the replay reads its secret and produces the exact record through SCRAM-SHA-512 over TLS', async () => {
      // Prepare
      const { consumer } = await authenticated('SASL_SCRAM_512_AUTH');
      const { seeded, before } = await caused(consumer);

      // Act
      const dryRun = await kafka.run(consumer, 'replay', seeded.id, '--dry-run');
      const replay = await kafka.run(consumer, 'replay', seeded.id, '--reason', 'fixed');

      // Assess
      expect(dryRun).toMatchObject({ code: 0, stderr: '' });
      expect(replay).toStrictEqual({
        code: 0,
        stdout: `Replayed ${seeded.id} as Kafka record orders-1-${before[1]} (ledger generation 1: a fresh attempt budget). Status: replayed.\n`,
        stderr: '',
      });
      await expectReplayed(seeded, before);
    });

    it('given a BASIC_AUTH mapping, then the replay produces through SASL/PLAIN over TLS', async () => {
      // Prepare
      const { consumer } = await authenticated('BASIC_AUTH');
      const { seeded, before } = await caused(consumer);

      // Act
      const replay = await kafka.run(consumer, 'replay', seeded.id);

      // Assess
      expect(replay).toMatchObject({ code: 0, stderr: '' });
      await expectReplayed(seeded, before);
    });

    it('given a secret with the wrong password, then the replay and its dry run fail saying the authentication failed, and nothing is produced', async () => {
      // Prepare
      const { consumer } = await authenticated(
        'SASL_SCRAM_512_AUTH',
        JSON.stringify({ username: USER.name, password: 'not-the-password' }),
      );
      const { seeded, before } = await caused(consumer);

      // Act
      const dryRun = await kafka.run(consumer, 'replay', seeded.id, '--dry-run');
      const replay = await kafka.run(consumer, 'replay', seeded.id);

      // Assess
      for (const run of [dryRun, replay]) {
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(
          new RegExp(
            `^pq replay: failed: KafkaTopicError: Kafka cluster ${saslListener().bootstrap.replace(/\./g, '\\.')}: metadata of topic orders failed: authentication failed \\(SASL/SCRAM-SHA-512 as pq-orders\\): .*SASL_AUTHENTICATION_FAILED \\(Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512\\)\n$`,
          ),
        );
      }
      expect(await kafka.endOffsets(TOPIC)).toStrictEqual(before);
      await expectUntouched(seeded, [{ what: 'set-cause "INC-42"' }]);
    });

    it('given a secret that is not the JSON Lambda reads, then it says so without quoting it, and nothing changes', async () => {
      // Prepare
      const { consumer, secret } = await authenticated('SASL_SCRAM_512_AUTH', USER.password);
      const { seeded } = await caused(consumer);

      // Act
      const replay = await kafka.run(consumer, 'replay', seeded.id);

      // Assess
      expect(replay).toStrictEqual({
        code: 1,
        stdout: '',
        stderr: `pq replay: failed: KafkaTopicError: Kafka cluster ${saslListener().bootstrap}: the mapping's secret ${secret} holds no JSON {"username": "...", "password": "..."} as Lambda expects\n`,
      });
      await expectUntouched(seeded, [{ what: 'set-cause "INC-42"' }]);
    });

    it('given an MSK consumer whose mapping holds a SCRAM secret, and --kafka-bootstrap, then the replay goes there through SCRAM without a broker lookup', async () => {
      // Prepare
      const { consumer } = await authenticated('SASL_SCRAM_512_AUTH', CREDENTIALS, MSK_ARN);
      const { seeded, before } = await caused(consumer);

      // Act
      const replay = await kafka.run(
        consumer,
        'replay',
        seeded.id,
        '--kafka-bootstrap',
        saslListener().bootstrap,
      );

      // Assess
      expect(replay).toMatchObject({ code: 0, stderr: '' });
      await expectReplayed(seeded, before);
    });
  });

  it('given an MSK consumer authenticating with IAM, then pq asks kafka:GetBootstrapBrokers (which moto lacks), fails naming the cluster and the call, and changes nothing', async () => {
    // Prepare
    const consumer = await kafka.consumer(MSK_ARN, TOPIC);
    const { seeded } = await caused(consumer);

    // Act
    const replay = await kafka.run(consumer, 'replay', seeded.id);

    // Assess
    expect(replay.code).toBe(1);
    expect(replay.stderr).toMatch(
      new RegExp(
        `^pq replay: failed: KafkaTopicError: Kafka cluster ${MSK_ARN}: kafka:GetBootstrapBrokers failed: \\S+`,
      ),
    );
    await expectUntouched(seeded, [{ what: 'set-cause "INC-42"' }]);
  });

  it('given a mapping authenticating with a client certificate (mTLS), then pq says it does not support it, reads no secret and changes nothing', async () => {
    // Prepare
    const consumer = await kafka.consumer(saslListener().bootstrap, TOPIC, {
      access: [
        {
          Type: 'CLIENT_CERTIFICATE_TLS_AUTH',
          URI: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:none-AbCdEf',
        },
      ],
    });
    const { seeded } = await caused(consumer);

    // Act
    const replay = await kafka.run(consumer, 'replay', seeded.id);

    // Assess
    expect(replay).toStrictEqual({
      code: 1,
      stdout: '',
      stderr: `pq replay: failed: KafkaTopicError: Kafka cluster ${saslListener().bootstrap}: the consumer's event source mapping authenticates with mutual TLS with a client certificate (CLIENT_CERTIFICATE_TLS_AUTH), which pq does not support\n`,
    });
    await expectUntouched(seeded, [{ what: 'set-cause "INC-42"' }]);
  });

  it('given a consumer without an event source mapping, then pq says it cannot tell how to authenticate', async () => {
    // Prepare
    const consumer = await kafka.consumer(kafka.broker.bootstrap, TOPIC, 'none');
    const { seeded } = await caused(consumer);

    // Act
    const replay = await kafka.run(consumer, 'replay', seeded.id, '--dry-run');

    // Assess
    expect(replay).toMatchObject({
      code: 1,
      stderr: `pq replay: failed: KafkaTopicError: Kafka cluster ${kafka.broker.bootstrap}: Lambda lists no event source mapping of the consumer, so pq cannot tell how it authenticates to the cluster\n`,
    });
  });
});

describe('the rest of the operator commands on a Kafka consumer', () => {
  it('discards a Kafka record as any other; status names the topic and cluster instead of a queue', async () => {
    // Prepare
    const seeded = await seed();

    // Act
    const discard = await pq('discard', seeded.id, '--reason', 'order cancelled');
    const status = await pq('status');

    // Assess
    expect(discard.code).toBe(0);
    expect((await cli.records.get(seeded.id))?.status).toBe('resolved');
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(
      new RegExp(
        `^Source: +Kafka topic orders on ${kafka.broker.bootstrap.replace(/\./g, '\\.')} \\(no queue depth`,
        'm',
      ),
    );
    expect(status.stdout).not.toMatch(/^Queue:/m);
  });
});

/** A port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
