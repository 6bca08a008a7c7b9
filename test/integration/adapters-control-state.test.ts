/**
 * ControlState against the deployed control table in moto: one read for the consumer's cache,
 * and single winners for every transition several environments race on.
 */
import { randomUUID } from 'node:crypto';
import {
  type AttributeValue,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ControlState } from '../../lambdas/adapters/control-state';
import { OperatorControlState } from '../../lambdas/adapters/operator-control-state';
import type { OpenBreaker } from '../../lambdas/core/breaker';
import { ControlStateUnavailableError } from '../../lambdas/ports/errors';
import { type AdapterPipeline, startPipeline } from './support/pipeline';

const NOW = new Date('2030-05-06T07:08:09.000Z');
const at = (offsetSeconds: number) => new Date(NOW.getTime() + offsetSeconds * 1000);

let pipeline: AdapterPipeline;
let control: ControlState;
/** The operator's side of the same table. */
let operator: OperatorControlState;

beforeAll(async () => {
  pipeline = await startPipeline();
  control = new ControlState(pipeline.clients.dynamodb, pipeline.names.controlTable);
  operator = new OperatorControlState(pipeline.clients.dynamodb, pipeline.names.controlTable);
});
afterAll(async () => pipeline?.stop());

async function deleteItem(pk: string, sk: string) {
  await pipeline.clients.dynamodb.send(
    new DeleteItemCommand({ TableName: pipeline.names.controlTable, Key: { pk: { S: pk }, sk: { S: sk } } }),
  );
}

/** What the state machine does after the cool-down: half-open, for the probe. */
async function putHalfOpen(epoch: number, cooldownSeconds: number) {
  await pipeline.clients.dynamodb.send(
    new PutItemCommand({
      TableName: pipeline.names.controlTable,
      Item: {
        pk: { S: 'breaker' },
        sk: { S: 'state' },
        state: { S: 'half-open' },
        reason: { S: 'outage' },
        epoch: { N: String(epoch) },
        openedAt: { N: String(NOW.getTime()) },
        cooldownSeconds: { N: String(cooldownSeconds) },
        stop: { BOOL: false },
      },
    }),
  );
}

describe('snapshot', () => {
  it('reads nothing as no breaker, no trial, no freeze', async () => {
    await Promise.all([
      deleteItem('breaker', 'state'),
      deleteItem('isolation', 'state'),
      deleteItem('operator', 'replay-freeze'),
    ]);

    expect(await control.snapshot()).toStrictEqual({
      breaker: undefined,
      isolation: undefined,
      replayFrozen: false,
    });
  });

  it('reads breaker, trial and freeze together', async () => {
    await control.tripBreaker({ reason: 'outage', now: NOW, stop: false });
    await control.startIsolation({ now: NOW, messages: 20, cause: 'env-dead', expiresAt: 1_900_000_000 });
    await operator.setReplayFreeze({ frozen: true, who: 'alice', why: 'incident 42', now: NOW });

    expect(await control.snapshot()).toStrictEqual({
      breaker: expect.objectContaining({ state: 'open', reason: 'outage' }),
      isolation: { active: true, remaining: 20, startedAt: NOW.getTime(), reason: 'unattributable-crash' },
      replayFrozen: true,
    });
    await operator.setReplayFreeze({ frozen: false, who: 'alice', why: 'resolved', now: at(60) });
    expect((await control.snapshot()).replayFrozen).toBe(false);
    // Rule 4: every freeze and unfreeze stays on record, not only the latest.
    const freeze = await getItem('operator', 'replay-freeze');
    expect(freeze?.audit?.L?.map((entry) => entry.M?.what?.S)).toEqual(['freeze', 'unfreeze']);
  });
});

async function getItem(pk: string, sk: string) {
  const { Item } = await pipeline.clients.dynamodb.send(
    new GetItemCommand({
      TableName: pipeline.names.controlTable,
      Key: { pk: { S: pk }, sk: { S: sk } },
      ConsistentRead: true,
    }),
  );
  return Item;
}

describe('breaker', () => {
  beforeEach(() => deleteItem('breaker', 'state'));

  it('requests a stop on an item of its own before it trips the stop; an outage requests none (issue 22, defect 5)', async () => {
    const stopRequests = async () => {
      const { Items } = await pipeline.clients.dynamodb.send(
        new QueryCommand({
          TableName: pipeline.names.controlTable,
          KeyConditionExpression: 'pk = :stop',
          ExpressionAttributeValues: { ':stop': { S: 'stop' } },
          ConsistentRead: true,
        }),
      );
      return (Items ?? []).map((item) => item.sk?.S);
    };
    const before = await stopRequests();
    await control.tripBreaker({ reason: 'outage', now: NOW, stop: false });
    expect(await stopRequests()).toStrictEqual(before);

    const result = await control.tripBreaker({ reason: 'quarantine-unwritable', now: at(1), stop: true });

    expect(result).toStrictEqual({ tripped: true, epoch: 2 });
    expect(await stopRequests()).toStrictEqual([...before, `${at(1).toISOString()}#quarantine-unwritable`]);
  });

  it('trips once among concurrent callers; the losers learn the epoch', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () => control.tripBreaker({ reason: 'outage', now: NOW, stop: false })),
    );

    expect(results.filter((result) => result.tripped)).toStrictEqual([{ tripped: true, epoch: 1 }]);
    expect(results.filter((result) => !result.tripped)).toHaveLength(5);
    for (const result of results) expect(result.epoch).toBe(1);
    expect((await control.snapshot()).breaker).toStrictEqual({
      state: 'open',
      reason: 'outage',
      epoch: 1,
      openedAt: NOW.getTime(),
      cooldownSeconds: 60,
      stop: false,
    });
  });

  it('escalates an automatic pause to a stop once, as a new episode', async () => {
    await control.tripBreaker({ reason: 'outage', now: NOW, stop: false });

    const stop = await control.tripBreaker({ reason: 'quarantine-unwritable', now: at(1), stop: true });
    const again = await control.tripBreaker({ reason: 'quarantine-capacity', now: at(2), stop: true });
    const automatic = await control.tripBreaker({ reason: 'outage', now: at(3), stop: false });

    expect([stop, again, automatic]).toStrictEqual([
      { tripped: true, epoch: 2 },
      { tripped: false, epoch: 2 },
      { tripped: false, epoch: 2 },
    ]);
    expect((await control.snapshot()).breaker).toMatchObject({
      state: 'open',
      stop: true,
      reason: 'quarantine-unwritable',
    });
  });

  it('counts probe results only while half-open, for the state machine to decide on', async () => {
    await putHalfOpen(3, 60);

    const counted = [
      await control.recordProbe('success'),
      await control.recordProbe('success'),
      await control.recordProbe('failure'),
    ];

    expect(counted).toStrictEqual([{ counted: true }, { counted: true }, { counted: true }]);
    const { Item } = await pipeline.clients.dynamodb.send(
      new GetItemCommand({
        TableName: pipeline.names.controlTable,
        Key: { pk: { S: 'breaker' }, sk: { S: 'state' } },
      }),
    );
    expect(Item).toMatchObject({
      probeSuccesses: { N: '2' },
      probeFailures: { N: '1' },
      state: { S: 'half-open' },
    });
    await control.tripBreaker({ reason: 'quarantine-unwritable', now: NOW, stop: true });
    expect(await control.recordProbe('success')).toStrictEqual({ counted: false });
  });

  it('reads a breaker the state machine wrote: ISO times, no cool-down', async () => {
    await pipeline.clients.dynamodb.send(
      new PutItemCommand({
        TableName: pipeline.names.controlTable,
        Item: {
          pk: { S: 'breaker' },
          sk: { S: 'state' },
          state: { S: 'open' },
          epoch: { N: '7' },
          openedAt: { S: NOW.toISOString() },
          disabledAt: { S: NOW.toISOString() },
        },
      }),
    );

    expect((await control.snapshot()).breaker).toStrictEqual({
      state: 'open',
      reason: '',
      epoch: 7,
      openedAt: NOW.getTime(),
      cooldownSeconds: 60,
      stop: false,
    });
  });
});

describe('an unreadable breaker item (issue 8, defect 5)', () => {
  beforeEach(() => deleteItem('breaker', 'state'));

  async function putBreakerItem(attributes: Record<string, AttributeValue>) {
    await pipeline.clients.dynamodb.send(
      new PutItemCommand({
        TableName: pipeline.names.controlTable,
        Item: { pk: { S: 'breaker' }, sk: { S: 'state' }, ...attributes },
      }),
    );
  }
  const garbled = { state: { S: 'paused-by-hand' }, epoch: { N: '4' } };
  const repaired: OpenBreaker = {
    state: 'open',
    reason: 'breaker-reset',
    epoch: 5,
    openedAt: NOW.getTime(),
    cooldownSeconds: 60,
    stop: true,
  };
  const entry = {
    who: 'arn:aws:iam::1:user/alice',
    when: NOW.toISOString(),
    what: 'reset-breaker',
    why: 'INC-7',
  };

  it.each<[string, Record<string, AttributeValue>, object]>([
    ['a state nobody knows', garbled, { problem: 'breaker: unknown state "paused-by-hand"', epoch: 4 }],
    ['no state', { epoch: { N: '1' } }, { problem: 'breaker: attribute "state" is not a string', epoch: 1 }],
    [
      'an epoch that is no number',
      { state: { S: 'open' }, epoch: { S: 'four' } },
      { problem: 'breaker: attribute "epoch" is not a number' },
    ],
    [
      'a stop that is no boolean',
      { state: { S: 'open' }, epoch: { N: '2' }, stop: { S: 'true' } },
      { problem: 'breaker: attribute "stop" is not a boolean', epoch: 2 },
    ],
  ])('reads an item with %s as unreadable, saying what is wrong', async (_what, attributes, reading) => {
    await putBreakerItem(attributes);

    expect((await control.snapshot()).breaker).toStrictEqual({ state: 'unreadable', ...reading });
  });

  it('resets it to an open stop of the next epoch with its audit entry, keeping what the pause remembered of the mapping', async () => {
    await putBreakerItem({
      ...garbled,
      originalBatchSize: { N: '10' },
      originalMaxConcurrency: { N: '5' },
      probeFailures: { N: '2' },
      audit: { L: [{ M: { who: { S: 'bob' }, when: { S: 'then' }, what: { S: 'hold' }, why: { S: 'x' } } }] },
    });
    const read = await operator.breakerItem();
    if (read === undefined) throw new Error('no breaker item');

    const outcome = await operator.resetUnreadableBreaker(read, repaired, entry);

    expect(outcome).toStrictEqual({ reset: true });
    expect((await control.snapshot()).breaker).toStrictEqual(repaired);
    const item = await getItem('breaker', 'state');
    expect(item).toMatchObject({ originalBatchSize: { N: '10' }, originalMaxConcurrency: { N: '5' } });
    expect(item?.probeFailures).toBeUndefined();
    // A repaired stop is requested as a trip's: the consumer cannot write it away.
    expect(
      await getItem('stop', `${new Date(repaired.openedAt).toISOString()}#${repaired.reason}`),
    ).toBeDefined();
    expect(item?.audit?.L?.map((audited) => audited.M?.what?.S)).toStrictEqual(['hold', 'reset-breaker']);
    expect(item?.audit?.L?.[1]?.M).toStrictEqual({
      who: { S: entry.who },
      when: { S: entry.when },
      what: { S: entry.what },
      why: { S: entry.why },
    });
  });

  it('leaves alone a breaker rewritten since it was read: a consumer trip, a state machine write, a deletion', async () => {
    const rewrites = [
      () => putHalfOpen(4, 60),
      () =>
        putBreakerItem({ state: { S: 'paused-by-hand' }, epoch: { N: '4' }, reason: { S: 'edited again' } }),
      () => deleteItem('breaker', 'state'),
    ];
    const outcomes = [];
    for (const rewrite of rewrites) {
      await putBreakerItem(garbled);
      const read = await operator.breakerItem();
      if (read === undefined) throw new Error('no breaker item');
      await rewrite();
      outcomes.push(await operator.resetUnreadableBreaker(read, repaired, entry));
    }

    expect(outcomes).toStrictEqual([{ reset: false }, { reset: false }, { reset: false }]);
    expect(await getItem('breaker', 'state')).toBeUndefined();
  });
});

describe('isolation trial', () => {
  it('counts passed messages down and ends the trial with the last one', async () => {
    await control.startIsolation({ now: NOW, messages: 3, cause: 'env-counted', expiresAt: 1_900_000_000 });

    const remaining = [];
    const passedAt = (n: number) => new Date(NOW.getTime() + n * 1000);
    for (let n = 0; n < 4; n++) remaining.push(await control.isolationMessagePassed(passedAt(n)));

    // The last pass is kept, the one after the trial ended is not (it passed no trial).
    const trial = { active: true, startedAt: NOW.getTime(), reason: 'unattributable-crash' };
    const ended = { active: false, remaining: 0, lastPassAt: passedAt(2).getTime() };
    expect(remaining).toStrictEqual([
      { ...trial, remaining: 2, lastPassAt: passedAt(0).getTime() },
      { ...trial, remaining: 1, lastPassAt: passedAt(1).getTime() },
      ended,
      ended,
    ]);
    expect((await control.snapshot()).isolation).toStrictEqual(ended);
  });

  it('never counts below zero under concurrent environments', async () => {
    await control.startIsolation({
      now: NOW,
      messages: 3,
      reason: 'test',
      cause: 'env-other',
      expiresAt: 1_900_000_000,
    });

    const results = await Promise.all(Array.from({ length: 8 }, () => control.isolationMessagePassed(NOW)));

    expect(
      results
        .filter((trial) => trial.active)
        .map((trial) => trial.remaining)
        .sort(),
    ).toStrictEqual([1, 2]);
    expect((await control.snapshot()).isolation).toStrictEqual({
      active: false,
      remaining: 0,
      lastPassAt: NOW.getTime(),
    });
  });
});

describe('failure window', () => {
  it('returns the events at or after the start of the window, newest first', async () => {
    const event = (key: string, offset: number) => ({
      key,
      kind: 'transient' as const,
      at: at(offset),
      eventId: randomUUID(),
      expiresAt: 2_000_000_000,
    });
    for (const e of [event('msg:old', -90), event('msg:a', -60), event('env:e1', -30), event('msg:a', -5)]) {
      await control.recordFailureEvent(e);
    }

    const events = await control.failuresSince(at(-60), 3);

    expect(events).toStrictEqual([
      { key: 'msg:a', at: at(-5).getTime(), kind: 'transient' },
      { key: 'env:e1', at: at(-30).getTime(), kind: 'transient' },
      { key: 'msg:a', at: at(-60).getTime(), kind: 'transient' },
    ]);
  });
});

describe('crashInFlight', () => {
  it('keeps the first discoverer’s count; later discoverers get it back without another read', async () => {
    const envId = `dead-${randomUUID()}`;

    const first = await control.crashInFlight(envId, async () => 2, 2_000_000_000);
    // After the first discoverer settled its message, the index shows one fewer.
    const second = await control.crashInFlight(envId, async () => 1, 2_000_000_000);

    expect([first, second]).toStrictEqual([2, 2]);
  });

  it('gives concurrent discoverers one answer', async () => {
    const envId = `dead-${randomUUID()}`;

    const answers = await Promise.all(
      [3, 2, 1].map((count) => control.crashInFlight(envId, async () => count, 2_000_000_000)),
    );

    expect(new Set(answers).size).toBe(1);
  });
});

describe('failures of DynamoDB itself', () => {
  it('surface as ControlStateUnavailableError', async () => {
    const missing = new ControlState(pipeline.clients.dynamodb, 'no-such-table');

    await expect(missing.snapshot()).rejects.toBeInstanceOf(ControlStateUnavailableError);
    await expect(missing.tripBreaker({ reason: 'outage', now: NOW, stop: false })).rejects.toMatchObject({
      name: 'ControlStateUnavailableError',
      cause: { name: 'ResourceNotFoundException' },
    });
    await expect(missing.crashInFlight('env', async () => 1, 1)).rejects.toBeInstanceOf(
      ControlStateUnavailableError,
    );
  });
});
