/**
 * The pause and verification state machines' executions in memory, with Step Functions' idempotent names: a
 * repeated StartExecution of a name that exists starts nothing. While that execution is open, the
 * very same input is answered as the first start was (same ARN); another input, or any input once
 * the execution closed, is ExecutionAlreadyExists (lambdas/adapters/operations.ts reports
 * `started: false`). What the executions then do is the explorer's business.
 */

import { MAX_PAUSE_RUNS } from '../../lambdas/adapters/operations';
import { outcomeUnknownExecutionName, pauseExecutionName } from '../../lambdas/core/ids';
import type { OperationsPort } from '../../lambdas/ports/consumer-ports';
import { OperationsUnavailableError } from '../../lambdas/ports/errors';
import type { PauseInput, StartOutcome } from '../../lambdas/ports/operations';

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

export interface Execution {
  readonly name: string;
  readonly input: Record<string, unknown>;
  readonly executionArn: string;
  status: ExecutionStatus;
}

/** The pause input's optional timings, passed on only when given (as Operations.startPause does). */
const TIMINGS = ['cooldownSeconds', 'maxCooldownSeconds', 'probeSeconds', 'pollSeconds'] as const;

export class MemoryOperations implements OperationsPort {
  readonly executions = new Map<string, Execution>();

  async startOutcomeUnknown(input: {
    readonly quarantineId: string;
    readonly messageKey: string;
  }): Promise<StartOutcome> {
    return this.start(outcomeUnknownExecutionName(input.quarantineId), {
      kind: 'outcome-unknown',
      quarantineId: input.quarantineId,
      messageKey: input.messageKey,
    });
  }

  /** As Operations.startPause: the epoch's first run that is alive, or a new run after dead ones. */
  async startPause(input: PauseInput, maxRuns = MAX_PAUSE_RUNS): Promise<StartOutcome> {
    const pauseInput = {
      kind: 'pause',
      reason: input.reason,
      epoch: input.epoch,
      stop: input.stop,
      ...Object.fromEntries(
        TIMINGS.filter((name) => input[name] !== undefined).map((name) => [name, input[name]]),
      ),
    };
    for (let run = 1; run <= maxRuns; run++) {
      const name = pauseExecutionName(input.epoch, run);
      const outcome = this.start(name, pauseInput);
      if (outcome.started) return outcome;
      const status = this.executions.get(name)?.status;
      if (status === 'RUNNING' || status === 'SUCCEEDED') return { started: false };
    }
    throw new OperationsUnavailableError(
      `${MAX_PAUSE_RUNS} runs of pause ${input.epoch} ended without resuming`,
    );
  }

  /** Ends the oldest running execution of this kind unfinished, as StopExecution would (a campaign's fault). */
  abortOldest(kind: 'outcome-unknown' | 'pause'): void {
    const running = [...this.executions.values()].find(
      (execution) => execution.status === 'RUNNING' && execution.input.kind === kind,
    );
    if (running !== undefined) running.status = 'ABORTED';
  }

  private start(name: string, input: Record<string, unknown>): StartOutcome {
    const existing = this.executions.get(name);
    if (existing !== undefined) {
      // Step Functions compares the input strings, and the adapter serializes in a fixed order.
      const sameInput = JSON.stringify(existing.input) === JSON.stringify(input);
      return existing.status === 'RUNNING' && sameInput
        ? { started: true, executionArn: existing.executionArn }
        : { started: false };
    }
    const executionArn = `arn:aws:states:us-east-1:000000000000:execution:ops:${name}`;
    this.executions.set(name, { name, input, executionArn, status: 'RUNNING' });
    return { started: true, executionArn };
  }
}
