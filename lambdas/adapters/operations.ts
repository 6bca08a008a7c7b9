/**
 * The operations state machines (docs/design.md, "Execution inputs"): what needs a person or
 * a pause, each kind on its own machine. Execution names are deterministic (`ou-<quarantine id>`,
 * `pause-<epoch>`), so a retry never starts a second execution for the same record or pause.
 */
import {
  DescribeExecutionCommand,
  SendTaskFailureCommand,
  SendTaskSuccessCommand,
  type SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import {
  EXECUTION_INPUT_KIND,
  type ExecutionInput,
  type OutcomeUnknownExecutionInput,
  PAUSE_TIMINGS,
  type PauseExecutionInput,
} from '../../contract/executions';
import type { StateMachineArns } from '../core/config';
import { outcomeUnknownExecutionName, pauseExecutionName } from '../core/ids';
import { OperationsUnavailableError, TaskTokenRejectedError } from '../ports/errors';
import type { PauseInput, StartOutcome } from '../ports/operations';
import { describeSdkError, isSdkError } from './sdk-errors';

/** Runs of one pause episode before the consumer gives up restarting it and leaves it to alarms. */
export const MAX_PAUSE_RUNS = 5;
/**
 * The operator's own `pq resume` / `pq hold` is not held to MAX_PAUSE_RUNS: a person who fixed
 * what failed the runs must be able to start the next one (each command starts at most one).
 */
export const OPERATOR_PAUSE_RUNS = Number.POSITIVE_INFINITY;

/** SendTask* errors that mean the wait is over or never was: the token is no good. */
const TOKEN_REJECTIONS = ['InvalidToken', 'TaskDoesNotExist', 'TaskTimedOut'];

export class Operations {
  constructor(
    private readonly sfn: SFNClient,
    private readonly stateMachines: StateMachineArns,
  ) {}

  /** Rule 8: a person checks the outside system before anything else happens to this record. */
  async startOutcomeUnknown(input: Omit<OutcomeUnknownExecutionInput, 'kind'>): Promise<StartOutcome> {
    const executionInput: OutcomeUnknownExecutionInput = {
      kind: EXECUTION_INPUT_KIND.outcomeUnknown,
      quarantineId: input.quarantineId,
      messageKey: input.messageKey,
    };
    return this.start(
      this.stateMachines.verification,
      outcomeUnknownExecutionName(input.quarantineId),
      executionInput,
    );
  }

  /**
   * Rules 7 and 11: disable the mapping and tell a person. Makes sure one run of the breaker
   * epoch's pause is alive: a run that exists and is running (or succeeded: it resumed) is left
   * alone; one that failed, timed out or was aborted is replaced by the next run, so an open
   * breaker always has an execution driving it back, up to `maxRuns` runs of the epoch.
   */
  async startPause(input: PauseInput, maxRuns = MAX_PAUSE_RUNS): Promise<StartOutcome> {
    const pauseInput: PauseExecutionInput = {
      kind: EXECUTION_INPUT_KIND.pause,
      reason: input.reason,
      epoch: input.epoch,
      stop: input.stop,
      // Timings left out fall back to the construct's values in the machine.
      ...Object.fromEntries(
        PAUSE_TIMINGS.filter((name) => input[name] !== undefined).map((name) => [name, input[name]]),
      ),
    };
    for (let run = 1; run <= maxRuns; run++) {
      const name = pauseExecutionName(input.epoch, run);
      const outcome = await this.start(this.stateMachines.pause, name, pauseInput);
      if (outcome.started) return outcome;
      const status = await this.status(this.stateMachines.pause, name);
      if (status === 'RUNNING' || status === 'SUCCEEDED') return { started: false };
    }
    throw new OperationsUnavailableError(
      `State machine ${this.stateMachines.pause}: ${maxRuns} runs of pause ${input.epoch} ended without resuming`,
    );
  }

  /**
   * The runs of a pause episode that exist, in order, with their status: what `pq status` shows
   * and what tells an operator whether anything drives an open breaker back.
   */
  async pauseRuns(epoch: number): Promise<{ readonly name: string; readonly status: string }[]> {
    const runs: { name: string; status: string }[] = [];
    // Runs are numbered without gaps, and an operator's may follow the consumer's last.
    for (let run = 1; ; run++) {
      const name = pauseExecutionName(epoch, run);
      const status = await this.status(this.stateMachines.pause, name);
      if (status === undefined) break;
      runs.push({ name, status });
    }
    return runs;
  }

  /** The status of a record's outcome-unknown execution; undefined when it never started. */
  async outcomeUnknownStatus(quarantineId: string): Promise<string | undefined> {
    return this.status(this.stateMachines.verification, outcomeUnknownExecutionName(quarantineId));
  }

  /** An operator's answer to an open wait; `output` becomes the waiting state's result. */
  async sendDecision(taskToken: string, output: object): Promise<void> {
    await this.answer('SendTaskSuccess', () =>
      this.sfn.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) })),
    );
  }

  async sendFailure(taskToken: string, error: string, cause: string): Promise<void> {
    await this.answer('SendTaskFailure', () =>
      this.sfn.send(new SendTaskFailureCommand({ taskToken, error, cause })),
    );
  }

  private async start(stateMachineArn: string, name: string, input: ExecutionInput): Promise<StartOutcome> {
    try {
      const result = await this.sfn.send(
        new StartExecutionCommand({
          stateMachineArn,
          name,
          input: JSON.stringify(input),
        }),
      );
      return { started: true, executionArn: result.executionArn ?? '' };
    } catch (error) {
      if (isSdkError(error, 'ExecutionAlreadyExists')) return { started: false };
      throw new OperationsUnavailableError(
        `State machine ${stateMachineArn}: execution ${name} not started: ${describeSdkError(error)}`,
        { cause: error },
      );
    }
  }

  private async status(stateMachineArn: string, name: string): Promise<string | undefined> {
    // An execution's ARN is its machine's with `stateMachine` -> `execution` and its name appended.
    const executionArn = `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    try {
      const result = await this.sfn.send(new DescribeExecutionCommand({ executionArn }));
      return result.status;
    } catch (error) {
      if (isSdkError(error, 'ExecutionDoesNotExist')) return undefined;
      throw new OperationsUnavailableError(
        `State machine ${stateMachineArn}: execution ${name} not described: ${describeSdkError(error)}`,
        { cause: error },
      );
    }
  }

  /** Errors here never carry the SDK error along: its message may quote the token. */
  private async answer(operation: string, call: () => Promise<unknown>): Promise<void> {
    try {
      await call();
    } catch (error) {
      if (isSdkError(error, ...TOKEN_REJECTIONS)) {
        throw new TaskTokenRejectedError(
          `${operation}: Step Functions refused the task token: ${describeSdkError(error)}`,
        );
      }
      throw new OperationsUnavailableError(`${operation} failed: ${describeSdkError(error)}`);
    }
  }
}
