/**
 * The operations state machine (docs/design.md, "Step Functions input"): what needs a person or
 * a pause. Execution names are deterministic (`ou-<quarantine id>`, `pause-<epoch>`), so a
 * retry never starts a second execution for the same record or pause.
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
import { outcomeUnknownExecutionName, pauseExecutionName } from '../core/ids';
import { describeSdkError, isSdkError, OperationsUnavailableError, TaskTokenRejectedError } from './errors';

/**
 * `started: false`: an execution of that name exists already (running or finished). AWS answers a
 * repeat with the same input on a RUNNING execution with success and the same ARN, so a retry may
 * also see `started: true`; either way exactly one execution exists.
 */
export type StartOutcome =
  | { readonly started: true; readonly executionArn: string }
  | { readonly started: false };

/** A pause's execution input without its `kind`; timings are passed to the state machine when given. */
export type PauseInput = Omit<PauseExecutionInput, 'kind'>;

/** Runs of one pause episode before the consumer gives up restarting it and leaves it to alarms. */
export const MAX_PAUSE_RUNS = 5;

/** SendTask* errors that mean the wait is over or never was: the token is no good. */
const TOKEN_REJECTIONS = ['InvalidToken', 'TaskDoesNotExist', 'TaskTimedOut'];

export class Operations {
  constructor(
    private readonly sfn: SFNClient,
    private readonly stateMachineArn: string,
  ) {}

  /** Rule 8: a person checks the outside system before anything else happens to this record. */
  async startOutcomeUnknown(input: Omit<OutcomeUnknownExecutionInput, 'kind'>): Promise<StartOutcome> {
    const executionInput: OutcomeUnknownExecutionInput = {
      kind: EXECUTION_INPUT_KIND.outcomeUnknown,
      quarantineId: input.quarantineId,
      messageKey: input.messageKey,
    };
    return this.start(outcomeUnknownExecutionName(input.quarantineId), executionInput);
  }

  /**
   * Rules 7 and 11: disable the mapping and tell a person. Makes sure one run of the breaker
   * epoch's pause is alive: a run that exists and is running (or succeeded: it resumed) is left
   * alone; one that failed, timed out or was aborted is replaced by the next run, so an open
   * breaker always has an execution driving it back.
   */
  async startPause(input: PauseInput): Promise<StartOutcome> {
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
    for (let run = 1; run <= MAX_PAUSE_RUNS; run++) {
      const name = pauseExecutionName(input.epoch, run);
      const outcome = await this.start(name, pauseInput);
      if (outcome.started) return outcome;
      const status = await this.status(name);
      if (status === 'RUNNING' || status === 'SUCCEEDED') return { started: false };
    }
    throw new OperationsUnavailableError(
      `State machine ${this.stateMachineArn}: ${MAX_PAUSE_RUNS} runs of pause ${input.epoch} ended without resuming`,
    );
  }

  /**
   * The runs of a pause episode that exist, in order, with their status: what `pq status` shows
   * and what tells an operator whether anything drives an open breaker back.
   */
  async pauseRuns(epoch: number): Promise<{ readonly name: string; readonly status: string }[]> {
    const runs: { name: string; status: string }[] = [];
    for (let run = 1; run <= MAX_PAUSE_RUNS; run++) {
      const name = pauseExecutionName(epoch, run);
      const status = await this.status(name);
      if (status === undefined) break;
      runs.push({ name, status });
    }
    return runs;
  }

  /** The status of a record's outcome-unknown execution; undefined when it never started. */
  async outcomeUnknownStatus(quarantineId: string): Promise<string | undefined> {
    return this.status(outcomeUnknownExecutionName(quarantineId));
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

  private async start(name: string, input: ExecutionInput): Promise<StartOutcome> {
    try {
      const result = await this.sfn.send(
        new StartExecutionCommand({
          stateMachineArn: this.stateMachineArn,
          name,
          input: JSON.stringify(input),
        }),
      );
      return { started: true, executionArn: result.executionArn ?? '' };
    } catch (error) {
      if (isSdkError(error, 'ExecutionAlreadyExists')) return { started: false };
      throw new OperationsUnavailableError(
        `State machine ${this.stateMachineArn}: execution ${name} not started: ${describeSdkError(error)}`,
        { cause: error },
      );
    }
  }

  private async status(name: string): Promise<string | undefined> {
    // An execution's ARN is its machine's with `stateMachine` -> `execution` and its name appended.
    const executionArn = `${this.stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    try {
      const result = await this.sfn.send(new DescribeExecutionCommand({ executionArn }));
      return result.status;
    } catch (error) {
      if (isSdkError(error, 'ExecutionDoesNotExist')) return undefined;
      throw new OperationsUnavailableError(
        `State machine ${this.stateMachineArn}: execution ${name} not described: ${describeSdkError(error)}`,
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
