/**
 * Rules 7 and 11 against the pause state machine executing in moto, with the timings
 * scaled down to seconds through the input: the mapping is disabled and the breaker opened,
 * half-open probing at the smallest footprint, restore or reopen with a doubled cool-down, and
 * the operator's hold and resume. The pipeline is synthesized with a batch size and concurrency
 * of its own, so a restore is told apart from the probe footprint (1 and 2).
 */
import { type AttributeValue, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { SendTaskSuccessCommand } from '@aws-sdk/client-sfn';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { namesIn } from '../../lambdas/adapters/conditional-writes';
import { ControlState } from '../../lambdas/adapters/control-state';
import { OperatorControl } from '../../lambdas/adapters/operator-control';
import { eventually, type Item, type OperationsFixture, startOperations } from './operations-fixture';

const ORIGINAL = { batchSize: 7, maxConcurrency: 5 };
const BREAKER = { pk: { S: 'breaker' }, sk: { S: 'state' } };

let ops: OperationsFixture;
let epoch = 100;

beforeAll(async () => {
  ops = await startOperations(ORIGINAL);
});
afterAll(async () => ops?.stop());
beforeEach(async () => {
  epoch += 1;
  await ops.setMapping({ enabled: true, ...ORIGINAL });
  // The consumer trips the breaker (a new epoch) before it starts `pause-<epoch>`.
  await ops.putItem(ops.tables.control, {
    ...BREAKER,
    state: { S: 'open' },
    epoch: { N: String(epoch) },
    reason: { S: 'outage' },
    stop: { BOOL: false },
  });
});

/**
 * The consumer tripped this epoch's breaker as a stop (rule 11): the item says so, and the stop
 * request it made first, which only an operator's resume lifts.
 */
async function trippedAsStop(reason: string) {
  await new ControlState(ops.clients.dynamodb, ops.tables.control).requestStop(reason, new Date());
  await ops.putItem(ops.tables.control, {
    ...BREAKER,
    state: { S: 'open' },
    epoch: { N: String(epoch) },
    reason: { S: reason },
    stop: { BOOL: true },
  });
}
afterEach(async () => ops?.stopRunning());

/** The operator's answer to this epoch's pause, as pq resume and pq hold write it. */
const operatorSays = (action: 'resume' | 'hold') =>
  new OperatorControl(ops.clients.dynamodb, ops.tables.control, 60).setOperatorAction(action, {
    who: 'erin@example.com',
    when: new Date().toISOString(),
    what: action,
    why: 'test',
  });
/** This epoch's answer item: the operator's action and the wait's task token. */
const answer = async () =>
  ((await ops.getItem(ops.tables.control, { pk: { S: 'operator' }, sk: { S: `answer#${epoch}` } })) ??
    {}) as Item;

const breaker = async () => (await ops.getItem(ops.tables.control, BREAKER)) as Item;
const breakerIs = (state: string) => async () =>
  (await breaker()).state?.S === state ? breaker() : undefined;

function pause(overrides: Record<string, unknown> = {}) {
  return ops.start('pause', `pause-${epoch}`, {
    kind: 'pause',
    reason: 'outage',
    epoch,
    stop: false,
    cooldownSeconds: 2,
    maxCooldownSeconds: 60,
    probeSeconds: 3,
    pollSeconds: 1,
    ...overrides,
  });
}

async function halfOpen() {
  await eventually('half-open', breakerIs('half-open'), 10_000);
  return eventually('the probe footprint', async () => {
    const mapping = await ops.mapping();
    return mapping.state === 'Enabled' && mapping.batchSize === 1 ? mapping : undefined;
  });
}

describe('pause: cool-down and half-open probing', () => {
  it('disables the mapping and opens the breaker, probes at the smallest footprint, then restores and closes', async () => {
    const executionArn = await pause();

    const open = await eventually('the breaker open', async () => {
      const item = await breaker();
      return item.disabledAt ? item : undefined;
    });
    expect(await ops.mapping()).toMatchObject({ state: 'Disabled', ...ORIGINAL });
    expect(open).toMatchObject({
      state: { S: 'open' },
      reason: { S: 'outage' },
      epoch: { N: String(epoch) },
      stop: { BOOL: false },
      cooldownSeconds: { N: '2' },
      originalBatchSize: { N: '7' },
      originalMaxConcurrency: { N: '5' },
    });
    expect(open.openedAt?.S).toMatch(/^\d{4}-\d\d-\d\dT/);

    expect(await halfOpen()).toStrictEqual({ state: 'Enabled', batchSize: 1, maxConcurrency: 2 });
    expect(await breaker()).toMatchObject({
      probeSuccesses: { N: '0' },
      probeFailures: { N: '0' },
      probeRepeatFailures: { N: '0' },
      probeOwnFailures: { N: '0' },
    });
    // The consumer counts a successful probe.
    await ops.update(ops.tables.control, BREAKER, 'ADD probeSuccesses :one', { ':one': { N: '1' } });

    expect((await ops.finished(executionArn)).status).toBe('SUCCEEDED');
    expect(await ops.mapping()).toStrictEqual({ state: 'Enabled', ...ORIGINAL });
    const closed = await breaker();
    expect(closed.state).toStrictEqual({ S: 'closed' });
    for (const gone of [
      'probeSuccesses',
      'probeFailures',
      'probeRepeatFailures',
      'probeOwnFailures',
      'originalBatchSize',
      'cooldownSeconds',
    ]) {
      expect(closed[gone]).toBeUndefined();
    }
    const events = (await ops.notifications()).filter((n) => n.epoch === epoch).map((n) => n.event);
    expect(events).toEqual(['paused', 'resumed']);
  });

  it('restores when a probe of the window succeeded, whatever else failed in it: the failure was the message', async () => {
    const executionArn = await pause();
    await halfOpen();

    await ops.update(ops.tables.control, BREAKER, 'ADD probeFailures :one, probeSuccesses :one', {
      ':one': { N: '1' },
    });

    expect((await ops.finished(executionArn)).status).toBe('SUCCEEDED');
    expect(await ops.mapping()).toStrictEqual({ state: 'Enabled', ...ORIGINAL });
    expect((await breaker()).state).toStrictEqual({ S: 'closed' });
  });

  it('reopens when our own tables failed in the window, even beside a success: the window proved nothing', async () => {
    const executionArn = await pause();
    await halfOpen();

    // The consumer counts a record our own tables refused as a failure and an own failure.
    await ops.update(
      ops.tables.control,
      BREAKER,
      'ADD probeSuccesses :one, probeFailures :one, probeOwnFailures :one',
      { ':one': { N: '1' } },
    );

    const reopened = await eventually('the breaker reopened', breakerIs('open'), 10_000);
    expect(reopened.cooldownSeconds).toStrictEqual({ N: '4' });
    expect(reopened.probeOwnFailures).toBeUndefined();
    await operatorSays('resume');
    expect((await ops.finished(executionArn)).status).toBe('SUCCEEDED');
  });

  it('closes after a probe window without traffic', async () => {
    const executionArn = await pause({ probeSeconds: 1 });

    expect((await ops.finished(executionArn)).status).toBe('SUCCEEDED');
    expect(await ops.mapping()).toStrictEqual({ state: 'Enabled', ...ORIGINAL });
    expect((await breaker()).state).toStrictEqual({ S: 'closed' });
  });

  it('restores a mapping that had no ScalingConfig without one', async () => {
    await ops.setMapping({ enabled: true, batchSize: ORIGINAL.batchSize });

    const executionArn = await pause({ probeSeconds: 1 });
    await eventually('the breaker open', async () => (await breaker()).disabledAt);
    expect((await breaker()).originalMaxConcurrency).toStrictEqual({ N: '0' });

    expect((await ops.finished(executionArn)).status).toBe('SUCCEEDED');
    expect(await ops.mapping()).toStrictEqual({
      state: 'Enabled',
      batchSize: ORIGINAL.batchSize,
      maxConcurrency: undefined,
    });
  });

  it('reopens after a failed probe with the cool-down doubled, then an operator resume restores it', async () => {
    const executionArn = await pause();
    await halfOpen();

    // A repeated failure (core/breaker.ts probeFailureKind) is a failure of the window all the same.
    await ops.update(ops.tables.control, BREAKER, 'ADD probeFailures :one, probeRepeatFailures :one', {
      ':one': { N: '1' },
    });

    const reopened = await eventually('the breaker reopened', breakerIs('open'), 10_000);
    expect(reopened.cooldownSeconds).toStrictEqual({ N: '4' });
    expect([reopened.probeFailures, reopened.probeRepeatFailures]).toStrictEqual([undefined, undefined]);
    // The time paused so far (cool-down 2 s + probe window 3 s), for the paused-too-long alarm.
    expect(await ops.metricValues('PausedSeconds')).toContain(5);
    expect((await ops.mapping()).state).toBe('Disabled');
    // The original settings survive the probe's footprint.
    expect(reopened).toMatchObject({ originalBatchSize: { N: '7' }, originalMaxConcurrency: { N: '5' } });

    await operatorSays('resume');

    expect((await ops.finished(executionArn)).status).toBe('SUCCEEDED');
    expect(await ops.mapping()).toStrictEqual({ state: 'Enabled', ...ORIGINAL });
    expect((await breaker()).state).toStrictEqual({ S: 'closed' });
  });

  it('caps the growing cool-down', async () => {
    await pause({ cooldownSeconds: 2, maxCooldownSeconds: 3 });
    await halfOpen();

    await ops.update(ops.tables.control, BREAKER, 'ADD probeFailures :one', { ':one': { N: '1' } });

    const reopened = await eventually('the breaker reopened', breakerIs('open'), 10_000);
    expect(reopened.cooldownSeconds).toStrictEqual({ N: '3' });
  });

  it('acts only on a breaker tripped for its epoch: a pause of an epoch nobody tripped fails and touches nothing', async () => {
    const execution = await ops.finished(await pause({ epoch: epoch + 5 }));

    expect(execution.error).toBe('InvalidInput');
    expect(await ops.mapping()).toStrictEqual({ state: 'Enabled', ...ORIGINAL });
    expect((await breaker()).disabledAt).toBeUndefined();
  });

  it('steps aside when a newer pause owns the breaker', async () => {
    await ops.update(ops.tables.control, BREAKER, 'SET epoch = :newer', {
      ':newer': { N: String(epoch + 1) },
    });

    const execution = await ops.finished(await pause());

    expect(execution.status).toBe('SUCCEEDED');
    expect(await breaker()).toMatchObject({ epoch: { N: String(epoch + 1) } });
    expect((await breaker()).disabledAt).toBeUndefined();
  });
});

const resumeWith = async (token: string) =>
  ops.clients.sfn.send(
    new SendTaskSuccessCommand({
      taskToken: token,
      output: JSON.stringify({ action: 'resume', who: 'erin@example.com', why: 'dependency back' }),
    }),
  );

describe('pause: the operator', () => {
  it('stop: stays disabled past any cool-down, waiting with a token, until the operator resumes, whatever the input says', async () => {
    await trippedAsStop('quarantine-unwritable');
    // The input cannot lift a stop: only the breaker item and the operator count (issue 8, defect 2).
    const executionArn = await pause({ stop: false, reason: 'outage', cooldownSeconds: 1 });

    const waiting = await eventually('a stored task token', async () => {
      const item = await answer();
      return item.taskToken?.S ? item : undefined;
    });
    expect(await breaker()).toMatchObject({
      state: { S: 'open' },
      stop: { BOOL: true },
      reason: { S: 'quarantine-unwritable' },
    });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await ops.mapping()).toMatchObject({ state: 'Disabled' });
    expect((await breaker()).state).toStrictEqual({ S: 'open' });
    expect(await ops.status(executionArn)).toBe('RUNNING');
    const notes = await ops.notifications();
    expect(notes.find((n) => n.epoch === epoch)).toMatchObject({
      event: 'paused',
      stop: true,
      reason: 'quarantine-unwritable',
    });
    expect(JSON.stringify(notes)).not.toContain(String(waiting.taskToken?.S));

    // The CLI: the answer first, then the stored token.
    await operatorSays('resume');
    await resumeWith(String(waiting.taskToken?.S));

    expect((await ops.finished(executionArn)).status).toBe('SUCCEEDED');
    expect(await ops.mapping()).toStrictEqual({ state: 'Enabled', ...ORIGINAL });
    const closed = await breaker();
    expect(closed.state).toStrictEqual({ S: 'closed' });
    expect((await answer()).action).toStrictEqual({ S: 'resume' });
  });

  it('an operator hold at a loop point: no probe, a stop recorded, a token stored; a hold answer waits again', async () => {
    const executionArn = await pause({ cooldownSeconds: 2 });
    await eventually('the breaker open', async () => (await breaker()).disabledAt);

    await operatorSays('hold');

    const first = await eventually('a stored task token', async () => (await answer()).taskToken?.S, 10_000);
    expect(await breaker()).toMatchObject({ state: { S: 'open' }, stop: { BOOL: true } });
    expect((await ops.mapping()).state).toBe('Disabled');
    await ops.clients.sfn.send(
      new SendTaskSuccessCommand({
        taskToken: first,
        output: JSON.stringify({ action: 'hold', who: 'erin', why: 'x' }),
      }),
    );
    const second = await eventually('a new task token', async () => {
      const token = (await answer()).taskToken?.S;
      return token && token !== first ? token : undefined;
    });
    expect(await ops.status(executionArn)).toBe('RUNNING');

    await operatorSays('resume');
    await resumeWith(second);

    expect((await ops.finished(executionArn)).status).toBe('SUCCEEDED');
    expect(await ops.mapping()).toStrictEqual({ state: 'Enabled', ...ORIGINAL });
  });

  it('a resume set before the machine stores its token is not lost', async () => {
    await trippedAsStop('quarantine-capacity');
    await operatorSays('resume');

    const execution = await ops.finished(await pause());

    expect(execution.status).toBe('SUCCEEDED');
    expect(await ops.mapping()).toStrictEqual({ state: 'Enabled', ...ORIGINAL });
    expect((await answer()).taskToken).toBeUndefined();
  });

  it('takes the construct timings when the input has none, and rejects bad timings', async () => {
    const defaulted = await pause({
      cooldownSeconds: undefined,
      probeSeconds: undefined,
      pollSeconds: undefined,
    });
    await eventually('the breaker open', async () => (await breaker()).disabledAt);
    expect((await breaker()).cooldownSeconds).toStrictEqual({ N: '60' });
    expect(await ops.status(defaulted)).toBe('RUNNING');
    await ops.stopRunning();

    const rejected = await ops.finished(
      await ops.start('pause', `pause-bad-${epoch}`, {
        kind: 'pause',
        reason: 'x',
        epoch,
        stop: false,
        cooldownSeconds: 0,
      }),
    );
    expect(rejected.error).toBe('InvalidInput');
  });

  it('rejects an outcome-unknown input before it touches the breaker or the mapping', async () => {
    const rejected = await ops.finished(
      await ops.start('pause', `ou-q-${epoch}`, {
        kind: 'outcome-unknown',
        quarantineId: `q-${epoch}`,
        messageKey: 'k',
        reason: 'outage',
        epoch,
        stop: false,
      }),
    );

    expect(rejected).toMatchObject({ status: 'FAILED', error: 'InvalidInput' });
    expect(await ops.mapping()).toStrictEqual({ state: 'Enabled', ...ORIGINAL });
    expect((await breaker()).disabledAt).toBeUndefined();
  });
});

/**
 * Issue 22, defect 5: the consumer role may write the breaker item (it trips it, counts probes),
 * so a stop it requested must not be something it can write away. The consumer's code trips the
 * stop; then, with writes its role allows, it clears `stop`, moves to a new epoch, forges an
 * operator's resume and starts a run of that epoch. Only `pq resume` may restore the mapping.
 */
describe('defect 5: a stop the consumer role can lift', () => {
  const consumer = () => new ControlState(ops.clients.dynamodb, ops.tables.control);
  const operator = () => new OperatorControl(ops.clients.dynamodb, ops.tables.control, 60);
  const timings = { cooldownSeconds: 1, maxCooldownSeconds: 2, probeSeconds: 1, pollSeconds: 1 };
  const waitsForOperator = async () => (await operator().read()).breaker.waitingForOperator || undefined;
  /** An UpdateItem on the breaker item, as the consumer's role may make one. */
  const consumerUpdate = (update: string, values: Record<string, AttributeValue>) =>
    ops.clients.dynamodb.send(
      new UpdateItemCommand({
        TableName: ops.tables.control,
        Key: BREAKER,
        UpdateExpression: update,
        ExpressionAttributeNames: namesIn(update),
        ExpressionAttributeValues: values,
      }),
    );

  it('a stop stays until pq resume, whatever the consumer writes on the breaker and whatever run it starts', async () => {
    await consumerUpdate('SET #state = :closed', { ':closed': { S: 'closed' } });
    const stop = await consumer().tripBreaker({
      reason: 'quarantine-unwritable',
      now: new Date(),
      stop: true,
    });
    await ops.start('pause', `pause-${stop.epoch}`, {
      kind: 'pause',
      reason: 'quarantine-unwritable',
      epoch: stop.epoch,
      stop: true,
      ...timings,
    });
    await eventually('the stop waits for an operator', waitsForOperator);

    // The consumer's own writes: no stop, a new epoch, an operator's resume, and a run of it.
    const forged = stop.epoch + 1;
    await consumerUpdate(
      'SET #stop = :false, #epoch = :forged, #reason = :outage, #operatorAction = :resume REMOVE #taskToken',
      {
        ':false': { BOOL: false },
        ':forged': { N: String(forged) },
        ':outage': { S: 'outage' },
        ':resume': { S: 'resume' },
      },
    );
    const run = await ops.start('pause', `pause-${forged}`, {
      kind: 'pause',
      reason: 'outage',
      epoch: forged,
      stop: false,
      ...timings,
    });
    await eventually(
      'the run restores the mapping or waits for an operator',
      async () => (await ops.mapping()).state === 'Enabled' || (await waitsForOperator()),
      20_000,
    );
    expect(await ops.mapping()).toMatchObject({ state: 'Disabled' });
    expect(await ops.status(run)).toBe('RUNNING');

    // pq resume: the operator's answer, then the waiting run's token.
    const when = new Date().toISOString();
    await operator().setOperatorAction('resume', { who: 'erin', when, what: 'resume', why: 'fixed' });
    await resumeWith(String(await operator().breakerTaskToken()));
    expect((await ops.finished(run)).status).toBe('SUCCEEDED');
    expect(await ops.mapping()).toStrictEqual({ state: 'Enabled', ...ORIGINAL });
    epoch = forged;
  });
});
