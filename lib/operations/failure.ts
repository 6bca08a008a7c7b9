/**
 * How an operations execution ends when it cannot go on: `$.failure = { error, cause }` is
 * published to the operator topic, then the execution fails with that error and cause (and the
 * failed-executions alarm of its machine fires as well).
 */
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { Steps } from './steps';

export interface FailureExitProps {
  /** Names of the notification and of the Fail state, e.g. `NotifyPauseFailed` and `PauseFailed`. */
  readonly notifyId: string;
  readonly failId: string;
  readonly subject: string;
  /** What the notification says besides the error and cause: the event and the ids an operator needs. */
  readonly message: Record<string, unknown>;
  /** The error of a task that failed in a way the workflow does not expect. */
  readonly taskError: string;
  /** What to do after such an error, appended to its cause. @default - nothing */
  readonly advice?: string;
}

export class FailureExit {
  private readonly exit: sfn.IChainable;

  constructor(
    private readonly scope: Construct,
    steps: Steps,
    private readonly props: FailureExitProps,
  ) {
    this.exit = steps
      .notify(props.notifyId, 'A person must hear why this execution stops here.', props.subject, {
        ...props.message,
        error: sfn.JsonPath.stringAt('$.failure.error'),
        cause: sfn.JsonPath.stringAt('$.failure.cause'),
      })
      .next(
        new sfn.Fail(scope, props.failId, {
          comment: 'Ends with the failure noted, so the execution says why it stopped.',
          errorPath: '$.failure.error',
          causePath: '$.failure.cause',
        }),
      );
  }

  /** A failure the workflow recognises, with its own error and cause. */
  because(id: string, comment: string, error: string, cause: string): sfn.Chain {
    return new sfn.Pass(this.scope, id, {
      comment,
      result: sfn.Result.fromObject({ error, cause }),
      resultPath: '$.failure',
    }).next(this.exit);
  }

  /**
   * Any error of `task` not caught before ends here (add the specific catches first). Only the
   * error's name travels: its cause may quote the request, and a request may carry a token.
   */
  onError<T extends sfn.TaskStateBase>(task: T, what: string): T {
    const advice = this.props.advice === undefined ? '' : `; ${this.props.advice}`;
    task.addCatch(
      new sfn.Pass(this.scope, `${task.node.id}Failed`, {
        comment: `${what} failed after its retries: keep the error's name, never its cause, and stop.`,
        parameters: {
          error: this.props.taskError,
          cause: sfn.JsonPath.format(
            `${what} failed with {}${advice}`,
            sfn.JsonPath.stringAt('$.error.Error'),
          ),
        },
        resultPath: '$.failure',
      }).next(this.exit),
      { resultPath: '$.error' },
    );
    return task;
  }
}
