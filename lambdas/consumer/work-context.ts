/**
 * The `ctx` a user's processing function receives. Stages and external calls are written to the
 * ledger before the code moves on, so a crash leaves the last known stage and, for a call to an
 * outside system, the fact that it may have happened (rule 8).
 */

import { classifyExternalFailure, classifyWith } from '../core/classify';
import { CallUnansweredError, OutcomeUnknownError } from '../core/errors';
import { timeMarginMs } from '../core/time-guard';
import type { ExternalRecord } from '../core/types';
import { checkWorkName } from '../core/work-names';
import { isOwnTableUnavailable } from '../ports/errors';
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
  /** The external call this attempt declared last, as far as it knows: evidence for a quarantine. */
  readonly lastExternal: () => ExternalRecord | undefined;
  /** The stage this attempt's work last recorded (its write landed): evidence for a quarantine (rule 3). */
  readonly lastStage: () => string | undefined;
  /**
   * The first error our own tables gave a write of the work (a stage, a call's record), if any:
   * the attempt's failure is then ours, not the message's (rule 7), whatever the user's code
   * made of the error.
   */
  readonly ownTableFailure: () => unknown;
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
  let lastStage: string | undefined;
  let ownTableFailure: unknown;
  // One attempt's writes land in the order they were made, even if the user's code runs calls
  // concurrently: a later write must not carry an older view of `unrepeatable`.
  let writes: Promise<unknown> = Promise.resolve();
  const inOrder = <T>(write: () => Promise<T>): Promise<T> => {
    const next = writes.then(write);
    writes = next.catch(() => undefined);
    return next;
  };

  /** Rethrows; the first error our own tables gave is kept: the attempt then fails on us. */
  const noteOwnFailure = (error: unknown): never => {
    if (isOwnTableUnavailable(error)) ownTableFailure ??= error;
    throw error;
  };
  /**
   * The call returned but our table refused its `done` on every try: this attempt still knows it.
   * Its later writes carry the call as done, and the ledger's `pending` errs on the safe side: a
   * crash from here asks a person, as after any finished keyless call. The work goes on; its
   * completion (or the lost-completion item) ends it without a person.
   */
  const keepUnrecordedResult = (name: string) => (error: unknown) => {
    if (!isOwnTableUnavailable(error)) throw error;
    deps.logger.warn('a call returned but its result was not recorded: the attempt goes on', {
      event: 'call-result-unrecorded',
      messageKey: attempt.key,
      call: name,
      error: error as Error,
    });
  };

  /**
   * A call still unanswered when the invocation's time runs out would die with it, seen only when
   * its message came back visibility timeouts later: by then every message may have been sent into
   * the same hang before rule 7 saw one. So the call is given up a margin before the deadline (the
   * settle writes' margin), and its end is recorded while there is time.
   */
  const answeredInTime = async <T>(call: () => Promise<T>): Promise<T> => {
    const budget = remainingTimeMs() - timeMarginMs(deps.config.policy.attemptTimeoutSeconds);
    // No margin left: giving up at once would make a question for a person of a call that answers.
    if (budget <= 0) return call();
    const answered = new AbortController();
    const unanswered = deps.alarm(budget, answered.signal).then((): never => {
      throw new CallUnansweredError("no answer before the invocation's time ran out");
    });
    try {
      return await Promise.race([call(), unanswered]);
    } finally {
      answered.abort();
    }
  };

  const ctx: WorkContext = {
    remainingTimeMs,
    async stage(name: string) {
      checkWorkName('ctx.stage name', name);
      await inOrder(() => ledger.recordStage(attempt.key, attempt.attemptId, name)).catch(noteOwnFailure);
      lastStage = name;
    },
    async external<T>(name: string, call: () => Promise<T>, options: ExternalCallOptions = {}): Promise<T> {
      const { idempotencyKey } = options;
      checkWorkName('ctx.external name', name);
      if (idempotencyKey !== undefined) checkWorkName('ctx.external idempotencyKey', idempotencyKey);
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
        // A call's result is known before it is durable; a pending call exists once it is durable.
        if (settle) lastExternal = external;
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
        return noteOwnFailure(error);
      }
      let result: T;
      try {
        result = await answeredInTime(call);
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
        await record('not-sent', true).catch(noteOwnFailure);
        throw error;
      }
      await record('done', true).catch(keepUnrecordedResult(name));
      return result;
    },
  };
  return {
    ctx,
    madeUnrepeatableCall: () => unrepeatable.size > 0,
    lastExternal: () => lastExternal,
    lastStage: () => lastStage,
    ownTableFailure: () => ownTableFailure,
  };
}
