/**
 * Issue 38 item 3: the console's page of a Kafka consumer's record shows where it came from
 * (cluster, topic, partition, offset), its key and its headers, as `pq show` does, instead of the
 * queue, the FIFO group and the message attributes.
 */
import { describe, expect, it } from 'vitest';
import { kafkaView } from '../../cli/kafka-view';
import { recordPage } from '../../console/pages/record';
import type { RecordDetail } from '../../console/reads';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';

const record: QuarantineRecord = {
  id: 'q-7cf7f9dc8fbda4e1-g0-a3',
  status: 'open',
  reason: 'crash-limit',
  cause: 'unidentified',
  messageKey: 'orders-2-17',
  messageId: 'orders-2-17',
  generation: 0,
  attemptsStarted: 3,
  attemptsCharged: 3,
  stage: 'parsed',
  errorSignature: 'crash:parsed',
  firstAttemptAt: '2030-01-01T00:00:00.000Z',
  lastAttemptAt: '2030-01-01T00:02:00.000Z',
  createdAt: '2030-01-01T00:03:00.000Z',
  sourceQueueArn: 'b-1.kafka.internal:9092',
  messageGroupId: 'orders-2',
  orderBroken: true,
  bodyKey: 'b',
  envelopeKey: 'e',
  bodyBytes: 3,
  audit: [],
};

const envelope = {
  messageId: 'orders-2-17',
  kafka: {
    topic: 'orders',
    partition: 2,
    offset: 17,
    timestamp: 1_893_456_000_000,
    timestampType: 'CREATE_TIME',
    key: Buffer.from('order-<7>').toString('base64'),
    headers: [
      { name: 'trace', value: Buffer.from([1, 0, 255]).toString('base64') },
      { name: 'tenant', value: Buffer.from('acme').toString('base64') },
    ],
  },
};

describe('the record page of a Kafka record', () => {
  it('given a Kafka record, then cluster, topic, partition (order broken), offset, key and headers; no queue, no FIFO group, no message attributes', async () => {
    // Prepare
    const kafka = kafkaView(record, envelope);
    const detail: RecordDetail = {
      record,
      ledger: undefined,
      envelope,
      body: Buffer.from([0x7b, 0xff, 0x7d]),
      verification: undefined,
      ...(kafka ? { kafka } : {}),
    };

    // Act
    const page = String(await recordPage(detail, undefined, new Date('2030-01-02T00:00:00.000Z')));

    // Assess
    expect(page).toContain('<dt>Source cluster</dt><dd>b-1.kafka.internal:9092</dd>');
    expect(page).toContain('<dt>Topic</dt><dd><code>orders</code></dd>');
    expect(page).toContain('<dt>Partition</dt><dd>2 (its order was broken: the partition moved on)</dd>');
    expect(page).toContain('<dt>Offset</dt><dd>17</dd>');
    // The key as text, escaped like every stored string.
    expect(page).toContain('<dt>Key</dt><dd><code>&quot;order-&lt;7&gt;&quot;</code></dd>');
    expect(page).toContain('<h2 id="headers">Headers</h2>');
    expect(page).toMatch(/<td>trace<\/td>\s*<td>\(base64\) AQD\/<\/td>/);
    expect(page).toMatch(/<td>tenant<\/td>\s*<td>&quot;acme&quot;<\/td>/);
    expect(page).not.toContain('Source queue');
    expect(page).not.toContain('FIFO group');
    expect(page).not.toContain('Message attributes');
  });
});
