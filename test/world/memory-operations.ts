/**
 * The operations state machine's executions in memory, with Step Functions' idempotent names: a
 * second StartExecution of a name that exists starts nothing (lambdas/adapters/operations.ts
 * reports `started: false`). What the executions then do is the explorer's business.
 */
import type { PauseInput, StartOutcome } from '../../lambdas/adapters/operations';
import type { OperationsPort } from '../../lambdas/consumer/ports';
import { outcomeUnknownExecutionName, pauseExecutionName } from '../../lambdas/core/ids';

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED';

export interface Execution {
  readonly name: string;
  readonly input: Record<string, unknown>;
  status: ExecutionStatus;
}

export class MemoryOperations implements OperationsPort {
  readonly executions = new Map<string, Execution>();

  async startOutcomeUnknown(input: {
    readonly quarantineId: string;
    readonly messageKey: string;
  }): Promise<StartOutcome> {
    return this.start(outcomeUnknownExecutionName(input.quarantineId), {
      kind: 'outcome-unknown',
      ...input,
    });
  }

  async startPause(input: PauseInput): Promise<StartOutcome> {
    return this.start(pauseExecutionName(input.epoch), { kind: 'pause', ...input });
  }

  private start(name: string, input: Record<string, unknown>): StartOutcome {
    if (this.executions.has(name)) return { started: false };
    this.executions.set(name, { name, input, status: 'RUNNING' });
    return { started: true, executionArn: `arn:aws:states:us-east-1:000000000000:execution:ops:${name}` };
  }
}
