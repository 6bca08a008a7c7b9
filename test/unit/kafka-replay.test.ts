/**
 * Issue 38 item 3, the pure parts: how a quarantined Kafka record is read back from its envelope,
 * the record its replay produces (exact key, value and headers, plus the replay's two), the
 * refusals before anything changes, how brokers are written, and how keys and headers show
 * (where pq finds the brokers and how it authenticates: kafka-access.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { bytesLine, bytesText } from '../../cli/body';
import { bootstrapOption, parseBootstrap } from '../../cli/kafka-cluster';
import { describeProduce, produceSummary } from '../../cli/kafka-replay';
import { kafkaCoordinates, kafkaView, keyLine } from '../../cli/kafka-view';
import { KAFKA_REPLAY_HEADERS } from '../../contract/sources';
import { clientSupports, describeKafkaError } from '../../lambdas/adapters/kafka-topic';
import {
  isKafkaTopicName,
  kafkaEvidenceOf,
  kafkaReplayRecord,
  type QuarantinedKafkaRecord,
  refusalByKafka,
} from '../../lambdas/core/kafka-replay';

const b64 = (bytes: string | number[]) =>
  (typeof bytes === 'string' ? Buffer.from(bytes) : Buffer.from(bytes)).toString('base64');

/** The envelope's `kafka` as lambdas/consumer/quarantine-step.ts writes it (the value is the body). */
const stored = {
  topic: 'orders',
  partition: 2,
  offset: 17,
  timestamp: 1_893_456_000_000,
  timestampType: 'CREATE_TIME',
  key: b64('order-7'),
  headers: [
    { name: 'trace', value: b64([1, 0, 255]) },
    { name: 'tenant', value: b64('acme') },
    { name: 'trace', value: b64('second') },
  ],
};

const original: QuarantinedKafkaRecord = stored;
const marks = { replayOf: 'q-abc-g0-a3', messageKey: 'orders-2-17' };

describe('kafkaEvidenceOf', () => {
  it('given an SQS envelope, then there is none', () => {
    expect(kafkaEvidenceOf({ messageAttributes: {} })).toBeUndefined();
  });

  it('given the envelope the consumer writes, then the record as stored, key and headers in base64', () => {
    expect(kafkaEvidenceOf({ messageAttributes: {}, kafka: stored })).toStrictEqual({
      ok: true,
      record: stored,
    });
  });

  it('given a record without a key, then no key', () => {
    const { key: _none, ...keyless } = stored;

    const evidence = kafkaEvidenceOf({ kafka: keyless });

    expect(evidence).toStrictEqual({ ok: true, record: keyless });
  });

  it('given a damaged kafka field, then every problem at once, never a guess', () => {
    expect(
      kafkaEvidenceOf({
        kafka: { topic: '', partition: -1, offset: '17', key: 'not base64!', headers: [{}] },
      }),
    ).toStrictEqual({
      ok: false,
      problem:
        'its kafka field has no topic, no partition, no offset, a key not in base64, headers not a list of {name, value}',
    });
    expect(kafkaEvidenceOf({ kafka: 'orders-2-17' })).toStrictEqual({
      ok: false,
      problem: 'its kafka field is not an object',
    });
  });
});

describe('kafkaEvidenceOf at its edges', () => {
  const headersProblem = { ok: false, problem: 'its kafka field has headers not a list of {name, value}' };

  it('given a null kafka field, then there is none, as for an SQS message', () => {
    expect(kafkaEvidenceOf({ kafka: null })).toBeUndefined();
  });

  it('given partition 0 and offset 0, then they are a record', () => {
    expect(kafkaEvidenceOf({ kafka: { ...stored, partition: 0, offset: 0 } })).toStrictEqual({
      ok: true,
      record: { ...stored, partition: 0, offset: 0 },
    });
  });

  it('given a topic that is no string, then no topic', () => {
    expect(kafkaEvidenceOf({ kafka: { ...stored, topic: 17 } })).toStrictEqual({
      ok: false,
      problem: 'its kafka field has no topic',
    });
  });

  it('given one bad header among good ones, then the headers are refused', () => {
    expect(kafkaEvidenceOf({ kafka: { ...stored, headers: [...stored.headers, {}] } })).toStrictEqual(
      headersProblem,
    );
  });

  it('given a header whose name or value is no string, then the headers are refused', () => {
    expect(kafkaEvidenceOf({ kafka: { ...stored, headers: [{ name: 7, value: 'YQ==' }] } })).toStrictEqual(
      headersProblem,
    );
    expect(kafkaEvidenceOf({ kafka: { ...stored, headers: [{ name: 'trace', value: 5 }] } })).toStrictEqual(
      headersProblem,
    );
  });
});

describe('kafkaReplayRecord', () => {
  it('given its own topic, then the exact key, value and headers in order (a repeat kept) at its partition, then the replay headers', () => {
    // Prepare
    const value = Buffer.from([0x7b, 0x00, 0xfe]);

    // Act
    const record = kafkaReplayRecord(original, value, marks);

    // Assess
    expect(record).toStrictEqual({
      topic: 'orders',
      partition: 2,
      key: Buffer.from('order-7'),
      value,
      headers: [
        ['trace', Buffer.from([1, 0, 255])],
        ['tenant', Buffer.from('acme')],
        ['trace', Buffer.from('second')],
        [KAFKA_REPLAY_HEADERS.replayOf, Buffer.from('q-abc-g0-a3')],
        [KAFKA_REPLAY_HEADERS.messageKey, Buffer.from('orders-2-17')],
      ],
    });
  });

  it("given a replay of a replay, then the earlier replay's headers are replaced, not repeated", () => {
    const replayed = {
      ...original,
      headers: [
        { name: 'pq-replay-of', value: b64('q-older') },
        { name: 'tenant', value: b64('acme') },
        { name: 'pq-message-key', value: b64('orders-2-17') },
      ],
    };

    const names = kafkaReplayRecord(replayed, Buffer.from('v'), marks).headers.map(([name]) => name);

    expect(names).toStrictEqual(['tenant', 'pq-replay-of', 'pq-message-key']);
  });

  it('given another topic, then the partitioner decides (no partition); given no key, then none', () => {
    const { key: _none, ...keyless } = original;

    const record = kafkaReplayRecord(keyless, Buffer.from('v'), marks, 'orders-replay');

    expect(record.topic).toBe('orders-replay');
    expect('partition' in record).toBe(false);
    expect('key' in record).toBe(false);
  });
});

describe('refusalByKafka', () => {
  const record = kafkaReplayRecord(original, Buffer.from('v'), marks);

  it('refuses a topic the cluster does not have, and a partition it does not have; takes the last partition', () => {
    expect(refusalByKafka(record, undefined)?.reason).toBe(
      'the cluster has no topic orders (a replay never creates one); nothing was produced',
    );
    expect(refusalByKafka(record, 2)?.reason).toBe(
      'topic orders has 2 partition(s), no partition 2 to produce the replay to; nothing was produced',
    );
    expect(refusalByKafka(record, 3)).toBeUndefined();
    expect(refusalByKafka({ ...record, partition: undefined }, 1)).toBeUndefined();
  });

  it('knows a topic name when it sees one', () => {
    expect(['orders', 'a.b_c-9', 'x'.repeat(249)].map(isKafkaTopicName)).toStrictEqual([true, true, true]);
    expect(['', '.', '..', 'a b', 'x'.repeat(250), 'ö'].map(isKafkaTopicName)).toStrictEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('bootstrap servers', () => {
  it('reads host:port lists and refuses anything else as a usage mistake', () => {
    expect(parseBootstrap('a:1,b.c:65535')).toStrictEqual(['a:1', 'b.c:65535']);
    expect(['a', 'a:0', 'a:65536', 'a:1,', 'http://a:1', ''].map(parseBootstrap)).toStrictEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(() => bootstrapOption('broker')).toThrow(
      "--kafka-bootstrap takes HOST:PORT[,HOST:PORT...], the brokers' addresses (given broker)",
    );
    expect(bootstrapOption(undefined)).toBeUndefined();
  });
});

describe('kafkaView', () => {
  const ids = { messageId: 'orders-2-17', messageGroupId: 'orders-2' };

  it('given the envelope, then topic, partition, offset, time, the key as text and each header as text or base64', () => {
    expect(kafkaView(ids, { kafka: stored })).toStrictEqual({
      topic: 'orders',
      partition: 2,
      offset: 17,
      timestamp: '2030-01-01T00:00:00.000Z',
      timestampType: 'CREATE_TIME',
      key: { text: 'order-7' },
      headers: [
        { name: 'trace', value: { base64: b64([1, 0, 255]) } },
        { name: 'tenant', value: { text: 'acme' } },
        { name: 'trace', value: { text: 'second' } },
      ],
    });
  });

  it('given a binary key, then base64 and said so; given none, then (none)', () => {
    const binary = kafkaView(ids, { kafka: { ...stored, key: b64([0x6b, 0x00, 0xff]) } });
    const { key: _none, ...keyless } = stored;

    expect(binary && keyLine(binary)).toBe('(base64) awD/');
    expect(keyLine(kafkaView(ids, { kafka: keyless }) ?? { topic: '', partition: 0, offset: 0 })).toBe(
      '(none)',
    );
  });

  it('given no envelope, then the topic, partition and offset from the ids, and why the key is not known', () => {
    const view = kafkaView({ messageId: 'orders-eu-2-17', messageGroupId: 'orders-eu-2' }, undefined);

    expect(view).toStrictEqual({
      topic: 'orders-eu',
      partition: 2,
      offset: 17,
      problem: 'the envelope is missing from the quarantine bucket',
    });
    expect(view && keyLine(view)).toBe('(not known: the envelope is missing from the quarantine bucket)');
    expect(kafkaCoordinates({ messageId: 'm-1', messageGroupId: undefined })).toBeUndefined();
    // An id shaped so, in another group (an SQS FIFO message), is no Kafka record's.
    expect(kafkaCoordinates({ messageId: 'order-2-17', messageGroupId: 'customers' })).toBeUndefined();
  });

  it('shows bytes as quoted text when printable, else base64 and says so', () => {
    expect(bytesLine(bytesText(Buffer.from('order "7"')))).toBe('"order \\"7\\""');
    expect(bytesLine(bytesText(Buffer.from('\u001b[2J')))).toBe('(base64) G1sySg==');
    expect(bytesLine(bytesText(Buffer.from([0xff])))).toBe('(base64) /w==');
  });
});

describe("the dry run's words and the client's errors", () => {
  it('says where the replay goes, with which key, how big, and every header', () => {
    const record = kafkaReplayRecord(original, Buffer.from('{"order":7}'), marks);

    expect(describeProduce(produceSummary({ kind: 'kafka', record }))).toBe(
      'would produce to topic orders partition 2: key "order-7", 11-byte value, headers trace, tenant, trace, pq-replay-of, pq-message-key',
    );
    expect(
      describeProduce(
        produceSummary({ kind: 'kafka', record: kafkaReplayRecord(original, Buffer.from(''), marks, 'x') }),
      ),
    ).toMatch(/^would produce to topic x \(partition by key\): key "order-7", 0-byte value/);
  });

  it("names the broker's error codes inside the client's nested errors, each once", () => {
    const protocol = Object.assign(new Error('The request included a message larger than the max.'), {
      apiId: 'MESSAGE_TOO_LARGE',
      serverErrorMessage: null,
    });
    const response = new AggregateError(
      [protocol],
      'Received response with error while executing API Produce(v11)',
    );
    const connect = new AggregateError(
      [new Error('Cannot connect to any broker.'), new Error('Cannot connect to any broker.')],
      'metadata failed 3 times.',
    );

    expect(describeKafkaError(new AggregateError([response], 'Producing messages failed.'))).toBe(
      'Producing messages failed: MESSAGE_TOO_LARGE (The request included a message larger than the max)',
    );
    expect(describeKafkaError(connect)).toBe('metadata failed 3 times: Cannot connect to any broker');
  });

  it('knows the Node.js versions the Kafka client runs on (its engines: 22.22, 24.6 or newer)', () => {
    expect(['22.22.0', '23.0.0', '24.6.0', '25.1.0'].map(clientSupports)).toStrictEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['20.19.0', '22.21.9', '24.5.0'].map(clientSupports)).toStrictEqual([false, false, false]);
  });
});
