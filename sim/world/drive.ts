/**
 * Plays the event source mapping over the world until the queue is empty (or `maxPolls` polls):
 * one environment at a time, a fresh one after a crash (a cold start), time jumping to the next
 * message's visibility when nothing is visible. Breaker and pause are not played here: a test
 * that needs them drives `World.deliver` itself.
 */
import type { SQSRecord } from 'aws-lambda';
import { RECORD_PROCESSED_MESSAGE } from '../../contract/log-events';
import type { RecordOutcome } from '../../lambdas/consumer/record-outcome';
import type { Handle, World } from './world';

export interface DriveOptions {
  readonly batchSize?: number;
  readonly maxPolls?: number;
}

export interface DriveReport {
  readonly polls: number;
  readonly crashes: number;
  readonly functionErrors: number;
}

export async function drive(world: World, options: DriveOptions = {}): Promise<DriveReport> {
  const maxPolls = options.maxPolls ?? 200;
  let env = world.environment();
  let crashes = 0;
  let functionErrors = 0;
  let polls = 0;
  while (polls < maxPolls && world.queue.messages.size > 0) {
    const next = world.queue.nextVisibleAt();
    if (next !== undefined) world.clock.advanceTo(next);
    polls += 1;
    const result = await world.deliver(env, options.batchSize ?? 1);
    if (result.kind === 'crashed') {
      crashes += 1;
      env = world.environment();
    }
    if (result.kind === 'function-error') functionErrors += 1;
  }
  return { polls, crashes, functionErrors };
}

/** The next poll of one new environment, after time jumps to the next visible message. */
export async function deliverNext(world: World) {
  const next = world.queue.nextVisibleAt();
  if (next !== undefined) world.clock.advanceTo(next);
  return world.deliver(world.environment(), 1);
}

/** The environment with each record of its batches rewritten first (a FIFO group, a receive count). */
export function withRecordsRewritten<E extends { handle: Handle }>(
  env: E,
  rewrite: (record: SQSRecord) => SQSRecord,
): E {
  const handle = env.handle;
  const rewritten: Handle = (event, context) => handle({ Records: event.Records.map(rewrite) }, context);
  return Object.assign(env, { handle: rewritten });
}

/** A spied logger method, as vitest's spies record their calls. */
interface LogSpy {
  readonly mock: { readonly calls: unknown[][]; readonly invocationCallOrder: number[] };
}

/**
 * The record lines (RECORD_PROCESSED_MESSAGE) the spied logger methods saw, as [messageId,
 * outcome], in the order they were logged: spy on `info` and `debug`, a completed record's level.
 */
export function recordLines(...spies: LogSpy[]): [string, RecordOutcome][] {
  return spies
    .flatMap(({ mock }) =>
      mock.calls.map((call, index) => ({ call, order: mock.invocationCallOrder[index] ?? 0 })),
    )
    .sort((a, b) => a.order - b.order)
    .filter(({ call: [message] }) => message === RECORD_PROCESSED_MESSAGE)
    .map(({ call: [, fields] }) => {
      const { messageId, outcome } = fields as { messageId: string; outcome: RecordOutcome };
      return [messageId, outcome];
    });
}
