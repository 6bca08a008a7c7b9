/**
 * QuarantineWriter (consumer) and QuarantineRecords (operator) against the deployed bucket and
 * quarantine table in moto: content byte for byte, create-once writes, records by status, a
 * task token that only `taskTokenOf` ever returns, and rule 11a's open-record count moving with
 * every record write, exactly once.
 */

import { randomUUID } from 'node:crypto';
import {
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { HeadObjectCommand, ListObjectVersionsCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPEN_RECORDS_COUNTER } from '../../contract/quarantine';
import { COUNTER_KEY } from '../../lambdas/adapters/open-records';
import { QuarantineRecords } from '../../lambdas/adapters/quarantine-reader';
import { QuarantineWriter, quarantineObjectKeys } from '../../lambdas/adapters/quarantine-writer';
import { ReplayClaims } from '../../lambdas/adapters/replay-claims';
import type { NewQuarantineRecord } from '../../lambdas/core/quarantine-record';
import {
  QuarantineNotFoundError,
  QuarantineStatusConflictError,
  QuarantineWriteError,
} from '../../lambdas/ports/errors';
import { LOCAL_CREDENTIALS } from '../../tools/local-aws/moto';
import { aQuarantineRecord } from '../support/quarantine-record';
import { type AdapterPipeline, startPipeline } from './support/pipeline';

const MIB = 1_048_576;

let pipeline: AdapterPipeline;
let writer: QuarantineWriter;
let records: QuarantineRecords;

beforeAll(async () => {
  pipeline = await startPipeline();
  const { s3, dynamodb } = pipeline.clients;
  const { quarantineBucket, quarantineTable } = pipeline.names;
  writer = new QuarantineWriter(s3, dynamodb, quarantineBucket, quarantineTable);
  records = new QuarantineRecords(s3, dynamodb, quarantineBucket, quarantineTable);
});
afterAll(async () => pipeline?.stop());

function newRecord(overrides: Partial<NewQuarantineRecord> = {}): NewQuarantineRecord {
  return aQuarantineRecord(pipeline.names.sourceQueueArn, overrides);
}

async function versionsOf(key: string) {
  const { Versions } = await pipeline.clients.s3.send(
    new ListObjectVersionsCommand({ Bucket: pipeline.names.quarantineBucket, Prefix: key }),
  );
  return (Versions ?? []).filter((version) => version.Key === key);
}

describe('content', () => {
  it.each([
    ['non-JSON text', '{"order": 12, "items": [ <- truncated'],
    [
      'non-ASCII text with line breaks',
      'Grüße, 日本語, emoji 😀\r\n\ttab, combining é, nbsp\u00a0, bom \ufeff',
    ],
    ['a 1 MiB body of two-byte characters', 'é'.repeat(MIB / 2)],
  ])('keeps %s byte for byte', async (_, body) => {
    const id = `q-content-${randomUUID()}`;

    const written = await writer.putContent(id, { body, envelope: { messageId: 'm-1' } });
    const read = await records.readBody(id);

    expect(Buffer.compare(read, Buffer.from(body, 'utf8'))).toBe(0);
    expect(read.toString('utf8')).toBe(body);
    expect(written).toStrictEqual({
      ...quarantineObjectKeys(id),
      bodyBytes: Buffer.byteLength(body, 'utf8'),
    });
    const head = await pipeline.clients.s3.send(
      new HeadObjectCommand({ Bucket: pipeline.names.quarantineBucket, Key: written.bodyKey }),
    );
    expect(head.ContentLength).toBe(written.bodyBytes);
  });

  it('writes the 1 MiB body as exactly 1 MiB', async () => {
    const id = `q-mib-${randomUUID()}`;

    const written = await writer.putContent(id, { body: 'x'.repeat(MIB), envelope: {} });

    expect(written.bodyBytes).toBe(MIB);
    expect((await records.readBody(id)).length).toBe(MIB);
  });

  it('keeps the envelope as JSON', async () => {
    const id = `q-envelope-${randomUUID()}`;
    const envelope = {
      messageId: 'm-1',
      attributes: { ApproximateReceiveCount: '4' },
      messageAttributes: { tenant: { dataType: 'String', stringValue: 'ü-1' } },
      lastError: null,
    };

    await writer.putContent(id, { body: 'b', envelope });

    expect(await records.readEnvelope(id)).toStrictEqual(envelope);
  });

  it('finishes, never overwrites, on a retry with the same id', async () => {
    const id = `q-retry-${randomUUID()}`;
    const { bodyKey, envelopeKey } = quarantineObjectKeys(id);
    await writer.putContent(id, { body: 'first', envelope: { try: 1 } });

    await writer.putContent(id, { body: 'second', envelope: { try: 2 } });

    expect((await records.readBody(id)).toString('utf8')).toBe('first');
    expect(await records.readEnvelope(id)).toStrictEqual({ try: 1 });
    expect(await versionsOf(bodyKey)).toHaveLength(1);
    expect(await versionsOf(envelopeKey)).toHaveLength(1);
  });

  it('reports missing content as QuarantineNotFoundError', async () => {
    await expect(records.readBody(`q-missing-${randomUUID()}`)).rejects.toBeInstanceOf(
      QuarantineNotFoundError,
    );
  });

  it('turns a failed put into QuarantineWriteError (rule 11a stops the consumer on it)', async () => {
    const broken = new QuarantineWriter(
      pipeline.clients.s3,
      pipeline.clients.dynamodb,
      'no-such-bucket',
      pipeline.names.quarantineTable,
    );

    const put = broken.putContent('q-1', { body: 'b', envelope: {} });

    await expect(put).rejects.toBeInstanceOf(QuarantineWriteError);
    await expect(put).rejects.toMatchObject({ cause: { name: 'NoSuchBucket' } });
  });
});

describe('records', () => {
  it('creates a record once; a retry leaves what is there, even after an operator moved it on', async () => {
    const record = newRecord({
      reason: 'permanent-error',
      lastError: {
        class: 'permanent',
        name: 'SyntaxError',
        message: 'Unexpected token <',
        stackHead: 'at JSON.parse',
      },
      external: { name: 'ship', status: 'pending', idempotencyKey: 'ik-1', at: '2030-01-01T00:04:00.000Z' },
      messageGroupId: 'group-1',
      orderBroken: true,
    });

    expect(await writer.putRecord(record)).toStrictEqual({ created: true });
    await records.setStatus(record.id, 'resolved', {
      who: 'bob',
      when: new Date('2030-01-02T00:00:00Z'),
      why: 'fixed',
    });
    expect(await writer.putRecord(record)).toStrictEqual({ created: false });

    expect(await records.get(record.id)).toStrictEqual({
      ...record,
      status: 'resolved',
      audit: [{ who: 'bob', when: '2030-01-02T00:00:00.000Z', what: 'set-status resolved', why: 'fixed' }],
    });
  });

  it('never returns the task token except through taskTokenOf', async () => {
    const record = newRecord({ status: 'awaiting-operator', reason: 'outcome-unknown' });
    await writer.putRecord(record);
    await pipeline.clients.dynamodb.send(
      new UpdateItemCommand({
        TableName: pipeline.names.quarantineTable,
        Key: { id: { S: record.id } },
        UpdateExpression: 'SET taskToken = :token',
        ExpressionAttributeValues: { ':token': { S: 'secret-token' } },
      }),
    );

    const got = await records.get(record.id);
    const listed = await records.list({ status: 'awaiting-operator' });
    const updated = await records.appendAudit(record.id, {
      who: 'a',
      when: new Date(),
      what: 'looked',
      why: 'triage',
    });

    for (const seen of [got, ...listed, updated]) expect(JSON.stringify(seen)).not.toContain('secret-token');
    expect(await records.taskTokenOf(record.id)).toBe('secret-token');
    expect(await records.taskTokenOf(newRecord().id)).toBeUndefined();
  });

  it('lists by status, newest first, from a time, up to a limit', async () => {
    const status = 'replayed' as const;
    const created = ['2031-01-01', '2031-01-03', '2031-01-02', '2031-01-04'].map((day) =>
      newRecord({ createdAt: `${day}T00:00:00.000Z` }),
    );
    for (const record of created) {
      await writer.putRecord(record);
      await records.setStatus(record.id, status, { who: 'op', when: new Date(), why: 'test' });
    }

    const all = await records.list({ status });
    const recent = await records.list({ status, since: new Date('2031-01-02T00:00:00Z') });
    const newest = await records.list({ status, limit: 2 });

    const days = (list: { createdAt: string }[]) => list.map((record) => record.createdAt.slice(0, 10));
    expect(days(all)).toStrictEqual(['2031-01-04', '2031-01-03', '2031-01-02', '2031-01-01']);
    expect(days(recent)).toStrictEqual(['2031-01-04', '2031-01-03', '2031-01-02']);
    expect(days(newest)).toStrictEqual(['2031-01-04', '2031-01-03']);
  });

  it('given DynamoDB ends each page early (its 1 MB limit), then list walks every page, up to its limit', async () => {
    // Resolved, from 2032 on: no other test's records.
    const status = 'resolved' as const;
    const since = new Date('2032-01-01T00:00:00Z');
    for (const day of ['2032-01-01', '2032-01-02', '2032-01-03', '2032-01-04', '2032-01-05']) {
      const record = newRecord({ createdAt: `${day}T00:00:00.000Z` });
      await writer.putRecord(record);
      await records.setStatus(record.id, status, { who: 'op', when: new Date(), why: 'test' });
    }
    // A client whose every Query returns at most two items, as a page cut at 1 MB would.
    const { endpoint, region } = pipeline.aws;
    const cut = new DynamoDBClient({ endpoint, region, credentials: LOCAL_CREDENTIALS });
    cut.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { Limit?: number };
        if (input.Limit === undefined || input.Limit > 2) input.Limit = 2;
        return next(args);
      },
      { step: 'initialize' },
    );
    const shortPages = new QuarantineRecords(
      pipeline.clients.s3,
      cut,
      pipeline.names.quarantineBucket,
      pipeline.names.quarantineTable,
    );

    const all = await shortPages.list({ status, since });
    const three = await shortPages.list({ status, since, limit: 3 });

    expect(all.map((record) => record.createdAt.slice(0, 10))).toStrictEqual([
      '2032-01-05',
      '2032-01-04',
      '2032-01-03',
      '2032-01-02',
      '2032-01-01',
    ]);
    expect(three).toHaveLength(3);
  });

  it('tells whether the open records reached a capacity (rule 11a), counting awaiting ones too', async () => {
    const unresolved = async () =>
      (await records.list({ status: 'open' })).length +
      (await records.list({ status: 'awaiting-operator' })).length;
    const before = await unresolved();

    expect(await writer.openRecordsAtLeast(before + 1)).toBe(false);
    await writer.putRecord(newRecord({ status: 'awaiting-operator', reason: 'outcome-unknown' }));
    expect(await writer.openRecordsAtLeast(before + 1)).toBe(true);
    expect(await writer.openRecordsAtLeast(before + 2)).toBe(false);
  });

  it('records the cause and every operator action in the audit', async () => {
    const record = newRecord();
    await writer.putRecord(record);

    await records.setCause(record.id, 'schema v2 body sent to v1 consumer', {
      who: 'carol',
      when: new Date('2030-02-01T00:00:00Z'),
      why: 'read the body',
    });
    const updated = await records.appendAudit(record.id, {
      who: 'carol',
      when: new Date('2030-02-01T00:01:00Z'),
      what: 'replay-requested',
      why: 'consumer fixed',
    });

    expect(updated.cause).toBe('schema v2 body sent to v1 consumer');
    expect(updated.audit).toStrictEqual([
      {
        who: 'carol',
        when: '2030-02-01T00:00:00.000Z',
        what: 'set-cause "schema v2 body sent to v1 consumer"',
        why: 'read the body',
      },
      { who: 'carol', when: '2030-02-01T00:01:00.000Z', what: 'replay-requested', why: 'consumer fixed' },
    ]);
  });

  it('refuses a status change from an unexpected status, and updates of unknown records', async () => {
    const record = newRecord();
    await writer.putRecord(record);
    const action = { who: 'dan', when: new Date(), why: 'test' };
    await records.setStatus(record.id, 'resolved', action, { expected: ['open', 'awaiting-operator'] });

    await expect(
      records.setStatus(record.id, 'replayed', action, { expected: ['open', 'awaiting-operator'] }),
    ).rejects.toBeInstanceOf(QuarantineStatusConflictError);
    await expect(records.setCause(`q-unknown-${randomUUID()}`, 'x', action)).rejects.toBeInstanceOf(
      QuarantineNotFoundError,
    );
    expect(await records.get(`q-unknown-${randomUUID()}`)).toBeUndefined();
  });

  it('turns a failed record write into QuarantineWriteError', async () => {
    const broken = new QuarantineWriter(
      pipeline.clients.s3,
      pipeline.clients.dynamodb,
      pipeline.names.quarantineBucket,
      'no-such-table',
    );

    await expect(broken.putRecord(newRecord())).rejects.toMatchObject({
      name: 'QuarantineWriteError',
      cause: { name: 'ResourceNotFoundException' },
    });
  });
});

describe('the open-record count (rule 11a)', () => {
  const action = { who: 'frank', when: new Date('2030-03-01T00:00:00Z'), why: 'counter test' };
  const entry = { who: 'frank', when: '2030-03-01T00:00:00.000Z', what: 'replay-started', why: 'fixed' };
  const claims = () => new ReplayClaims(pipeline.clients.dynamodb, pipeline.names.quarantineTable);

  /** The counter item as stored (created from the index first, if this table has none yet). */
  async function count(): Promise<number> {
    await writer.openRecordsAtLeast(1);
    const { Item } = await pipeline.clients.dynamodb.send(
      new GetItemCommand({
        TableName: pipeline.names.quarantineTable,
        Key: COUNTER_KEY,
        ConsistentRead: true,
      }),
    );
    return Number(Item?.openRecords?.N);
  }

  async function counterItem() {
    const { Item } = await pipeline.clients.dynamodb.send(
      new GetItemCommand({
        TableName: pipeline.names.quarantineTable,
        Key: COUNTER_KEY,
        ConsistentRead: true,
      }),
    );
    return Item;
  }

  const unresolved = async () =>
    (await records.list({ status: 'open' })).length +
    (await records.list({ status: 'awaiting-operator' })).length;

  it('reads the counter item, asked for by its id, as no record (not a malformed one)', async () => {
    await count();

    const read = await records.get(OPEN_RECORDS_COUNTER.key.id);

    expect(read).toBeUndefined();
  });

  it('counts a quarantined record once, however often its write is retried', async () => {
    const before = await count();
    const record = newRecord();

    const writes = [
      await writer.putRecord(record),
      await writer.putRecord(record),
      await writer.putRecord(record),
    ];

    expect(writes).toStrictEqual([{ created: true }, { created: false }, { created: false }]);
    expect(await count()).toBe(before + 1);
  });

  it('uncounts a discarded record once; a second discard is refused and uncounts nothing', async () => {
    const record = newRecord();
    await writer.putRecord(record);
    const before = await count();

    const discarded = await records.setStatus(record.id, 'resolved', action, { expected: ['open'] });
    const again = records.setStatus(record.id, 'resolved', action, { expected: ['open'] });

    await expect(again).rejects.toBeInstanceOf(QuarantineStatusConflictError);
    expect(discarded).toMatchObject({ id: record.id, status: 'resolved' });
    expect(await count()).toBe(before - 1);
  });

  it('uncounts an outcome-unknown record once when its decision is recorded without its execution', async () => {
    const record = newRecord({ status: 'awaiting-operator', reason: 'outcome-unknown' });
    await writer.putRecord(record);
    const before = await count();
    const decide = () =>
      records.setStatus(record.id, 'resolved', action, {
        expected: ['awaiting-operator'],
        what: 'discard',
        closeWait: true,
      });

    await decide();

    await expect(decide()).rejects.toBeInstanceOf(QuarantineStatusConflictError);
    expect(await count()).toBe(before - 1);
  });

  it('moves the count with a replay: claimed -1, released +1, claimed again -1, finished 0', async () => {
    const record = newRecord();
    await writer.putRecord(record);
    await records.setCause(record.id, 'fixed in v2', action);
    const start = await count();
    const seen: number[] = [];

    await claims().claim(record.id, entry);
    seen.push(await count());
    await expect(claims().claim(record.id, entry)).rejects.toBeInstanceOf(QuarantineStatusConflictError);
    seen.push(await count());
    await claims().release(record.id, { ...entry, what: 'replay-aborted' });
    seen.push(await count());
    await claims().claim(record.id, entry);
    await claims().finish(record.id, { ...entry, what: 'replay' });
    seen.push(await count());

    expect(seen.map((value) => value - start)).toStrictEqual([-1, -1, 0, -1]);
    expect((await records.get(record.id))?.status).toBe('replayed');
  });

  it('leaves the count alone when a status change is refused or changes nothing it counts', async () => {
    const record = newRecord();
    await writer.putRecord(record);
    const before = await count();

    await expect(
      records.setStatus(`q-unknown-${randomUUID()}`, 'resolved', action, { expected: ['open'] }),
    ).rejects.toBeInstanceOf(QuarantineNotFoundError);
    await records.setStatus(record.id, 'awaiting-operator', action, { expected: ['open'] });

    expect(await count()).toBe(before);
  });

  it('creates a missing counter (an upgrade) from the records when the consumer first asks', async () => {
    await writer.putRecord(newRecord());
    await pipeline.clients.dynamodb.send(
      new DeleteItemCommand({ TableName: pipeline.names.quarantineTable, Key: COUNTER_KEY }),
    );
    const open = await unresolved();

    const atCapacity = await writer.openRecordsAtLeast(open);
    const overCapacity = await writer.openRecordsAtLeast(open + 1);

    expect([atCapacity, overCapacity]).toStrictEqual([true, false]);
    expect(Number((await counterItem())?.openRecords?.N)).toBe(open);
  });

  it('repairs a drifted counter with a recount, who, when and why kept on it', async () => {
    const open = await count();
    await pipeline.clients.dynamodb.send(
      new UpdateItemCommand({
        TableName: pipeline.names.quarantineTable,
        Key: COUNTER_KEY,
        UpdateExpression: 'ADD openRecords :drift',
        ExpressionAttributeValues: { ':drift': { N: '5' } },
      }),
    );

    const recount = await records.recountOpen(action);

    expect(recount).toStrictEqual({ was: open + 5, counted: open });
    expect(await counterItem()).toStrictEqual({
      ...COUNTER_KEY,
      openRecords: { N: String(open) },
      lastRecount: {
        M: {
          who: { S: 'frank' },
          when: { S: '2030-03-01T00:00:00.000Z' },
          why: { S: 'counter test' },
          was: { N: String(open + 5) },
          counted: { N: String(open) },
        },
      },
    });
    expect(open).toBe(await unresolved());
  });

  it('creates the counter with a recount when there is none', async () => {
    await pipeline.clients.dynamodb.send(
      new DeleteItemCommand({ TableName: pipeline.names.quarantineTable, Key: COUNTER_KEY }),
    );

    const recount = await records.recountOpen(action);

    expect(recount).toStrictEqual({ counted: await unresolved() });
    expect((await counterItem())?.lastRecount?.M?.was).toStrictEqual({ NULL: true });
  });
});
