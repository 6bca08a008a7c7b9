/**
 * AttemptLedger against the deployed attempts table in moto: every transition is one conditional
 * write, refusals return the item as it was (ALL_OLD), and stale attempts cannot write.
 */
import { randomUUID } from 'node:crypto';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttemptLedger } from '../../lambdas/adapters/attempt-ledger';
import { OperatorLedger } from '../../lambdas/adapters/operator-ledger';
import type { ErrorEvidence } from '../../lambdas/core/types';
import {
  LedgerStateMismatchError,
  LedgerUnavailableError,
  StaleAttemptError,
} from '../../lambdas/ports/errors';
import type { StartInput } from '../../lambdas/ports/ledger';
import { type AdapterPipeline, startPipeline } from './support/pipeline';

const T0 = new Date('2030-01-02T03:04:05.000Z');
const T1 = new Date('2030-01-02T03:05:00.000Z');
const EXPIRES = 1_900_000_000;
const EVIDENCE: ErrorEvidence = {
  class: 'unknown',
  name: 'TypeError',
  message: 'cannot read "x" of undefined – ü',
  stackHead: 'at parse (/var/task/index.js:1:2)',
};

let pipeline: AdapterPipeline;
let ledger: AttemptLedger;
/** The operator's side of the same table. */
let operator: OperatorLedger;

beforeAll(async () => {
  pipeline = await startPipeline();
  ledger = new AttemptLedger(pipeline.clients.dynamodb, pipeline.names.attemptsTable);
  operator = new OperatorLedger(pipeline.clients.dynamodb, pipeline.names.attemptsTable);
});
afterAll(async () => pipeline?.stop());

function attempt(key: string, overrides: Partial<StartInput> = {}): StartInput {
  return {
    key,
    attemptId: randomUUID(),
    envId: 'env-a',
    messageId: 'm-1',
    bodyDigest: 'digest-of-m-1',
    attemptLimit: 3,
    now: T0,
    expiresAt: EXPIRES,
    ...overrides,
  };
}

async function rawItem(key: string) {
  const { Item } = await pipeline.clients.dynamodb.send(
    new GetItemCommand({
      TableName: pipeline.names.attemptsTable,
      Key: { pk: { S: key } },
      ConsistentRead: true,
    }),
  );
  return Item;
}

describe('start', () => {
  it('records the attempt on a fresh key, before any work, in one write', async () => {
    // Prepare
    const key = `fresh-${randomUUID()}`;
    const input = attempt(key);

    // Act
    const result = await ledger.start(input);

    // Assess
    const expected = {
      key,
      state: 'in-flight',
      attempts: 1,
      charged: 0,
      transientFailures: 0,
      unknownFailures: 0,
      generation: 0,
      attemptId: input.attemptId,
      envId: 'env-a',
      messageId: 'm-1',
      stage: 'started',
      bodyDigest: 'digest-of-m-1',
      firstAttemptAt: T0.toISOString(),
      lastAttemptAt: T0.toISOString(),
    };
    expect(result).toStrictEqual({ started: true, item: expected });
    // A worker killed right after the write: the counter still shows the attempt.
    expect(await operator.get(key)).toStrictEqual(expected);
    expect((await rawItem(key))?.expiresAt).toStrictEqual({ N: String(EXPIRES) });
  });

  it('admits exactly one of concurrent first deliveries of a key', async () => {
    const key = `first-${randomUUID()}`;

    const results = await Promise.all(
      ['env-a', 'env-b', 'env-c'].map((envId) => ledger.start(attempt(key, { envId }))),
    );

    expect(results.filter((result) => result.started)).toHaveLength(1);
    for (const result of results.filter((result) => !result.started)) {
      expect(result).toMatchObject({ previous: { state: 'in-flight', attempts: 1 } });
    }
  });

  it('is refused while an attempt is in flight, returning the item as it was', async () => {
    const key = `busy-${randomUUID()}`;
    const first = attempt(key);
    await ledger.start(first);

    const result = await ledger.start(attempt(key, { attemptId: 'second', envId: 'env-b', now: T1 }));

    expect(result.started).toBe(false);
    if (result.started) return;
    expect(result.previous).toMatchObject({
      state: 'in-flight',
      attemptId: first.attemptId,
      envId: 'env-a',
      attempts: 1,
    });
    expect(await operator.get(key)).toMatchObject({ attempts: 1, attemptId: first.attemptId });
  });

  it.each(['completed', 'quarantined'] as const)('is refused on a %s item, returning it', async (end) => {
    const key = `${end}-${randomUUID()}`;
    const first = attempt(key);
    await ledger.start(first);
    if (end === 'completed') await ledger.complete(key, first.attemptId, T1);
    else await ledger.markQuarantined(key, { attemptId: first.attemptId, quarantineId: 'q-1', now: T1 });

    const result = await ledger.start(attempt(key, { now: T1 }));

    expect(result).toMatchObject({
      started: false,
      previous: { state: end, attemptId: first.attemptId, attempts: 1 },
    });
  });

  it('admits a ready item: attempts + 1, evidence kept, the old external call removed', async () => {
    const key = `ready-${randomUUID()}`;
    const first = attempt(key);
    await ledger.start(first);
    await ledger.recordExternal(key, first.attemptId, {
      name: 'charge',
      status: 'done',
      at: T0.toISOString(),
    });
    await ledger.recordFailure(key, first.attemptId, {
      counters: { charged: 1, transientFailures: 0, unknownFailures: 1 },
      lastError: EVIDENCE,
      now: T0,
    });

    const second = attempt(key, { envId: 'env-b', messageId: 'm-1', now: T1 });
    const result = await ledger.start(second);

    expect(result.started).toBe(true);
    if (!result.started) return;
    expect(result.item).toStrictEqual({
      key,
      state: 'in-flight',
      attempts: 2,
      charged: 1,
      transientFailures: 0,
      unknownFailures: 1,
      generation: 0,
      attemptId: second.attemptId,
      envId: 'env-b',
      messageId: 'm-1',
      stage: 'started',
      bodyDigest: 'digest-of-m-1',
      lastError: EVIDENCE,
      firstAttemptAt: T0.toISOString(),
      lastAttemptAt: T1.toISOString(),
      lastEndedAt: T0.toISOString(),
    });
  });
});

describe('restartAfterCrash', () => {
  it('lets exactly one of two concurrent restarts of the same crashed attempt win', async () => {
    const key = `race-${randomUUID()}`;
    const crashed = attempt(key);
    await ledger.start(crashed);

    const restarts = await Promise.all(
      ['env-b', 'env-c'].map((envId) =>
        ledger.restartAfterCrash({
          ...attempt(key, { envId, now: T1 }),
          previousAttemptId: crashed.attemptId,
          charge: 1,
          crashedAlone: true,
        }),
      ),
    );

    const winners = restarts.filter((result) => result.started);
    expect(winners).toHaveLength(1);
    const loser = restarts.find((result) => !result.started);
    expect(loser).toMatchObject({ started: false, previous: { state: 'in-flight' } });
    expect(await operator.get(key)).toMatchObject({
      attempts: 2,
      charged: 1,
      state: 'in-flight',
      stage: 'started',
    });
  });

  it('charges nothing for an unattributable crash and removes the crashed call record', async () => {
    const key = `uncharged-${randomUUID()}`;
    const crashed = attempt(key);
    await ledger.start(crashed);
    await ledger.recordStage(key, crashed.attemptId, 'parsed');
    await ledger.recordExternal(key, crashed.attemptId, {
      name: 'ship',
      status: 'pending',
      idempotencyKey: 'k-1',
      at: T0.toISOString(),
    });

    const result = await ledger.restartAfterCrash({
      ...attempt(key, { now: T1 }),
      previousAttemptId: crashed.attemptId,
      charge: 0,
      crashedAlone: false,
    });

    expect(result.started).toBe(true);
    if (!result.started) return;
    expect(result.item).toMatchObject({ attempts: 2, charged: 0, stage: 'started' });
    expect(result.item.external).toBeUndefined();
  });

  it('is refused when the named attempt is no longer the one in flight', async () => {
    const key = `moved-${randomUUID()}`;
    const current = attempt(key);
    await ledger.start(current);

    const result = await ledger.restartAfterCrash({
      ...attempt(key),
      previousAttemptId: 'an-older-attempt',
      charge: 1,
      crashedAlone: true,
    });

    expect(result).toMatchObject({ started: false, previous: { attemptId: current.attemptId, charged: 0 } });
  });
});

describe('writes during and at the end of an attempt', () => {
  it('records stage and external call for the attempt in flight', async () => {
    const key = `stages-${randomUUID()}`;
    const current = attempt(key);
    await ledger.start(current);

    await ledger.recordStage(key, current.attemptId, 'validated');
    const item = await ledger.recordExternal(key, current.attemptId, {
      name: 'pay',
      status: 'pending',
      at: T1.toISOString(),
    });

    expect(item).toMatchObject({
      stage: 'validated',
      external: { name: 'pay', status: 'pending', at: T1.toISOString() },
    });
  });

  it('refuses a stale attempt: it cannot overwrite the newer one', async () => {
    const key = `stale-${randomUUID()}`;
    const crashed = attempt(key);
    await ledger.start(crashed);
    const newer = attempt(key, { envId: 'env-b' });
    await ledger.restartAfterCrash({
      ...newer,
      previousAttemptId: crashed.attemptId,
      charge: 1,
      crashedAlone: true,
    });

    const write = ledger.recordExternal(key, crashed.attemptId, {
      name: 'pay',
      status: 'done',
      at: T1.toISOString(),
    });

    await expect(write).rejects.toBeInstanceOf(StaleAttemptError);
    await expect(write).rejects.toMatchObject({ current: { attemptId: newer.attemptId } });
    await expect(ledger.recordStage(key, crashed.attemptId, 'late')).rejects.toBeInstanceOf(
      StaleAttemptError,
    );
    expect((await operator.get(key))?.external).toBeUndefined();
  });

  it('completes: state completed, envId removed; a repeated complete is a success', async () => {
    const key = `complete-${randomUUID()}`;
    const current = attempt(key);
    await ledger.start(current);

    const item = await ledger.complete(key, current.attemptId, T1);
    const again = await ledger.complete(key, current.attemptId, T1);

    expect(item).toMatchObject({ state: 'completed', attempts: 1, lastEndedAt: T1.toISOString() });
    expect(item.envId).toBeUndefined();
    expect(again).toStrictEqual(item);
    await expect(ledger.complete(key, 'another', T1)).rejects.toBeInstanceOf(StaleAttemptError);
  });

  it('records a failure: counters as decided, evidence, ready, envId removed', async () => {
    const key = `failure-${randomUUID()}`;
    const current = attempt(key);
    await ledger.start(current);

    const item = await ledger.recordFailure(key, current.attemptId, {
      counters: { charged: 0, transientFailures: 1, unknownFailures: 0 },
      lastError: { ...EVIDENCE, class: 'transient', stackHead: '' },
      now: T1,
    });

    expect(item).toMatchObject({
      state: 'ready',
      transientFailures: 1,
      charged: 0,
      lastError: { class: 'transient', stackHead: '' },
    });
    expect(item.envId).toBeUndefined();
  });

  it('marks quarantined once: charge added, TTL removed, a retry changes nothing', async () => {
    const key = `quarantine-${randomUUID()}`;
    const current = attempt(key);
    await ledger.start(current);
    const mark = { attemptId: current.attemptId, quarantineId: 'q-abc-g0-a1', charge: 1, now: T1 };

    const item = await ledger.markQuarantined(key, mark);
    const retried = await ledger.markQuarantined(key, mark);

    expect(item).toMatchObject({ state: 'quarantined', quarantineId: 'q-abc-g0-a1', charged: 1 });
    expect(item.envId).toBeUndefined();
    expect(retried).toStrictEqual(item);
    expect((await rawItem(key))?.expiresAt).toBeUndefined();
  });

  it('completes an item for an operator only while it holds that quarantine; a retry changes nothing', async () => {
    const key = `verified-${randomUUID()}`;
    const current = attempt(key);
    await ledger.start(current);
    await ledger.markQuarantined(key, { attemptId: current.attemptId, quarantineId: 'q-1', now: T1 });

    await expect(operator.completeQuarantined(key, 'q-2', T1)).rejects.toBeInstanceOf(
      LedgerStateMismatchError,
    );
    const completed = await operator.completeQuarantined(key, 'q-1', T1);
    const retried = await operator.completeQuarantined(key, 'q-1', T1);

    expect(completed).toMatchObject({
      state: 'completed',
      quarantineId: 'q-1',
      lastEndedAt: T1.toISOString(),
    });
    expect(retried).toStrictEqual(completed);
  });

  it('refuses to quarantine a completed item, with or without the attempt id', async () => {
    const key = `done-${randomUUID()}`;
    const current = attempt(key);
    await ledger.start(current);
    await ledger.complete(key, current.attemptId, T1);

    await expect(ledger.markQuarantined(key, { quarantineId: 'q-x', now: T1 })).rejects.toBeInstanceOf(
      LedgerStateMismatchError,
    );
    await expect(
      ledger.markQuarantined(key, { attemptId: current.attemptId, quarantineId: 'q-x', now: T1 }),
    ).rejects.toBeInstanceOf(StaleAttemptError);
  });
});

describe('inFlightKeysOf', () => {
  it('answers which keys an environment had in flight (the sparse byEnv index)', async () => {
    const envId = `env-${randomUUID()}`;
    const keys = [1, 2, 3].map((n) => `env-key-${n}-${randomUUID()}`);
    const attempts = keys.map((key) => attempt(key, { envId }));
    for (const input of attempts) await ledger.start(input);
    await ledger.start(attempt(`other-${randomUUID()}`, { envId: `env-${randomUUID()}` }));
    await ledger.complete(keys[0], attempts[0].attemptId, T1);

    const inFlight = await ledger.inFlightKeysOf(envId);

    expect(inFlight.sort()).toStrictEqual([keys[1], keys[2]].sort());
    expect(await ledger.inFlightKeysOf('nobody')).toStrictEqual([]);
  });
});

describe('operator side', () => {
  it('get answers undefined for an unknown key', async () => {
    expect(await operator.get(`unknown-${randomUUID()}`)).toBeUndefined();
  });

  it('resets a quarantined key for a replay: fresh budget, history kept', async () => {
    const key = `replay-${randomUUID()}`;
    const current = attempt(key);
    await ledger.start(current);
    await ledger.recordExternal(key, current.attemptId, {
      name: 'pay',
      status: 'pending',
      at: T0.toISOString(),
    });
    await ledger.recordFailure(key, current.attemptId, {
      counters: { charged: 2, transientFailures: 1, unknownFailures: 1 },
      lastError: EVIDENCE,
      now: T0,
    });
    const second = attempt(key, { now: T1 });
    await ledger.start(second);
    await ledger.markQuarantined(key, {
      attemptId: second.attemptId,
      quarantineId: 'q-r',
      charge: 1,
      now: T1,
    });

    await expect(
      operator.resetForReplay(key, { expectedState: 'quarantined', quarantineId: 'q-other', now: T1 }),
    ).rejects.toBeInstanceOf(LedgerStateMismatchError);
    const reset = await operator.resetForReplay(key, {
      expectedState: 'quarantined',
      quarantineId: 'q-r',
      now: T1,
    });

    expect(reset).toMatchObject({
      state: 'ready',
      generation: 1,
      attempts: 2,
      charged: 0,
      transientFailures: 0,
      unknownFailures: 0,
      lastError: EVIDENCE,
      replayedAt: T1.toISOString(),
    });
    expect(reset.quarantineId).toBeUndefined();
    expect(reset.external).toBeUndefined();
    // Only the replay's own start takes the reset (a plain one is the original again).
    expect(await ledger.start(attempt(key, { now: T1 }))).toMatchObject({ started: false });
    expect(await ledger.start(attempt(key, { now: T1, replayOf: 'q-r' }))).toMatchObject({
      started: true,
      item: { attempts: 3, generation: 1, replaysStarted: ['q-r'] },
    });
    await expect(
      operator.resetForReplay(key, { expectedState: 'quarantined', now: T1 }),
    ).rejects.toMatchObject({
      name: 'LedgerStateMismatchError',
      current: { state: 'in-flight' },
    });
  });
});

describe('failures of DynamoDB itself', () => {
  it('surface as LedgerUnavailableError (fail closed), with the SDK error as cause', async () => {
    const missing = new AttemptLedger(pipeline.clients.dynamodb, 'no-such-table');

    const start = missing.start(attempt(`k-${randomUUID()}`));

    await expect(start).rejects.toBeInstanceOf(LedgerUnavailableError);
    await expect(start).rejects.toMatchObject({ cause: { name: 'ResourceNotFoundException' } });
    await expect(missing.inFlightKeysOf('env')).rejects.toBeInstanceOf(LedgerUnavailableError);
  });
});
