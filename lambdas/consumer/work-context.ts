/**
 * The `ctx` a user's processing function receives. Stages and external calls are written to the
 * ledger before the code moves on, so a crash leaves the last known stage and, for a call to an
 * outside system, the fact that it may have happened (rule 8).
 */
import { classifyExternalFailure, classifyWith } from '../core/classify';
import { OutcomeUnknownError } from '../core/errors';
import type { ExternalRecord } from '../core/types';
import type { ConsumerDeps } from './deps';
import type { ExternalCallOptions, WorkContext } from './types';

export interface Attempt {
  readonly key: string;
  readonly attemptId: string;
}

export interface AttemptWork {
  readonly ctx: WorkContext;
  /**
   * Whether a non-idempotent external call already happened in this attempt: a later failure
   * must not retry the work, which would repeat the call (rule 8).
   */
  readonly madeUnrepeatableCall: () => boolean;
  /** The external call this attempt declared last, as the ledger holds it: evidence for a quarantine. */
  readonly lastExternal: () => ExternalRecord | undefined;
}

export function workContext(
  deps: ConsumerDeps,
  attempt: Attempt,
  remainingTimeMs: () => number,
): AttemptWork {
  const { ledger, processor } = deps;
  let unrepeatable = false;
  let lastExternal: ExternalRecord | undefined;
  const ctx: WorkContext = {
    remainingTimeMs,
    async stage(name: string) {
      await ledger.recordStage(attempt.key, attempt.attemptId, name);
    },
    async external<T>(name: string, call: () => Promise<T>, options: ExternalCallOptions = {}): Promise<T> {
      const idempotencyKey = options.idempotencyKey;
      const record = async (status: 'pending' | 'done' | 'not-sent') => {
        const external: ExternalRecord = {
          name,
          status,
          at: deps.now().toISOString(),
          ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
        };
        await ledger.recordExternal(attempt.key, attempt.attemptId, external);
        lastExternal = external;
      };
      // Timeline: pending is durable -> the call -> its result is durable. A crash between the
      // first two writes leaves "pending": the next delivery quarantines as outcome unknown.
      await record('pending');
      let result: T;
      try {
        result = await call();
      } catch (error) {
        const errorClass = classifyExternalFailure(
          error,
          classifyWith(processor.classify, error),
          idempotencyKey !== undefined,
        );
        if (errorClass === 'outcome-unknown') {
          // Leave "pending" in the ledger: it is the truth, and it survives a crash from here on.
          throw new OutcomeUnknownError(`the call "${name}" may or may not have reached the outside system`, {
            cause: error,
          });
        }
        await record('not-sent');
        throw error;
      }
      await record('done');
      if (idempotencyKey === undefined) unrepeatable = true;
      return result;
    },
  };
  return { ctx, madeUnrepeatableCall: () => unrepeatable, lastExternal: () => lastExternal };
}
