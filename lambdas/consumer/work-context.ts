/**
 * The `ctx` a user's processing function receives. Stages and external calls are written to the
 * ledger before the code moves on, so a crash leaves the last known stage and, for a call to an
 * outside system, the fact that it may have happened (rule 8).
 */
import { classifyExternalFailure, classifyWith } from '../core/classify';
import { OutcomeUnknownError } from '../core/errors';
import type { ExternalRecord } from '../core/types';
import type { ConsumerDeps } from './deps';
import { settleWrite } from './settle';
import type { ExternalCallOptions, WorkContext } from './types';

export interface Attempt {
  readonly key: string;
  readonly attemptId: string;
}

export interface AttemptWork {
  readonly ctx: WorkContext;
  /**
   * Whether a keyless external call of this attempt may have reached the outside system (it got
   * to `pending` and was not proven unsent): a later failure must not retry the work, which
   * would repeat the call (rule 8).
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
  // Keyless calls that may have happened, by call number. The first of them is the one the
  // ledger keeps as `unrepeatable`: later calls of the attempt never clear it.
  const unrepeatable = new Map<number, ExternalRecord>();
  let calls = 0;
  let lastExternal: ExternalRecord | undefined;
  // One attempt's writes land in the order they were made, even if the user's code runs calls
  // concurrently: a later write must not carry an older view of `unrepeatable`.
  let writes: Promise<unknown> = Promise.resolve();
  const inOrder = <T>(write: () => Promise<T>): Promise<T> => {
    const next = writes.then(write);
    writes = next.catch(() => undefined);
    return next;
  };

  const ctx: WorkContext = {
    remainingTimeMs,
    async stage(name: string) {
      await inOrder(() => ledger.recordStage(attempt.key, attempt.attemptId, name));
    },
    async external<T>(name: string, call: () => Promise<T>, options: ExternalCallOptions = {}): Promise<T> {
      const { idempotencyKey } = options;
      const callNumber = ++calls;
      const record = async (status: ExternalRecord['status'], settle: boolean) => {
        const external: ExternalRecord = {
          name,
          status,
          at: deps.now().toISOString(),
          ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
        };
        if (idempotencyKey === undefined) {
          if (status === 'not-sent') unrepeatable.delete(callNumber);
          else unrepeatable.set(callNumber, external);
        }
        const sticky = unrepeatable.values().next().value;
        const write = () => ledger.recordExternal(attempt.key, attempt.attemptId, external, sticky);
        await inOrder(() => (settle ? settleWrite(deps, remainingTimeMs, write) : write()));
        lastExternal = external;
      };
      // Timeline: pending is durable -> the call -> its result is durable. A crash between the
      // first two writes leaves "pending": the next delivery quarantines as outcome unknown.
      try {
        await record('pending', false);
      } catch (error) {
        // The call was not made. If the write landed after all, the ledger says pending: a
        // person will be asked, which is safe.
        unrepeatable.delete(callNumber);
        throw error;
      }
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
        await record('not-sent', true);
        throw error;
      }
      await record('done', true);
      return result;
    },
  };
  return { ctx, madeUnrepeatableCall: () => unrepeatable.size > 0, lastExternal: () => lastExternal };
}
