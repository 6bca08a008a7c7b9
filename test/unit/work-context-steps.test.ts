/**
 * The `ctx` a user's work receives (consumer/work-context.ts), on the in-memory world: what each
 * declared call writes to the ledger and when (pending before the call, its end after, the end
 * retried as a settle write, a refused pending write stopping the call), which call a person is
 * shown as evidence, the warning when a call's result could not be recorded, the errors the
 * user's code gets (their message and cause), the time margin at which an unanswered call is
 * given up, and the call's alarm being called off once it answers. Mutation testing (issue 19)
 * found these unpinned by the tests it runs.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OutcomeUnknownError } from '../../lambdas/core/errors';
import type { ExternalRecord } from '../../lambdas/core/types';
import { LedgerUnavailableError, StaleAttemptError } from '../../lambdas/ports/errors';
import { drive } from '../../sim/world/drive';
import { testWorld } from '../../sim/world/scenario';
import type { Step } from '../../sim/world/scripted-processor';
import { WORLD_TIMEOUT_SECONDS, World } from '../../sim/world/world';

afterEach(() => {
  vi.restoreAllMocks();
});

/** The line an operator reads when a call returned and its result could not be recorded. */
const UNRECORDED = 'a call returned but its result was not recorded: the attempt goes on';

const charge = { do: 'external', name: 'charge', result: 'ok' } as const satisfies Step;

/** Quarantine records as a person reads them. */
const records = (world: World) => [...world.quarantine.records.values()];

/**
 * Makes the attempts table refuse the first call record `refused` picks with `error`; every
 * other record is written as usual.
 */
function refuseCallRecords(world: World, refused: (external: ExternalRecord) => boolean, error: Error) {
  const recordExternal = world.ledger.recordExternal.bind(world.ledger);
  let left = 1;
  return vi
    .spyOn(world.ledger, 'recordExternal')
    .mockImplementation(async (key, attemptId, external, unrepeatable) => {
      if (left > 0 && refused(external)) {
        left -= 1;
        throw error;
      }
      return recordExternal(key, attemptId, external, unrepeatable);
    });
}

describe("a declared call's records on the ledger", () => {
  it('given a keyless call that answers, then the ledger gets pending before the call and done after, each kept as the unrepeatable call, and no idempotency key', async () => {
    // Prepare
    const { world } = testWorld({ scripts: { M1: [[charge]] } });
    const recordExternal = vi.spyOn(world.ledger, 'recordExternal');
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    const at = world.clock.date().toISOString();

    // Act
    await world.deliver(world.environment(), 1);

    // Assess
    const attemptId = world.ledger.get('id-M1')?.attemptId;
    const pending = { name: 'charge', status: 'pending', at };
    const done = { name: 'charge', status: 'done', at };
    expect(recordExternal.mock.calls).toStrictEqual([
      ['id-M1', attemptId, pending, pending],
      ['id-M1', attemptId, done, done],
    ]);
  });

  it('given a keyless call refused before sending, then the not-sent write clears the unrepeatable call, and the message is retried', async () => {
    // Prepare
    const { world, outside } = testWorld({
      scripts: { M1: [[{ do: 'external', name: 'charge', result: 'refused' }], [charge]] },
    });
    const recordExternal = vi.spyOn(world.ledger, 'recordExternal');
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    const at = world.clock.date().toISOString();

    // Act
    await world.deliver(world.environment(), 1);
    const firstAttempt = { calls: [...recordExternal.mock.calls], item: world.ledger.get('id-M1') };
    await drive(world);

    // Assess
    const pending = { name: 'charge', status: 'pending', at };
    const notSent = { name: 'charge', status: 'not-sent', at };
    const attemptId = firstAttempt.item?.attemptId;
    expect(firstAttempt.calls).toStrictEqual([
      ['id-M1', attemptId, pending, pending],
      ['id-M1', attemptId, notSent, undefined],
    ]);
    expect(world.quarantine.records.size).toBe(0);
    expect(outside.count('id-M1', 'charge')).toBe(1);
    expect(world.ledger.get('id-M1')).toMatchObject({ state: 'completed', attempts: 2 });
  });

  it('given the done write is throttled once, then it is retried: the ledger holds the call as done, and no warning', async () => {
    // Prepare
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const { world, fired } = testWorld({
      scripts: { M1: [[charge]] },
      faults: [{ at: 'ledger.recordExternal:done', error: 'throttle' }],
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await world.deliver(world.environment(), 1);

    // Assess
    expect(fired.get('ledger.recordExternal:done')).toBe(1);
    expect(world.ledger.get('id-M1')).toMatchObject({
      state: 'completed',
      external: { name: 'charge', status: 'done' },
      unrepeatable: { name: 'charge', status: 'done' },
    });
    expect(warn).not.toHaveBeenCalledWith(UNRECORDED, expect.anything());
  });

  it('given a call refused before sending whose not-sent write is throttled once, then it is retried: the ledger says not sent, holds no unrepeatable call, and the error counts as transient', async () => {
    // Prepare
    const { world, fired } = testWorld({
      scripts: { M1: [[{ do: 'external', name: 'charge', result: 'refused' }]] },
      faults: [{ at: 'ledger.recordExternal:not-sent', error: 'throttle' }],
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await world.deliver(world.environment(), 1);

    // Assess
    expect(fired.get('ledger.recordExternal:not-sent')).toBe(1);
    const item = world.ledger.get('id-M1');
    expect(item).toMatchObject({
      state: 'ready',
      transientFailures: 1,
      external: { name: 'charge', status: 'not-sent' },
    });
    expect(item?.unrepeatable).toBeUndefined();
  });

  it('given the pending write is throttled once, then the call is not made and the message goes back uncharged; its redelivery makes it once', async () => {
    // Prepare
    const { world, outside } = testWorld({
      scripts: { M1: [[charge]] },
      faults: [{ at: 'ledger.recordExternal:pending', error: 'throttle' }],
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await world.deliver(world.environment(), 1);
    const afterFirst = { requests: outside.count('id-M1', 'charge'), item: world.ledger.get('id-M1') };
    await drive(world);

    // Assess
    expect(afterFirst.requests).toBe(0);
    expect(afterFirst.item).toMatchObject({ state: 'ready', charged: 0, transientFailures: 0 });
    expect(afterFirst.item?.unrepeatable).toBeUndefined();
    expect(outside.count('id-M1', 'charge')).toBe(1);
    expect(world.ledger.get('id-M1')?.state).toBe('completed');
  });
});

describe('a call that returned but whose result our table refused', () => {
  it('given the done write refused on every try, then a warning names the message and the call, and the work goes on to complete', async () => {
    // Prepare
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const { world } = testWorld({
      scripts: { M1: [[charge]] },
      faults: [{ at: 'ledger.recordExternal:done', error: 'throttle', times: 4 }],
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await world.deliver(world.environment(), 1);

    // Assess
    expect(warn).toHaveBeenCalledWith(UNRECORDED, {
      event: 'call-result-unrecorded',
      messageKey: 'id-M1',
      call: 'charge',
      error: expect.objectContaining({ name: 'LedgerUnavailableError' }),
    });
    expect(world.ledger.get('id-M1')?.state).toBe('completed');
  });

  it('given the done write refused because another attempt owns the item, then the refusal reaches the work, unwarned, and the attempt does not complete', async () => {
    // Prepare
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const seen: unknown[] = [];
    const world: World = new World({
      random: () => 0.5,
      processorFor: () => ({
        async process(_message, ctx) {
          try {
            await ctx.external('charge', async () => 'ok', { idempotencyKey: 'k-1' });
          } catch (error) {
            seen.push(error);
            throw error;
          }
        },
      }),
    });
    const stale = new StaleAttemptError('recordExternal refused: another attempt owns the item', undefined);
    refuseCallRecords(world, (external) => external.status === 'done', stale);
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await world.deliver(world.environment(), 1);

    // Assess
    expect(seen).toStrictEqual([stale]);
    expect(warn).not.toHaveBeenCalledWith(UNRECORDED, expect.anything());
    expect(world.ledger.get('id-M1')).toMatchObject({
      state: 'ready',
      lastError: { name: 'StaleAttemptError' },
    });
  });
});

describe('an error of ours during the work that is no table failing', () => {
  it('given a stage write refused because another attempt owns the item, then it fails the work as its own error, not as our table being down', async () => {
    // Prepare
    const error = vi.spyOn(Logger.prototype, 'error');
    const { world } = testWorld({ scripts: { M1: [[{ do: 'stage', name: 'parsed' }]] } });
    vi.spyOn(world.ledger, 'recordStage').mockRejectedValueOnce(
      new StaleAttemptError('recordStage refused: another attempt owns the item', undefined),
    );
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await world.deliver(world.environment(), 1);

    // Assess
    expect(error).not.toHaveBeenCalledWith(
      'our own table is unavailable: the record goes back uncharged',
      expect.anything(),
    );
    expect(world.ledger.get('id-M1')).toMatchObject({
      state: 'ready',
      unknownFailures: 1,
      lastError: { class: 'unknown', name: 'StaleAttemptError' },
    });
  });
});

describe('the call a person is shown', () => {
  it('given a keyless charge and then a call whose pending write is refused, then the record names the charge as done, not the call never made', async () => {
    // Prepare
    const { world, outside } = testWorld({
      scripts: { M1: [[charge, { do: 'external', name: 'refund', result: 'ok' }]] },
    });
    refuseCallRecords(
      world,
      (external) => external.name === 'refund' && external.status === 'pending',
      new LedgerUnavailableError('recordExternal failed: ThrottlingException (HTTP 400)'),
    );
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    const at = world.clock.date().toISOString();

    // Act
    await drive(world);

    // Assess
    expect(outside.count('id-M1', 'refund')).toBe(0);
    expect(records(world).map((record) => [record.reason, record.external])).toStrictEqual([
      ['outcome-unknown', { name: 'charge', status: 'done', at }],
    ]);
  });

  it('given a keyless charge whose done write was refused on every try and then a permanent error, then the record names the charge as done', async () => {
    // Prepare
    const { world } = testWorld({
      scripts: { M1: [[charge, { do: 'throw', error: 'permanent' }]] },
      faults: [{ at: 'ledger.recordExternal:done', error: 'throttle', times: 4 }],
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await drive(world);

    // Assess
    expect(records(world).map((record) => [record.reason, record.external])).toStrictEqual([
      ['outcome-unknown', expect.objectContaining({ name: 'charge', status: 'done' })],
    ]);
  });
});

describe('a keyless call that fails after it may have been sent', () => {
  const timeout = [[{ do: 'external', name: 'charge', result: 'timeout' } as const]];

  it('given a call that times out, then the person asked reads an outcome-unknown error naming the call', async () => {
    // Prepare
    const { world } = testWorld({ scripts: { M1: timeout } });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await drive(world);

    // Assess
    expect(records(world).map((record) => [record.reason, record.lastError])).toStrictEqual([
      [
        'outcome-unknown',
        expect.objectContaining({
          class: 'outcome-unknown',
          name: 'OutcomeUnknownError',
          message: 'the call "charge" may or may not have reached the outside system',
        }),
      ],
    ]);
  });

  it("given a call that times out, then the user's code catches an OutcomeUnknownError whose cause is the call's own error", async () => {
    // Prepare
    const timedOut = Object.assign(new Error('socket timed out'), { name: 'TimeoutError' });
    const seen: unknown[] = [];
    const world: World = new World({
      random: () => 0.5,
      processorFor: () => ({
        async process(_message, ctx) {
          try {
            await ctx.external('charge', () => Promise.reject(timedOut));
          } catch (error) {
            seen.push(error);
            throw error;
          }
        },
      }),
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await world.deliver(world.environment(), 1);

    // Assess
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(OutcomeUnknownError);
    expect((seen[0] as Error).cause).toBe(timedOut);
  });
});

describe("a call and the invocation's time", () => {
  /** The margin kept before the deadline: a tenth of the 30 s timeout. */
  const MARGIN_MS = 3000;

  it('given exactly the margin left, then a call is not given up: it answers a second later and the message completes', async () => {
    // Prepare: the work takes the invocation up to its margin; the call then takes 1 s.
    const world: World = new World({
      random: () => 0.5,
      processorFor: (env) => ({
        async process(_message, ctx) {
          await world.pass(env, WORLD_TIMEOUT_SECONDS * 1000 - MARGIN_MS);
          await ctx.external('charge', () => world.pass(env, 1000));
        },
      }),
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await world.deliver(world.environment(), 1);

    // Assess
    expect(world.ledger.get('id-M1')).toMatchObject({
      state: 'completed',
      external: { name: 'charge', status: 'done' },
    });
    expect(world.quarantine.records.size).toBe(0);
  });

  it('given a keyed call that never answers, then it is given up the margin before the deadline with an error saying so, and retried as transient', async () => {
    // Prepare
    const world: World = new World({
      random: () => 0.5,
      processorFor: () => ({
        async process(_message, ctx) {
          await ctx.external('charge', () => new Promise<void>(() => undefined), { idempotencyKey: 'k-1' });
        },
      }),
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    const start = world.clock.now();

    // Act
    const result = await world.deliver(world.environment(), 1);

    // Assess
    expect(result.kind).toBe('returned');
    expect(world.ledger.get('id-M1')).toMatchObject({
      state: 'ready',
      transientFailures: 1,
      lastEndedAt: new Date(start + WORLD_TIMEOUT_SECONDS * 1000 - MARGIN_MS).toISOString(),
      lastError: {
        class: 'transient',
        name: 'CallUnansweredError',
        message: "no answer before the invocation's time ran out",
      },
    });
  });

  it('given a call that answers, then its alarm is called off: no timer is left running after the invocation', async () => {
    // Prepare
    const { world } = testWorld({ scripts: { M1: [[charge]] } });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await world.deliver(world.environment(), 1);

    // Assess
    expect(world.ledger.get('id-M1')?.state).toBe('completed');
    expect(world.timers.pendingCount).toBe(0);
  });
});
