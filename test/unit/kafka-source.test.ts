/**
 * Issue 38: Lambda's Kafka event as the consumer reads it (lambdas/sources/kafka.ts), and the
 * answer that makes the mapping deliver again what stays; the SQS adapter beside it.
 */
import type { MSKEvent, SelfManagedKafkaEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { SourceEventError } from '../../lambdas/sources/errors';
import { kafkaRecords, kafkaSource, RecordsHeldError } from '../../lambdas/sources/kafka';
import { SQS_SOURCE } from '../../lambdas/sources/sqs';

const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64');
/** A value that is no UTF-8 at all, as a corrupted protobuf is. */
const CORRUPTED = Buffer.from([0x0a, 0xff, 0xfe, 0x00, 0xc3, 0x28]);

function event(): SelfManagedKafkaEvent {
  return {
    eventSource: 'SelfManagedKafka',
    bootstrapServers: 'b-1:9092',
    records: {
      'orders-1': [
        {
          topic: 'orders',
          partition: 1,
          offset: 8,
          timestamp: 1_700_000_000_001,
          timestampType: 'CREATE_TIME',
          key: b64('order-8'),
          value: b64('{"id":8}'),
          headers: [],
        },
        {
          topic: 'orders',
          partition: 1,
          offset: 7,
          timestamp: 1_700_000_000_000,
          timestampType: 'CREATE_TIME',
          key: b64('order-7'),
          value: b64(CORRUPTED),
          headers: [{ 'trace-id': [...Buffer.from('t-1')] }, { 'trace-id': [...Buffer.from('t-2')] }],
        },
      ],
      'orders-0': [
        {
          topic: 'orders',
          partition: 0,
          offset: 3,
          timestamp: 1_700_000_000_002,
          timestampType: 'LOG_APPEND_TIME',
          value: b64('{"id":3}'),
          headers: [],
        } as unknown as SelfManagedKafkaEvent['records'][string][number],
      ],
    },
  };
}

describe('kafkaRecords', () => {
  it('given a self-managed event, then each record is keyed topic-partition-offset, in offset order per partition', () => {
    // Act
    const records = kafkaRecords(event(), 'b-1:9092,b-2:9092');

    // Assess
    expect(records.map(({ messageId, orderGroup }) => [messageId, orderGroup])).toStrictEqual([
      ['orders-1-7', 'orders-1'],
      ['orders-1-8', 'orders-1'],
      ['orders-0-3', 'orders-0'],
    ]);
    expect(records.every((record) => record.eventSourceARN === 'b-1:9092,b-2:9092')).toBe(true);
  });

  it('given a value that is no UTF-8, then its exact bytes, key and every header are kept', () => {
    // Act
    const [corrupted] = kafkaRecords(event(), 'cluster');

    // Assess
    expect(Buffer.from(corrupted.exactBodyBase64 ?? '', 'base64')).toStrictEqual(CORRUPTED);
    expect(corrupted.receiptHandle).toBe('orders-1-7');
    expect(corrupted.attributes).toStrictEqual({
      topic: 'orders',
      partition: '1',
      offset: '7',
      timestamp: '1700000000000',
      timestampType: 'CREATE_TIME',
      key: b64('order-7'),
    });
    expect(corrupted.kafka?.headers).toStrictEqual([
      { name: 'trace-id', value: b64('t-1') },
      { name: 'trace-id', value: b64('t-2') },
    ]);
    expect(corrupted.messageAttributes).toStrictEqual({
      'trace-id': { stringValue: 't-2', dataType: 'String' },
    });
  });

  it('given a record without a key, then it has none', () => {
    // Act
    const records = kafkaRecords(event(), 'cluster');

    // Assess
    const unkeyed = records.find((record) => record.messageId === 'orders-0-3');
    expect(unkeyed?.kafka?.key).toBeUndefined();
    expect(unkeyed?.attributes).not.toHaveProperty('key');
    expect(unkeyed?.body).toBe('{"id":3}');
  });

  it('given an MSK event, then its cluster ARN is the source', () => {
    // Prepare
    const msk: MSKEvent = {
      ...(event() as unknown as MSKEvent),
      eventSource: 'aws:kafka',
      eventSourceArn: 'arn:aws:kafka:eu-west-1:123456789012:cluster/orders/abc',
    };

    // Act
    const records = kafkaRecords(msk, 'not this');

    // Assess
    expect(records[0]?.eventSourceARN).toBe('arn:aws:kafka:eu-west-1:123456789012:cluster/orders/abc');
  });

  it('given an SQS event, then the Kafka adapter refuses it whole, and the SQS adapter refuses a Kafka event', () => {
    // Act + Assess
    expect(() => kafkaRecords({ Records: [] } as unknown as SelfManagedKafkaEvent, 'c')).toThrow(
      SourceEventError,
    );
    expect(() => SQS_SOURCE.records(event() as never)).toThrow(/reads a sqs source but was invoked with/);
  });
});

describe('kafkaSource respond', () => {
  const clock = (ms: number) => ({ getRemainingTimeInMillis: () => ms });

  it('given nothing stays, then the batch succeeds and nothing waits', async () => {
    // Prepare
    const sleep = vi.fn(async () => undefined);
    const { port, queue } = kafkaSource({ cluster: 'c', marginMs: 1000, sleep });
    port.records(event());
    await queue.delay('orders-1-7', 30);

    // Act
    const answer = await port.respond([], clock(10_000));

    // Assess
    expect(answer).toStrictEqual({ batchItemFailures: [] });
    expect(sleep).not.toHaveBeenCalled();
  });

  it('given records stay with a hand-back delay, then it waits what the invocation allows and fails the batch', async () => {
    // Prepare
    const sleep = vi.fn(async () => undefined);
    const { port, queue } = kafkaSource({ cluster: 'c', marginMs: 1000, sleep });
    const records = port.records(event());
    await queue.delay('orders-1-7', 4);
    await queue.delay('orders-1-8', 30);

    // Act
    const answer = port.respond(records, clock(10_000));

    // Assess: 30 s asked, 10 s left, 1 s kept for the answer.
    await expect(answer).rejects.toThrow(RecordsHeldError);
    await expect(answer).rejects.toThrow(/3 record\(s\) stay at the source \(from orders-1-7, orders-0-3\)/);
    expect(sleep).toHaveBeenCalledWith(9000);
  });

  it("given the next invocation, then the last one's delay is forgotten", async () => {
    // Prepare
    const sleep = vi.fn(async () => undefined);
    const { port, queue } = kafkaSource({ cluster: 'c', marginMs: 1000, sleep });
    port.records(event());
    await queue.delay('orders-1-7', 30);
    const records = port.records(event());

    // Act
    await expect(port.respond(records, clock(10_000))).rejects.toThrow(RecordsHeldError);

    // Assess
    expect(sleep).not.toHaveBeenCalled();
  });
});
