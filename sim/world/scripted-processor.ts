/**
 * A user's processing module whose every attempt follows a script, and the outside system it
 * calls, which counts requests per message and call name. A script is chosen per message and
 * attempt (`ScriptFor`), so a test or the fault campaign can stage any branch of the contract:
 * stages, declared external calls that succeed, fail before sending, time out after sending or
 * die around the call, caught errors of each class, crashes, and work that takes virtual time
 * (past the deadline it is a timeout: the environment dies, as Lambda kills it).
 */
import type { ProcessorModule, QueueMessage, WorkContext } from '../../lambdas/consumer/types';
import { PermanentError, TransientError } from '../../lambdas/core/errors';
import type { ExecutionEnvironment, World } from './world';

export type Step =
  | { readonly do: 'stage'; readonly name: string }
  | {
      readonly do: 'external';
      readonly name: string;
      readonly idempotencyKey?: string;
      /** ok: answered; refused: not connected (provably not sent); timeout: sent, no answer. */
      readonly result: 'ok' | 'refused' | 'timeout' | 'crash-during' | 'crash-after';
    }
  | { readonly do: 'throw'; readonly error: 'transient' | 'permanent' | 'unknown' }
  | { readonly do: 'crash' }
  | { readonly do: 'work'; readonly ms: number };

/** The steps of one attempt; an empty script completes at once. */
export type ScriptFor = (message: QueueMessage) => readonly Step[];

export class OutsideSystem {
  /** `<message key>|<call name>` -> requests received. */
  readonly requests = new Map<string, number>();

  receive(key: string, name: string): void {
    const id = `${key}|${name}`;
    this.requests.set(id, (this.requests.get(id) ?? 0) + 1);
  }

  count(key: string, name: string): number {
    return this.requests.get(`${key}|${name}`) ?? 0;
  }
}

export function scriptedProcessor(
  env: ExecutionEnvironment,
  time: Pick<World, 'pass'>,
  outside: OutsideSystem,
  scriptFor: ScriptFor,
): ProcessorModule {
  return {
    async process(message, ctx) {
      for (const step of scriptFor(message)) await run(step, message, ctx, env, time, outside);
    },
  };
}

async function run(
  step: Step,
  message: QueueMessage,
  ctx: WorkContext,
  env: ExecutionEnvironment,
  time: Pick<World, 'pass'>,
  outside: OutsideSystem,
): Promise<void> {
  if (!env.alive) return env.crash();
  switch (step.do) {
    case 'stage':
      return ctx.stage(step.name);
    case 'throw':
      throw thrown(step.error);
    case 'crash':
      return env.crash();
    case 'work':
      // Past the invocation's deadline Lambda kills it there: a timeout is a crash.
      return time.pass(env, step.ms);
    case 'external': {
      const options = step.idempotencyKey === undefined ? {} : { idempotencyKey: step.idempotencyKey };
      await ctx.external(step.name, () => callOutside(step, message, env, outside), options);
      if (step.result === 'crash-after') return env.crash();
      return;
    }
  }
}

async function callOutside(
  step: Extract<Step, { do: 'external' }>,
  message: QueueMessage,
  env: ExecutionEnvironment,
  outside: OutsideSystem,
): Promise<void> {
  if (!env.alive) return env.crash();
  if (step.result === 'refused') {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
  }
  outside.receive(message.key, step.name);
  if (step.result === 'crash-during') return env.crash();
  if (step.result === 'timeout') throw Object.assign(new Error('socket timed out'), { name: 'TimeoutError' });
}

function thrown(error: 'transient' | 'permanent' | 'unknown'): Error {
  switch (error) {
    case 'transient':
      return new TransientError('dependency busy');
    case 'permanent':
      return new PermanentError('amount is negative');
    case 'unknown':
      return new TypeError("Cannot read properties of undefined (reading 'id')");
  }
}
