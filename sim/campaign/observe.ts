/**
 * Taps on the world that feed the trace without changing what the consumer sees: the ledger's
 * starts and completions, isolation starts, quarantine record creation, the user's work
 * finishing, and each request that reaches the outside system. The outside system's outage is
 * played here too, around each declared call, so it is decided at the moment of the call.
 * The same taps feed the oracle's facts per attempt (attempt-log.ts). A planted bug (for the
 * test that the explorer can fail) is one more tap.
 */
import { LEDGER_STATE } from '../../contract/ledger';
import type { ProcessorModule, WorkContext } from '../../lambdas/consumer/types';
import { OutsideSystem } from '../world/scripted-processor';
import type { ExecutionEnvironment, World } from '../world/world';
import type { FaultBoard } from './fault-board';
import { keyGeneration, type Trace } from './trace';

/** Defects the campaign test plants to prove that the explorer finds them. */
export type PlantedBug = 'ledger-restarts-completed-work' | 'processor-calls-outside-twice';

/** The outside system, also tracing each request it receives with its generation. */
export class TracedOutside extends OutsideSystem {
  private readonly keyless = new Map<string, boolean>();

  constructor(
    private readonly world: () => World,
    private readonly trace: Trace,
  ) {
    super();
  }

  /** What the processor declared about the call it is about to make. */
  declare(key: string, name: string, keyless: boolean): void {
    this.keyless.set(`${key}|${name}`, keyless);
  }

  override receive(key: string, name: string): void {
    super.receive(key, name);
    this.trace.outsideCalls.push({
      seq: this.trace.next(),
      key,
      name,
      keyless: this.keyless.get(`${key}|${name}`) ?? true,
      generation: this.world().ledger.get(key)?.generation ?? 0,
    });
  }
}

export function tapPorts(world: World, trace: Trace, plant?: PlantedBug): void {
  const { ledger, control, quarantine } = world;
  const start = ledger.start.bind(ledger);
  const restart = ledger.restartAfterCrash.bind(ledger);
  const complete = ledger.complete.bind(ledger);
  const crashInFlight = control.crashInFlight.bind(control);
  const putRecord = quarantine.putRecord.bind(quarantine);

  const started = (envId: string, result: Awaited<ReturnType<typeof start>>) => {
    if (!result.started) return result;
    const { key, charged, generation, attemptId, messageId } = result.item;
    const seq = trace.next();
    const limit = trace.limitByEnv.get(envId) ?? Number.POSITIVE_INFINITY;
    trace.attempts.started({
      seq,
      key,
      generation,
      attemptId,
      envId,
      messageId,
      chargedAtStart: charged,
      limit,
    });
    trace.starts.push({
      seq,
      key,
      envId,
      charged,
      generation,
      limit,
    });
    const chargedAtFinish = trace.finished.get(keyGeneration(key, generation));
    if (chargedAtFinish !== undefined) {
      trace.redos.push({
        key,
        generation,
        completionLanded: trace.completed.has(keyGeneration(key, generation)),
        lostBy: diedBeforeRecordingTheLoss(key, generation)
          ? 'crash'
          : (trace.lostCompletions.get(keyGeneration(key, generation)) ?? 'crash'),
        chargedAtFinish,
        chargedAtRedo: charged,
      });
    }
    return result;
  };
  // A completion write that threw is a caught loss only if the worker lived to record it: one
  // that died first (another record crashed it) left nothing to tell its work had finished.
  const diedBeforeRecordingTheLoss = (key: string, generation: number) => {
    const finisher = trace.finishedIn.get(keyGeneration(key, generation));
    const alive = world.environments.find((env) => env.id === finisher)?.alive ?? true;
    return !alive && world.control.lostCompletions.get(key) === undefined;
  };
  ledger.start = async (input) => {
    if (plant === 'ledger-restarts-completed-work') reopenCompleted(world, input.key);
    return started(input.envId, await start(input));
  };
  ledger.restartAfterCrash = async (input) => started(input.envId, await restart(input));
  ledger.complete = async (key, attemptId, now) => {
    const entry = await complete(key, attemptId, now);
    trace.completed.add(keyGeneration(key, entry.generation));
    trace.attempts.ended(attemptId, 'complete');
    return entry;
  };
  tapAttemptEnds(world, trace);
  control.crashInFlight = async (...args: Parameters<typeof crashInFlight>) => {
    trace.crashedEnvironments.add(args[0]);
    return crashInFlight(...args);
  };
  quarantine.putRecord = async (record) => {
    const result = await putRecord(record);
    if (result.created) trace.recordCreated.set(record.id, trace.next());
    return result;
  };
}

/**
 * The attempt-ending writes that landed, a keyless call's pending record (its call may have
 * happened from then on), and every decision to pause: the facts the oracle reads.
 */
function tapAttemptEnds(world: World, trace: Trace): void {
  const { ledger, control } = world;
  const recordFailure = ledger.recordFailure.bind(ledger);
  const beginQuarantine = ledger.beginQuarantine.bind(ledger);
  const recordExternal = ledger.recordExternal.bind(ledger);
  const tripBreaker = control.tripBreaker.bind(control);
  ledger.recordFailure = async (key, attemptId, failure) => {
    const entry = await recordFailure(key, attemptId, failure);
    trace.attempts.ended(attemptId, 'failure');
    return entry;
  };
  ledger.beginQuarantine = async (key, attemptId, intent) => {
    const entry = await beginQuarantine(key, attemptId, intent);
    trace.attempts.ended(attemptId, 'quarantining');
    return entry;
  };
  ledger.recordExternal = async (key, attemptId, external, unrepeatable) => {
    const entry = await recordExternal(key, attemptId, external, unrepeatable);
    const mayHaveCalled = trace.attempts.get(attemptId)?.mayHaveCalled;
    if (external.idempotencyKey === undefined && external.status === 'pending')
      mayHaveCalled?.add(external.name);
    // Proven unsent, durably: the call releases the attempt (a person need not check it).
    if (external.idempotencyKey === undefined && external.status === 'not-sent')
      mayHaveCalled?.delete(external.name);
    return entry;
  };
  control.tripBreaker = async (trip) => {
    trace.attempts.pauses.push(trace.next());
    return tripBreaker(trip);
  };
}

/** The planted ledger bug: the start write's condition forgets that `completed` is final. */
function reopenCompleted(world: World, key: string): void {
  const items = (world.ledger as unknown as { items: Map<string, { state: string }> }).items;
  const item = items.get(key);
  if (item?.state === 'completed') item.state = 'ready';
}

export interface ProcessorTaps {
  readonly world: World;
  readonly env: ExecutionEnvironment;
  readonly trace: Trace;
  readonly board: FaultBoard;
  readonly outside: TracedOutside;
  readonly plant?: PlantedBug;
}

/** The user's module with its calls to the outside system played through the outage and traced. */
export function tapProcessor(inner: ProcessorModule, taps: ProcessorTaps): ProcessorModule {
  const { world, env, trace } = taps;
  return {
    ...(inner.classify === undefined ? {} : { classify: inner.classify }),
    async process(message, ctx) {
      const attempt = attemptOf(world, env, message.key);
      const observed: WorkContext = {
        stage: (name) => ctx.stage(name),
        remainingTimeMs: () => ctx.remainingTimeMs(),
        external: (name, call, options) => {
          if (options?.idempotencyKey === undefined) trace.attempts.declaredKeyless(attempt);
          return ctx.external(
            name,
            () => callOutside(taps, message.key, name, call, options, attempt),
            options,
          );
        },
      };
      try {
        await inner.process(message, observed);
      } catch (error) {
        trace.attempts.threw(attempt, error);
        throw error;
      }
      const item = world.ledger.get(message.key);
      if (env.alive) trace.attempts.finished(message.messageId, attempt);
      if (env.alive && item) {
        trace.finished.set(keyGeneration(item.key, item.generation), item.charged);
        trace.finishedIn.set(keyGeneration(item.key, item.generation), env.id);
      }
    },
  };
}

/** The attempt this environment holds in flight on the key, as the work begins. */
function attemptOf(world: World, env: ExecutionEnvironment, key: string): string | undefined {
  const item = world.ledger.get(key);
  return item?.state === LEDGER_STATE.inFlight && item.envId === env.id ? item.attemptId : undefined;
}

async function callOutside<T>(
  taps: ProcessorTaps,
  key: string,
  name: string,
  call: () => Promise<T>,
  options: { readonly idempotencyKey?: string } | undefined,
  attemptId: string | undefined,
): Promise<T> {
  const { board, outside, trace, world } = taps;
  const keyless = options?.idempotencyKey === undefined;
  outside.declare(key, name, keyless);
  // From here the request may reach the outside system, until a `not-sent` record says otherwise.
  if (keyless) trace.attempts.get(attemptId)?.mayHaveCalled.add(name);
  const mode = board.outsideMode();
  if (mode !== undefined) {
    trace.failures.push({ seq: trace.next(), at: world.clock.now(), key, by: 'outside', envId: taps.env.id });
    if (mode === 'refused') {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    }
    // Hanging: the request went out, the answer never came.
    outside.receive(key, name);
    throw Object.assign(new Error('socket timed out'), { name: 'TimeoutError' });
  }
  const result = await call();
  if (taps.plant === 'processor-calls-outside-twice' && keyless) return call();
  return result;
}
