/**
 * The demo worker's behaviours that do not kill the process, with a hand-rolled WorkContext, and
 * the outside system it calls (a real loopback HTTP server). The crashing behaviours run in a real
 * child process in test/integration/runner-demo.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { QueueMessage, WorkContext } from '../../lambdas/consumer/types';
import {
  OutcomeUnknownError,
  PermanentError,
  PoisonQuarantineError,
  TransientError,
} from '../../lambdas/core/errors';
import { createDemoProcessor, HANG_OVERRUN_MS, SLOW_WORK_MS } from '../../lambdas/demo/worker';
import {
  type OutsideSystem,
  type OutsideSystemOptions,
  startOutsideSystem,
} from '../../local/outside-system';

let outside: OutsideSystem | undefined;
afterEach(async () => {
  await outside?.stop();
  outside = undefined;
});

async function startOutside(options: OutsideSystemOptions = {}): Promise<OutsideSystem> {
  outside = await startOutsideSystem(options);
  return outside;
}

function message(body: string, attempt = 1): QueueMessage {
  return { messageId: 'm-1', key: 'm-1', body, attributes: {}, messageAttributes: {}, attempt };
}

/** A WorkContext that records what the worker asked of it; external calls run straight through. */
function recordingContext(remainingTimeMs = 5_000) {
  const calls: string[] = [];
  const ctx: WorkContext = {
    stage: async (name) => {
      calls.push(`stage:${name}`);
    },
    external: (name, call) => {
      calls.push(`external:${name}`);
      return call();
    },
    remainingTimeMs: () => remainingTimeMs,
  };
  return { ctx, calls };
}

const order = (fields: Record<string, unknown>) => JSON.stringify({ id: 'M1', ...fields });

describe('demo worker', () => {
  it.each([
    ['an order without behaviour', order({})],
    ['succeed', order({ behaviour: 'succeed' })],
    ['a non-JSON body', '\u0000not json at all'],
    ['a JSON body that is not an object', '[1,2,3]'],
    ['JSON null', 'null'],
  ])('%s succeeds without touching the context', async (_, body) => {
    const { ctx, calls } = recordingContext();
    await expect(createDemoProcessor({})(message(body), ctx)).resolves.toBeUndefined();
    expect(calls).toStrictEqual([]);
  });

  it('succeed-with-external calls the outside system once, through ctx.external', async () => {
    const server = await startOutside();
    const { ctx, calls } = recordingContext();
    await createDemoProcessor({ outsideSystemUrl: server.url })(
      message(order({ behaviour: 'succeed-with-external' })),
      ctx,
    );
    expect(calls).toStrictEqual(['external:outside-system']);
    expect(server.counts()).toStrictEqual({ M1: 1 });
  });

  it('names the message key to the outside system when the body has no id', async () => {
    const server = await startOutside();
    const { ctx } = recordingContext();
    const body = JSON.stringify({ behaviour: 'succeed-with-external' });
    await createDemoProcessor({ outsideSystemUrl: server.url })(message(body), ctx);
    expect(server.counts()).toStrictEqual({ 'm-1': 1 });
  });

  it.each([
    { behaviour: 'throw-transient', errorClass: TransientError },
    { behaviour: 'throw-permanent', errorClass: PermanentError },
  ])('$behaviour throws a $errorClass.name', async ({ behaviour, errorClass }) => {
    const { ctx } = recordingContext();
    await expect(createDemoProcessor({})(message(order({ behaviour })), ctx)).rejects.toBeInstanceOf(
      errorClass,
    );
  });

  it('throw-unknown throws a plain Error, none of ours', async () => {
    const { ctx } = recordingContext();
    const failure = createDemoProcessor({})(message(order({ behaviour: 'throw-unknown' })), ctx);
    await expect(failure).rejects.toThrow('demo: unknown failure of M1');
    await expect(failure).rejects.not.toBeInstanceOf(PoisonQuarantineError);
  });

  it('misbehaves only on attempts 1..times, then succeeds', async () => {
    const work = createDemoProcessor({});
    const body = order({ behaviour: 'throw-transient', times: 2 });
    await expect(work(message(body, 2), recordingContext().ctx)).rejects.toBeInstanceOf(TransientError);
    await expect(work(message(body, 3), recordingContext().ctx)).resolves.toBeUndefined();
  });

  it('ignores "times" for the success behaviours', async () => {
    const server = await startOutside();
    const body = order({ behaviour: 'succeed-with-external', times: 0 });
    await createDemoProcessor({ outsideSystemUrl: server.url })(message(body, 5), recordingContext().ctx);
    expect(server.counts()).toStrictEqual({ M1: 1 });
  });

  it('hang outlives its deadline and then says that nothing enforced the timeout', async () => {
    const started = Date.now();
    const hang = createDemoProcessor({})(message(order({ behaviour: 'hang' })), recordingContext(50).ctx);
    await expect(hang).rejects.toThrow(/outlived its deadline/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(50 + HANG_OVERRUN_MS - 10);
  });

  it('given slow, when it works, then it takes SLOW_WORK_MS and touches nothing', async () => {
    const { ctx, calls } = recordingContext();
    const started = Date.now();
    await createDemoProcessor({})(message(order({ behaviour: 'slow' })), ctx);
    expect(Date.now() - started).toBeGreaterThanOrEqual(SLOW_WORK_MS - 10);
    expect(calls).toStrictEqual([]);
  });

  it('given external-then-keyed-then-crash, when it works, then it calls without a key and then with one', async () => {
    // Prepare: the context stops the worker at the end of its second call, where the real one goes
    // on to SIGKILL this process (test/rehearsal/defects-settle.test.ts runs that part).
    const server = await startOutside();
    const declared: string[] = [];
    const stop = new Error('stopped where the worker would crash');
    const ctx: WorkContext = {
      stage: async () => undefined,
      external: async (name, call, options) => {
        declared.push(`${name} key=${options?.idempotencyKey ?? 'none'}`);
        const result = await call();
        if (declared.length === 2) throw stop;
        return result;
      },
      remainingTimeMs: () => 5_000,
    };

    // Act
    const work = createDemoProcessor({ outsideSystemUrl: server.url })(
      message(order({ behaviour: 'external-then-keyed-then-crash' })),
      ctx,
    );

    // Assess: both calls reached the outside system under the message's id, the keyless one first.
    await expect(work).rejects.toBe(stop);
    expect(declared).toStrictEqual(['outside-system key=none', 'notify key=M1/notify']);
    expect(server.counts()).toStrictEqual({ M1: 2 });
  });

  it('given an idempotency key in the body, when it calls the outside system, then the call is declared with that key', async () => {
    // Prepare
    const server = await startOutside();
    const declared: string[] = [];
    const ctx: WorkContext = {
      stage: async () => undefined,
      external: async (name, call, options) => {
        declared.push(`${name} key=${options?.idempotencyKey ?? 'none'}`);
        return call();
      },
      remainingTimeMs: () => 5_000,
    };
    const work = createDemoProcessor({ outsideSystemUrl: server.url });

    // Act
    await work(message(order({ behaviour: 'succeed-with-external', idempotencyKey: 'order-1' })), ctx);
    await work(message(order({ behaviour: 'succeed-with-external' })), ctx);

    // Assess
    expect(declared).toStrictEqual(['outside-system key=order-1', 'outside-system key=none']);
  });

  it.each([
    ['an unknown behaviour', order({ behaviour: 'explode' }), /unknown behaviour "explode" in M1/],
    [
      'an empty idempotency key',
      order({ behaviour: 'succeed-with-external', idempotencyKey: '' }),
      /"idempotencyKey" must be a non-empty string in M1 \(given ""\)/,
    ],
    [
      'a bad "times"',
      order({ behaviour: 'hang', times: -1 }),
      /"times" must be a whole number >= 0 in M1 \(given -1\)/,
    ],
  ])('throws PermanentError for %s', async (_, body, text) => {
    const failure = createDemoProcessor({})(message(body), recordingContext().ctx);
    await expect(failure).rejects.toBeInstanceOf(PermanentError);
    await expect(failure).rejects.toThrow(text);
  });

  it('fails a message that needs the outside system when no URL is configured', async () => {
    const failure = createDemoProcessor({})(
      message(order({ behaviour: 'succeed-with-external' })),
      recordingContext().ctx,
    );
    await expect(failure).rejects.toThrow('DEMO_OUTSIDE_SYSTEM_URL is not set');
  });
});

describe('demo worker against an unhealthy outside system', () => {
  const callOnce = (url: string, remainingTimeMs = 5_000) =>
    createDemoProcessor({ outsideSystemUrl: url })(
      message(order({ behaviour: 'succeed-with-external' })),
      recordingContext(remainingTimeMs).ctx,
    );

  it.each([
    { status: 503, errorClass: TransientError },
    { status: 429, errorClass: TransientError },
    { status: 422, errorClass: PermanentError },
  ])('an HTTP $status answer becomes a $errorClass.name', async ({ status, errorClass }) => {
    const server = await startOutside({ status });
    await expect(callOnce(server.url)).rejects.toBeInstanceOf(errorClass);
    expect(server.counts()).toStrictEqual({ M1: 1 });
  });

  it('an answer later than the time left is an unknown outcome: the request did arrive', async () => {
    const server = await startOutside({ delayMs: 2_000 });
    // 1,300 ms left minus the 1,000 ms kept for recording the end: the call waits 300 ms.
    await expect(callOnce(server.url, 1_300)).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(server.counts()).toStrictEqual({ M1: 1 });
  });

  it('given an outside system that takes the request and never answers, then the outcome is unknown', async () => {
    const server = await startOutside();
    server.setHang(true);
    await expect(callOnce(server.url, 1_300)).rejects.toBeInstanceOf(OutcomeUnknownError);
    // Counted on arrival, and logged without a status: no answer ever left.
    expect(server.requests().map(({ messageId, status }) => ({ messageId, status }))).toStrictEqual([
      { messageId: 'M1', status: undefined },
    ]);
  });

  it('an outside system that is not listening is transient: nothing was sent', async () => {
    const server = await startOutside();
    await server.stop();
    await expect(callOnce(server.url)).rejects.toBeInstanceOf(TransientError);
  });
});

describe('outside system', () => {
  it('counts requests per message id, from the header or from a JSON body', async () => {
    const server = await startOutside();
    await fetch(server.url, { method: 'POST', headers: { 'x-message-id': 'A' } });
    await fetch(server.url, { method: 'POST', headers: { 'x-message-id': 'A' } });
    await fetch(server.url, { method: 'POST', body: JSON.stringify({ messageId: 'B' }) });
    const anonymous = await fetch(server.url, { method: 'POST', body: 'no id here' });
    expect(anonymous.status).toBe(400);
    expect(server.counts()).toStrictEqual({ A: 2, B: 1 });
  });
});
