/**
 * Issue 22, defect 10: the audit trail our code writes is append-only. Every audited update lands
 * only on a trail that still holds every entry our code appended to it (lambdas/adapters/
 * conditional-writes.ts, AUDIT_INTACT): a trail replaced or removed in between refuses the write
 * and is left as it was found, or, for an answer to a pause, is kept aside while a new one begins.
 */

import { GetItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperatorControl } from '../../lambdas/adapters/operator-control';
import { OperatorControlState } from '../../lambdas/adapters/operator-control-state';
import { QuarantineRecords } from '../../lambdas/adapters/quarantine-reader';
import { QuarantineWriter } from '../../lambdas/adapters/quarantine-writer';
import { ReplayClaims } from '../../lambdas/adapters/replay-claims';
import { QuarantineStatusConflictError } from '../../lambdas/ports/errors';
import { aQuarantineRecord } from '../support/quarantine-record';
import { type AdapterPipeline, startPipeline } from './support/pipeline';

const NOW = new Date('2030-01-01T00:10:00.000Z');
const ACTION = { who: 'arn:aws:iam::111111111111:user/alice', when: NOW, why: 'incident 7' };
const FORGED = {
  L: [{ M: { who: { S: 'mallory' }, when: { S: '2030' }, what: { S: 'forged' }, why: { S: '-' } } }],
};

let pipeline: AdapterPipeline;
let records: QuarantineRecords;
let claims: ReplayClaims;

beforeAll(async () => {
  pipeline = await startPipeline();
  const { s3, dynamodb } = pipeline.clients;
  const { quarantineBucket, quarantineTable } = pipeline.names;
  records = new QuarantineRecords(s3, dynamodb, quarantineBucket, quarantineTable);
  claims = new ReplayClaims(dynamodb, quarantineTable);
});
afterAll(async () => pipeline?.stop());

/** An open record with two audit entries pq appended. */
async function recordWithTrail(): Promise<string> {
  const record = aQuarantineRecord(pipeline.names.sourceQueueArn);
  const { id } = record;
  const { s3, dynamodb } = pipeline.clients;
  await new QuarantineWriter(
    s3,
    dynamodb,
    pipeline.names.quarantineBucket,
    pipeline.names.quarantineTable,
  ).putRecord(record);
  await records.appendAudit(id, { ...ACTION, what: 'looked' });
  await records.setCause(id, 'schema v2 rollout', ACTION);
  return id;
}

/** What another writer with UpdateItem does to a record's trail: replaces it, or removes it. */
async function rewriteTrail(table: string, key: Record<string, { S: string }>, how: 'replace' | 'remove') {
  await pipeline.clients.dynamodb.send(
    new UpdateItemCommand({
      TableName: table,
      Key: key,
      UpdateExpression: how === 'replace' ? 'SET #audit = :forged' : 'REMOVE #audit',
      ExpressionAttributeNames: { '#audit': 'audit' },
      ...(how === 'replace' ? { ExpressionAttributeValues: { ':forged': FORGED } } : {}),
    }),
  );
}

async function itemOf(table: string, key: Record<string, { S: string }>) {
  const { Item } = await pipeline.clients.dynamodb.send(
    new GetItemCommand({ TableName: table, Key: key, ConsistentRead: true }),
  );
  return Item;
}

describe('issue 22 defect 10: the append-only audit is not', () => {
  it('appends every audited record update to the trail, entry by entry', async () => {
    const id = await recordWithTrail();
    await records.setStatus(id, 'resolved', ACTION, { expected: ['open'], what: 'discard' });
    expect((await records.get(id))?.audit.map((entry) => entry.what)).toStrictEqual([
      'looked',
      'set-cause "schema v2 rollout"',
      'discard',
    ]);
  });

  it.each([
    ['appendAudit', (id: string) => records.appendAudit(id, { ...ACTION, what: 'looked again' })],
    ['setCause', (id: string) => records.setCause(id, 'another cause', ACTION)],
    ['setStatus', (id: string) => records.setStatus(id, 'resolved', ACTION, { expected: ['open'] })],
    [
      'a replay claim',
      (id: string) => claims.claim(id, { ...ACTION, when: NOW.toISOString(), what: 'replay' }),
    ],
  ])('refuses %s on a record whose trail another writer replaced, and leaves it as found', async (_, act) => {
    const id = await recordWithTrail();
    const key = { id: { S: id } };
    await rewriteTrail(pipeline.names.quarantineTable, key, 'replace');
    const before = await itemOf(pipeline.names.quarantineTable, key);

    await expect(act(id)).rejects.toThrow(QuarantineStatusConflictError);
    await expect(act(id)).rejects.toThrow(/audit holds 1 entries, fewer than the 2 pq appended/);
    expect(await itemOf(pipeline.names.quarantineTable, key)).toStrictEqual(before);
  });

  it('refuses an update of a record whose trail another writer removed', async () => {
    const id = await recordWithTrail();
    await rewriteTrail(pipeline.names.quarantineTable, { id: { S: id } }, 'remove');
    await expect(records.setCause(id, 'another cause', ACTION)).rejects.toThrow(
      /audit holds 0 entries, fewer than the 2 pq appended/,
    );
  });

  it('refuses a replay freeze on a trail another writer replaced', async () => {
    const control = new OperatorControlState(pipeline.clients.dynamodb, pipeline.names.controlTable);
    const freeze = (frozen: boolean) =>
      control.setReplayFreeze({ frozen, who: 'alice', why: 'drill', now: NOW });
    await freeze(true);
    await freeze(false);
    const key = { pk: { S: 'operator' }, sk: { S: 'replay-freeze' } };
    await rewriteTrail(pipeline.names.controlTable, key, 'replace');
    const before = await itemOf(pipeline.names.controlTable, key);

    await expect(freeze(true)).rejects.toThrow(/audit holds 1 entries, fewer than the 2 pq appended/);
    expect(await itemOf(pipeline.names.controlTable, key)).toStrictEqual(before);
  });

  it("keeps a pause's replaced trail aside and begins a new one: an answer to a pause is never refused", async () => {
    const table = pipeline.names.controlTable;
    // The answers to a pause live on its episode's answer item (contract/control.ts).
    const key = { pk: { S: 'operator' }, sk: { S: 'answer#4' } };
    await pipeline.clients.dynamodb.send(
      new PutItemCommand({
        TableName: table,
        Item: {
          pk: { S: 'breaker' },
          sk: { S: 'state' },
          state: { S: 'open' },
          reason: { S: 'outage' },
          epoch: { N: '4' },
          openedAt: { N: String(NOW.getTime()) },
          cooldownSeconds: { N: '60' },
          stop: { BOOL: true },
        },
      }),
    );
    const operator = new OperatorControl(pipeline.clients.dynamodb, table, 60);
    const entry = (what: string) => ({ ...ACTION, when: NOW.toISOString(), what });
    await operator.setOperatorAction('hold', entry('hold'));
    await operator.setOperatorAction('hold', entry('hold again'));
    await rewriteTrail(table, key, 'replace');

    await operator.setOperatorAction('resume', entry('resume'));

    const item = await itemOf(table, key);
    expect(item?.garbledAudit).toStrictEqual(FORGED);
    expect(item?.audit?.L?.map((kept) => kept.M?.what?.S)).toStrictEqual(['resume']);
    expect(item?.action).toStrictEqual({ S: 'resume' });
  });
});
