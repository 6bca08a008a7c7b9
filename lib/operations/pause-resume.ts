/**
 * The ways out of a pause (rules 7 and 11): the operator wait (a task token on the breaker
 * item), restoring the mapping's remembered settings, and closing the breaker. Every write is
 * conditioned on the execution's epoch: when a newer pause owns the breaker, this execution
 * steps aside ("Superseded") instead of overwriting it.
 */
import type { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { BREAKER_KEY } from '../../contract/control';
import {
  BREAKER_ATTRIBUTES as A,
  BREAKER_STATE,
  FAILURE,
  OPERATIONS_METRIC,
  OPERATOR_ACTION,
} from './protocol';
import { CONDITION_FAILED, enteredTime, numberAt, type Steps } from './steps';

export interface PauseContext {
  readonly scope: Construct;
  readonly steps: Steps;
  readonly controlTable: dynamodb.ITable;
  readonly operatorHeartbeat: Duration;
  readonly operatorTimeout: Duration;
  /** Where a newer epoch's execution owns the breaker: nothing more to do here. */
  readonly superseded: sfn.State;
  /** `$.failure = { error, cause }` -> alert -> fail. */
  readonly failed: sfn.IChainable;
}

export const BREAKER_ITEM_KEY = { pk: { S: BREAKER_KEY.pk }, sk: { S: BREAKER_KEY.sk } };

export const names = (...attributes: string[]) =>
  Object.fromEntries(attributes.map((name) => [`#${name}`, name]));

/** Whether the read breaker item (`$.control`) carries this operator action. */
export const operatorActionIs = (action: string) =>
  sfn.Condition.and(
    sfn.Condition.isPresent(`$.control.Item.${A.operatorAction}.S`),
    sfn.Condition.stringEquals(`$.control.Item.${A.operatorAction}.S`, action),
  );

/** Reads the breaker item's operator-facing attributes into `$.control` (never its task token). */
export function readControl(ctx: PauseContext, id: string, attributes: string[] = [A.operatorAction]) {
  return ctx.steps.getItem(id, ctx.controlTable, BREAKER_ITEM_KEY, attributes, { resultPath: '$.control' });
}

/** A caught task error -> `$.failure` -> alert -> fail. Only the error's name travels. */
export function onTaskError(ctx: PauseContext, task: sfn.TaskStateBase, what: string): sfn.TaskStateBase {
  const id = `${task.node.id}Failed`;
  return task.addCatch(
    new sfn.Pass(ctx.scope, id, {
      parameters: {
        error: FAILURE.pauseFailed,
        cause: sfn.JsonPath.format(
          `${what} failed with {}; the mapping may be left disabled: check it, then resume with the CLI.`,
          sfn.JsonPath.stringAt('$.error.Error'),
        ),
      },
      resultPath: '$.failure',
    }).next(ctx.failed),
    { resultPath: '$.error' },
  );
}

/**
 * Restores the remembered BatchSize and MaximumConcurrency (`$.original`) and enables the
 * mapping, then closes the breaker. Restore first: if the close then finds a newer epoch, that
 * pause owns the consumer, so this execution disables the mapping again before it steps aside.
 */
export function restoreAndClose(ctx: PauseContext): sfn.IChainable {
  const { steps, scope } = ctx;
  const restore = (id: string, scaling: Record<string, unknown>) =>
    onTaskError(
      ctx,
      steps.mapping(id, 'updateEventSourceMapping', {
        BatchSize: sfn.JsonPath.numberAt('$.original.batchSize'),
        ScalingConfig: scaling,
        Enabled: true,
      }),
      'Restoring the mapping',
    );
  const close = steps.updateItem('RecordClosed', {
    table: ctx.controlTable,
    key: BREAKER_ITEM_KEY,
    update:
      `SET #${A.state} = :closed, #${A.stop} = :false, #${A.closedAt} = :now ` +
      `REMOVE #${A.probeSuccesses}, #${A.probeFailures}, #${A.probeRepeatFailures}, #${A.taskToken}, ` +
      `#${A.waitingSince}, #${A.operatorAction}, #${A.originalBatchSize}, #${A.originalMaxConcurrency}, ` +
      `#${A.halfOpenAt}, ` +
      // The next episode starts from the configured cool-down again.
      `#${A.cooldownSeconds}`,
    condition: `#${A.epoch} = :epoch`,
    names: names(
      A.state,
      A.stop,
      A.closedAt,
      A.probeSuccesses,
      A.probeFailures,
      A.probeRepeatFailures,
      A.taskToken,
      A.waitingSince,
      A.operatorAction,
      A.originalBatchSize,
      A.originalMaxConcurrency,
      A.halfOpenAt,
      A.cooldownSeconds,
      A.epoch,
    ),
    values: {
      ':closed': { S: BREAKER_STATE.closed },
      ':false': { BOOL: false },
      ':now': enteredTime(),
      ':epoch': numberAt('$.epoch'),
    },
  });
  const disableSuperseded = onTaskError(
    ctx,
    steps.mapping('DisableForNewerPause', 'updateEventSourceMapping', { Enabled: false }),
    'Disabling the mapping for a newer pause',
  );
  close.addCatch(disableSuperseded.next(ctx.superseded), {
    errors: [CONDITION_FAILED],
    resultPath: '$.error',
  });
  onTaskError(ctx, close, 'Closing the breaker');
  const resumed = steps
    .notify('NotifyResumed', 'poison-quarantine: consumption resumed', {
      event: 'resumed',
      reason: sfn.JsonPath.stringAt('$.reason'),
      epoch: sfn.JsonPath.numberAt('$.epoch'),
    })
    .next(new sfn.Succeed(scope, 'Resumed'));
  close.next(resumed);
  // An original mapping without ScalingConfig is remembered as 0 and restored without one.
  return new sfn.Choice(scope, 'RestoreSettings')
    .when(
      sfn.Condition.numberEquals('$.original.maxConcurrency', 0),
      restore('RestoreUnscaledMapping', {}).next(close),
    )
    .otherwise(
      restore('RestoreMapping', {
        MaximumConcurrency: sfn.JsonPath.numberAt('$.original.maxConcurrency'),
      }).next(close),
    );
}

/**
 * Waits for the operator with a task token on the breaker item. The write refuses when the
 * operator already asked to resume (the CLI sets `operatorAction` before it looks for a token),
 * so a resume can never fall between the machine's read and its wait.
 */
export function operatorWait(ctx: PauseContext, restore: sfn.IChainable): sfn.State {
  const { steps, scope } = ctx;
  const wait = steps.updateItem('AwaitOperatorResume', {
    table: ctx.controlTable,
    key: BREAKER_ITEM_KEY,
    update: `SET #${A.taskToken} = :token, #${A.waitingSince} = :now`,
    condition: `#${A.epoch} = :epoch AND (attribute_not_exists(#${A.operatorAction}) OR #${A.operatorAction} <> :resume)`,
    names: names(A.taskToken, A.waitingSince, A.epoch, A.operatorAction),
    values: {
      ':token': { S: sfn.JsonPath.taskToken },
      ':now': enteredTime(),
      ':epoch': numberAt('$.epoch'),
      ':resume': { S: OPERATOR_ACTION.resume },
    },
    resultPath: '$.operator',
    waitForOperator: { heartbeat: ctx.operatorHeartbeat, timeout: ctx.operatorTimeout },
  });
  const escalate = steps.notify(
    'EscalatePause',
    'poison-quarantine: a paused consumer waits for an operator',
    {
      event: 'pause-awaiting-operator',
      reason: sfn.JsonPath.stringAt('$.reason'),
      epoch: sfn.JsonPath.numberAt('$.epoch'),
      waitingSince: sfn.JsonPath.stringAt('$$.State.EnteredTime'),
      instruction: 'Consumption stays paused until an operator resumes it with the CLI.',
    },
  );
  // An overdue wait is pause time too: a stop waiting for a person counts toward the alarm.
  const countWait = new sfn.Pass(scope, 'CountOverdueWait', {
    parameters: {
      seconds: sfn.JsonPath.mathAdd(
        sfn.JsonPath.numberAt('$.paused.seconds'),
        ctx.operatorHeartbeat.toSeconds(),
      ),
    },
    resultPath: '$.paused',
  });
  wait.addCatch(
    countWait
      .next(steps.putMetric('PublishPausedWait', OPERATIONS_METRIC.pausedSeconds, '$.paused.seconds'))
      .next(escalate)
      .next(wait),
    { errors: [sfn.Errors.HEARTBEAT_TIMEOUT, sfn.Errors.TIMEOUT], resultPath: sfn.JsonPath.DISCARD },
  );
  const refused = readControl(ctx, 'ReadOperatorAfterRefusedWait').next(
    new sfn.Choice(scope, 'ResumeRequested')
      .when(operatorActionIs(OPERATOR_ACTION.resume), restore)
      .otherwise(ctx.superseded),
  );
  wait.addCatch(refused, { errors: [CONDITION_FAILED], resultPath: '$.error' });
  onTaskError(ctx, wait, 'Waiting for the operator');

  const action = (value: string) =>
    sfn.Condition.and(
      sfn.Condition.isPresent('$.operator.action'),
      sfn.Condition.stringEquals('$.operator.action', value),
    );
  const unknownAction = steps.notify(
    'NotifyUnknownOperatorAction',
    'poison-quarantine: unknown operator action',
    {
      event: 'unknown-operator-action',
      epoch: sfn.JsonPath.numberAt('$.epoch'),
      instruction: 'The answer must be { action: resume | hold, who, why }; still waiting.',
    },
  );
  wait.next(
    new sfn.Choice(scope, 'OperatorResumeAction')
      .when(action(OPERATOR_ACTION.resume), restore)
      .when(action(OPERATOR_ACTION.hold), wait)
      .otherwise(unknownAction.next(wait)),
  );
  return wait;
}
