/**
 * Rule 8 against the verification state machine executing in moto: the record waits for a person
 * with the task token stored on it, the operator's decision is applied and audited (and rule 11a's
 * open-record count falls with it, in one transaction), a silent operator is reminded and waited
 * for again, and nothing the machine publishes carries a token.
 */
import { randomUUID } from 'node:crypto';
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { GetExecutionHistoryCommand, SendTaskSuccessCommand } from '@aws-sdk/client-sfn';
import { Duration } from 'aws-cdk-lib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OPEN_RECORDS_COUNTER } from '../../contract/quarantine';
import { eventually, type Item, type OperationsFixture, startOperations } from './operations-fixture';

// Escalation after 4 s without an answer; the other tests answer within a second.
const HEARTBEAT_SECONDS = 4;

let ops: OperationsFixture;

beforeAll(async () => {
  ops = await startOperations({
    operatorHeartbeat: Duration.seconds(HEARTBEAT_SECONDS),
    operatorTimeout: Duration.seconds(HEARTBEAT_SECONDS * 2),
  });
});
afterEach(async () => ops?.stopRunning());
afterAll(async () => ops?.stop());

const COUNTER = { id: { S: OPEN_RECORDS_COUNTER.key.id } };

/** Rule 11a's open-record count as stored; undefined without a counter item. */
async function openRecords(): Promise<number | undefined> {
  const count = (await ops.getItem(ops.tables.quarantine, COUNTER))?.openRecords?.N;
  return count === undefined ? undefined : Number(count);
}

/** A quarantined message as the consumer leaves it: record open and counted, ledger item quarantined. */
async function quarantined() {
  const quarantineId = `q-${randomUUID().slice(0, 16)}-g0-a2`;
  const messageKey = `order-${randomUUID().slice(0, 8)}`;
  await ops.putItem(ops.tables.quarantine, {
    id: { S: quarantineId },
    status: { S: 'open' },
    reason: { S: 'outcome-unknown' },
    messageKey: { S: messageKey },
  });
  await ops.update(ops.tables.quarantine, COUNTER, 'ADD openRecords :one', { ':one': { N: '1' } });
  await ops.putItem(ops.tables.attempts, {
    pk: { S: messageKey },
    state: { S: 'quarantined' },
    quarantineId: { S: quarantineId },
  });
  return { quarantineId, messageKey };
}

const record = (id: string) => ops.getItem(ops.tables.quarantine, { id: { S: id } });

/** Starts `ou-<id>` and returns once the record holds a token. */
async function awaitingOperator() {
  const { quarantineId, messageKey } = await quarantined();
  const executionArn = await ops.start('verification', `ou-${quarantineId}`, {
    kind: 'outcome-unknown',
    quarantineId,
    messageKey,
  });
  const token = await eventually(
    'a stored task token',
    async () => (await record(quarantineId))?.taskToken?.S,
  );
  return { quarantineId, messageKey, executionArn, token };
}

async function decide(token: string, decision: string) {
  const output = {
    decision,
    who: 'erin@example.com',
    why: `checked the ledger: ${decision}`,
    at: '2025-05-01T10:00:00Z',
  };
  await ops.clients.sfn.send(
    new SendTaskSuccessCommand({ taskToken: token, output: JSON.stringify(output) }),
  );
  return output;
}

describe('outcome unknown: waiting for a person', () => {
  it('marks the record awaiting-operator with its own task token and tells operators to check the outside system', async () => {
    const { quarantineId, executionArn, token } = await awaitingOperator();

    const item = (await record(quarantineId)) as Item;
    expect(item.status).toStrictEqual({ S: 'awaiting-operator' });
    expect(token.length).toBeGreaterThan(10);
    expect(await ops.status(executionArn)).toBe('RUNNING');
    const notes = await ops.notifications();
    const note = notes.find((n) => n.quarantineId === quarantineId);
    expect(note).toMatchObject({ event: 'outcome-unknown', execution: `ou-${quarantineId}` });
    expect(String(note?.instruction)).toMatch(/check the outside system first/i);
    expect(JSON.stringify(notes)).not.toContain(token);
  });

  it('done: completes the ledger item (never replayed), resolves the record, audits, removes the token', async () => {
    const { quarantineId, messageKey, executionArn, token } = await awaitingOperator();
    const counted = await openRecords();

    const output = await decide(token, 'done');

    const execution = await ops.finished(executionArn);
    expect(execution.status).toBe('SUCCEEDED');
    expect(await openRecords()).toBe(Number(counted) - 1);
    expect((await ops.getItem(ops.tables.attempts, { pk: { S: messageKey } }))?.state).toStrictEqual({
      S: 'completed',
    });
    const item = (await record(quarantineId)) as Item;
    expect(item.status).toStrictEqual({ S: 'resolved' });
    expect(item.taskToken).toBeUndefined();
    expect(item.audit).toStrictEqual({
      L: [
        {
          M: { who: { S: output.who }, when: { S: output.at }, what: { S: 'done' }, why: { S: output.why } },
        },
      ],
    });
    expect(execution.output).not.toContain(token);
  });

  it('done: completes the ledger item the record names, never the one the input names (issue 8, defect 2)', async () => {
    const other = await quarantined();
    const { quarantineId, messageKey } = await quarantined();
    const executionArn = await ops.start('verification', `ou-${quarantineId}`, {
      kind: 'outcome-unknown',
      quarantineId,
      messageKey: other.messageKey,
    });
    const token = await eventually(
      'a stored task token',
      async () => (await record(quarantineId))?.taskToken?.S,
    );

    await decide(token, 'done');

    expect((await ops.finished(executionArn)).status).toBe('SUCCEEDED');
    const state = async (key: string) => (await ops.getItem(ops.tables.attempts, { pk: { S: key } }))?.state;
    expect(await state(messageKey)).toStrictEqual({ S: 'completed' });
    expect(await state(other.messageKey)).toStrictEqual({ S: 'quarantined' });
  });

  it('done: refuses to complete a ledger item that no longer holds this quarantine; the record keeps waiting', async () => {
    const { quarantineId, messageKey, executionArn, token } = await awaitingOperator();
    await ops.putItem(ops.tables.attempts, { pk: { S: messageKey }, state: { S: 'ready' } });
    const counted = await openRecords();

    await decide(token, 'done');

    const execution = await ops.finished(executionArn);
    expect(execution.status).toBe('FAILED');
    expect(await openRecords()).toBe(counted);
    expect(execution.error).toBe('LedgerNotHoldingQuarantine');
    expect((await ops.getItem(ops.tables.attempts, { pk: { S: messageKey } }))?.state).toStrictEqual({
      S: 'ready',
    });
    expect((await record(quarantineId))?.status).toStrictEqual({ S: 'awaiting-operator' });
  });

  it('not-done: the CLI has replayed it; the record says replayed and the ledger is left alone', async () => {
    const { quarantineId, messageKey, executionArn, token } = await awaitingOperator();
    const counted = await openRecords();

    await decide(token, 'not-done');

    expect((await ops.finished(executionArn)).status).toBe('SUCCEEDED');
    expect(await openRecords()).toBe(Number(counted) - 1);
    const item = (await record(quarantineId)) as Item;
    expect(item.status).toStrictEqual({ S: 'replayed' });
    expect(item.taskToken).toBeUndefined();
    expect(item.audit?.L).toHaveLength(1);
    expect((await ops.getItem(ops.tables.attempts, { pk: { S: messageKey } }))?.state).toStrictEqual({
      S: 'quarantined',
    });
  });

  it('discard: resolves the record with an audit entry, the ledger left alone', async () => {
    const { quarantineId, messageKey, executionArn, token } = await awaitingOperator();
    const counted = await openRecords();

    await decide(token, 'discard');

    expect((await ops.finished(executionArn)).status).toBe('SUCCEEDED');
    expect(await openRecords()).toBe(Number(counted) - 1);
    const item = (await record(quarantineId)) as Item;
    expect(item.status).toStrictEqual({ S: 'resolved' });
    expect(item.audit).toMatchObject({ L: [{ M: { what: { S: 'discard' } } }] });
    expect((await ops.getItem(ops.tables.attempts, { pk: { S: messageKey } }))?.state).toStrictEqual({
      S: 'quarantined',
    });
  });

  it('appends to an existing audit list', async () => {
    const { quarantineId, token, executionArn } = await awaitingOperator();
    await ops.update(ops.tables.quarantine, { id: { S: quarantineId } }, 'SET audit = :audit', {
      ':audit': { L: [{ M: { what: { S: 'set-cause' } } }] },
    });

    await decide(token, 'discard');

    expect((await ops.finished(executionArn)).status).toBe('SUCCEEDED');
    expect((await record(quarantineId))?.audit?.L).toHaveLength(2);
  });

  it('fails without applying the decision when the open-record count is gone; the record keeps waiting', async () => {
    const { quarantineId, executionArn, token } = await awaitingOperator();
    await ops.clients.dynamodb.send(
      new DeleteItemCommand({ TableName: ops.tables.quarantine, Key: COUNTER }),
    );

    await decide(token, 'discard');

    const execution = await ops.finished(executionArn, 30_000);
    expect(execution).toMatchObject({ status: 'FAILED', error: 'QuarantineRecordNotAwaiting' });
    expect(execution.cause).toMatch(/open-record count is missing \(pq recount creates it\)/);
    const item = (await record(quarantineId)) as Item;
    expect(item.status).toStrictEqual({ S: 'awaiting-operator' });
    expect(item.audit).toBeUndefined();
    expect(await openRecords()).toBeUndefined();
  });

  it('fails clearly on an unknown decision and leaves the record awaiting', async () => {
    const { quarantineId, executionArn, token } = await awaitingOperator();

    await decide(token, 'maybe');

    const execution = await ops.finished(executionArn);
    expect(execution.status).toBe('FAILED');
    expect(execution.error).toBe('InvalidDecision');
    expect(execution.cause).toMatch(/done \| not-done \| discard/);
    expect((await record(quarantineId))?.status).toStrictEqual({ S: 'awaiting-operator' });
  });

  it('fails clearly when there is no open record to verify', async () => {
    const quarantineId = `q-missing-${randomUUID().slice(0, 8)}`;

    const executionArn = await ops.start('verification', `ou-${quarantineId}`, {
      kind: 'outcome-unknown',
      quarantineId,
      messageKey: 'k',
    });

    const execution = await ops.finished(executionArn);
    expect(execution.status).toBe('FAILED');
    expect(execution.error).toBe('QuarantineRecordNotOpen');
    expect(await record(quarantineId)).toBeUndefined();
  });

  it('rejects an input it does not understand, and a pause input, before it touches anything', async () => {
    const { quarantineId, messageKey } = await quarantined();
    const inputs = [
      { kind: 'outcome-unknown' },
      { kind: 'pause', reason: 'outage', epoch: 1, stop: false, quarantineId, messageKey },
    ];

    const executions = await Promise.all(
      inputs.map(async (input) =>
        ops.finished(await ops.start('verification', `bad-${randomUUID().slice(0, 8)}`, input)),
      ),
    );

    for (const execution of executions) {
      expect(execution).toMatchObject({ status: 'FAILED', error: 'InvalidInput' });
    }
    expect((await record(quarantineId))?.status).toStrictEqual({ S: 'open' });
    expect((await ops.notifications()).filter((n) => n.quarantineId === quarantineId)).toEqual([]);
  });

  it('escalates a silent operator and waits again with a new token, never deciding', async () => {
    const { quarantineId, executionArn, token } = await awaitingOperator();

    const renewed = await eventually(
      'a new task token after the heartbeat',
      async () => {
        const stored = (await record(quarantineId))?.taskToken?.S;
        return stored !== undefined && stored !== token ? stored : undefined;
      },
      HEARTBEAT_SECONDS * 3000,
    );

    expect(await ops.status(executionArn)).toBe('RUNNING');
    expect((await record(quarantineId))?.status).toStrictEqual({ S: 'awaiting-operator' });
    const notes = (await ops.notifications()).filter((n) => n.quarantineId === quarantineId);
    expect(notes.map((n) => n.event)).toEqual(['outcome-unknown', 'outcome-unknown-overdue']);
    // The overdue-decision alarm's series counts it.
    expect(await ops.metricValues('OperatorDecisionOverdue')).toContain(1);
    await decide(renewed, 'discard');
    expect((await ops.finished(executionArn)).status).toBe('SUCCEEDED');
    expect(JSON.stringify(notes)).not.toContain(token);
  });

  it('keeps task tokens out of its notifications and the execution output', async () => {
    const { executionArn, token } = await awaitingOperator();
    await decide(token, 'discard');
    const execution = await ops.finished(executionArn);

    const { events } = await ops.clients.sfn.send(new GetExecutionHistoryCommand({ executionArn }));
    const published = (events ?? [])
      .filter(
        (event) => event.type === 'TaskScheduled' && event.taskScheduledEventDetails?.resourceType === 'sns',
      )
      .map((event) => event.taskScheduledEventDetails?.parameters);
    expect(published.length).toBeGreaterThan(0);
    expect(published.join('\n')).not.toContain(token);
    expect(execution.output).not.toContain(token);
  });
});
