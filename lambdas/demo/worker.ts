/**
 * The demo processing module the demo stack deploys. Each message says in its body what the
 * worker does with it, so a rehearsal stages every branch of the behaviour contract with plain
 * messages. Body: JSON such as {"id": "M3", "behaviour": "crash-in-parser", "times": 2}.
 *
 * | behaviour                       | what the worker does                                                  | contract   |
 * |---------------------------------|-----------------------------------------------------------------------|------------|
 * | succeed (default)               | plain work; no stage, no external call: only the wrapper's writes     | completes  |
 * | succeed-with-external           | calls the outside system through ctx.external, then returns           | completes  |
 * | slow                            | works SLOW_WORK_MS (2 s, half of a 4 s invocation), then returns      | time guard |
 * | crash-in-parser                 | SIGKILLs its own process before any external call                     | rules 5, 6 |
 * |   (alias crash-before-external) |                                                                       |            |
 * | crash-after-external            | ctx.stage('parsed'); inside ctx.external sends the request, waits for | rule 8     |
 * |                                 | the answer, then SIGKILLs its own process before returning            |            |
 * | external-then-keyed-then-crash  | calls the outside system with no idempotency key, then again with one | rule 8     |
 * |                                 | (call "notify"); once both results are recorded, SIGKILLs itself      |            |
 * | throw-transient                 | throws TransientError                                                 | rules 7, 9 |
 * | throw-permanent                 | throws PermanentError                                                 | rule 9     |
 * | throw-unknown                   | throws a plain Error                                                  | rule 9     |
 * | hang                            | waits past the invocation's deadline, so the platform kills it        | a crash    |
 *
 * - "idempotencyKey": "K" declares the outside call of succeed-with-external and
 *   crash-after-external with that key (rule 8: a keyed call may be repeated); without it the call
 *   is keyless. A key that is not a non-empty string throws PermanentError.
 * - "times": N limits a misbehaviour (crash, throw, hang) to attempts 1..N (message.attempt);
 *   later attempts plainly succeed. Without it the message misbehaves on every attempt.
 * - A body that is not a JSON object, or names no behaviour, succeeds: arbitrary bytes must not
 *   choke the demo. An unknown behaviour name or a bad "times" throws PermanentError: a typo in a
 *   scenario should be loud.
 * - The outside system is called at DEMO_OUTSIDE_SYSTEM_URL with the body's "id" (else the
 *   message key), so it can count requests per message (both calls of
 *   external-then-keyed-then-crash count under that id, the keyless one first).
 * - Crashes are real `SIGKILL`s of this process, not thrown errors: no code runs after them.
 */
import { env, kill, pid } from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Processor, QueueMessage, WorkContext } from '../consumer/types';
import { PermanentError, TransientError } from '../core/errors';
import { callOutsideSystem } from './outside-system-client';

/** Name of the environment variable holding the outside system's URL. */
export const DEMO_OUTSIDE_SYSTEM_URL_ENV = 'DEMO_OUTSIDE_SYSTEM_URL';

/** How long `hang` outlives its deadline before concluding nobody enforces the timeout. */
export const HANG_OVERRUN_MS = 1_000;
/** How long `slow` works: two of them in one 4 s invocation would outlast it. */
export const SLOW_WORK_MS = 2_000;
/** Left of the invocation's time when an external call gives up waiting, so its end can be recorded. */
const EXTERNAL_CALL_MARGIN_MS = 1_000;

const MISBEHAVIOURS = [
  'crash-in-parser',
  'crash-before-external',
  'crash-after-external',
  'throw-transient',
  'throw-permanent',
  'throw-unknown',
  'hang',
  'external-then-keyed-then-crash',
] as const;
/** Every behaviour a message may ask for (rehearsal scenarios are checked against this list). */
export const BEHAVIOURS = ['succeed', 'succeed-with-external', 'slow', ...MISBEHAVIOURS] as const;
export type Behaviour = (typeof BEHAVIOURS)[number];

interface Order {
  readonly id: string;
  readonly behaviour: Behaviour;
  readonly times?: number;
  /** The idempotency key of the call to the outside system. @default - a keyless call */
  readonly idempotencyKey?: string;
}

/** One declared call to the outside system. */
interface ExternalCall {
  /** @default 'outside-system' */
  readonly name?: string;
  /** @default - none: a keyless call, never repeated automatically (rule 8) */
  readonly idempotencyKey?: string;
  /** Runs once the answer is in, before its result is recorded (a crash at that point). */
  readonly after?: () => never;
}

export interface DemoSettings {
  /** @default - none: a message that needs the outside system fails with a plain Error */
  readonly outsideSystemUrl?: string;
}

export function createDemoProcessor(settings: DemoSettings): Processor {
  const external = (
    order: Order,
    message: QueueMessage,
    ctx: WorkContext,
    { name = 'outside-system', idempotencyKey, after }: ExternalCall = {},
  ) =>
    ctx.external(
      name,
      async () => {
        if (!settings.outsideSystemUrl) throw new Error(`${DEMO_OUTSIDE_SYSTEM_URL_ENV} is not set`);
        const timeoutMs = Math.max(100, ctx.remainingTimeMs() - EXTERNAL_CALL_MARGIN_MS);
        await callOutsideSystem(
          settings.outsideSystemUrl,
          { messageId: order.id, attempt: message.attempt },
          timeoutMs,
        );
        after?.();
      },
      { idempotencyKey },
    );

  return async (message, ctx) => {
    const order = readOrder(message);
    switch (behaviourOnAttempt(order, message.attempt)) {
      case 'succeed':
        return;
      case 'succeed-with-external':
        return external(order, message, ctx, { idempotencyKey: order.idempotencyKey });
      case 'slow':
        await sleep(SLOW_WORK_MS);
        return;
      case 'crash-in-parser':
      case 'crash-before-external':
        return killThisProcess();
      case 'crash-after-external':
        await ctx.stage('parsed');
        return external(order, message, ctx, {
          idempotencyKey: order.idempotencyKey,
          after: killThisProcess,
        });
      case 'external-then-keyed-then-crash':
        // The crash comes after the keyed call's result is recorded: that write must not make
        // the keyless call look repeatable.
        await external(order, message, ctx);
        await external(order, message, ctx, { name: 'notify', idempotencyKey: `${order.id}/notify` });
        return killThisProcess();
      case 'throw-transient':
        throw new TransientError(`demo: transient failure of ${order.id}`);
      case 'throw-permanent':
        throw new PermanentError(`demo: permanent failure of ${order.id}`);
      case 'throw-unknown':
        throw new Error(`demo: unknown failure of ${order.id}`);
      case 'hang':
        await sleep(ctx.remainingTimeMs() + HANG_OVERRUN_MS);
        throw new Error(`demo: ${order.id} outlived its deadline; nothing enforced the timeout`);
    }
  };
}

/** The module the consumer loads: its settings are read once, at cold start. */
export const process: Processor = createDemoProcessor({ outsideSystemUrl: env[DEMO_OUTSIDE_SYSTEM_URL_ENV] });

function readOrder(message: QueueMessage): Order {
  const body = parseObject(message.body);
  const id = typeof body?.id === 'string' ? body.id : message.key;
  if (body?.behaviour === undefined) return { id, behaviour: 'succeed' };
  const behaviour = BEHAVIOURS.find((known) => known === body.behaviour);
  if (!behaviour)
    throw new PermanentError(`demo: unknown behaviour ${JSON.stringify(body.behaviour)} in ${id}`);
  const key = body.idempotencyKey;
  if (key !== undefined && (typeof key !== 'string' || key === '')) {
    throw new PermanentError(
      `demo: "idempotencyKey" must be a non-empty string in ${id} (given ${JSON.stringify(key)})`,
    );
  }
  const keyed = key === undefined ? {} : { idempotencyKey: key };
  const times = body.times;
  if (times === undefined) return { id, behaviour, ...keyed };
  if (typeof times !== 'number' || !Number.isInteger(times) || times < 0) {
    throw new PermanentError(
      `demo: "times" must be a whole number >= 0 in ${id} (given ${JSON.stringify(times)})`,
    );
  }
  return { id, behaviour, times, ...keyed };
}

/** Past its "times", a misbehaving message plainly succeeds; the success behaviours ignore "times". */
function behaviourOnAttempt(order: Order, attempt: number): Behaviour {
  const misbehaviour = MISBEHAVIOURS.some((known) => known === order.behaviour);
  return misbehaviour && order.times !== undefined && attempt > order.times ? 'succeed' : order.behaviour;
}

function parseObject(body: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A real crash: the kernel ends the process inside this call, so nothing after it runs. */
function killThisProcess(): never {
  kill(pid, 'SIGKILL');
  throw new Error('unreachable: SIGKILL did not end the process');
}
