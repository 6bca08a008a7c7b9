/**
 * The ways out of a pause (rules 7 and 11): the operator's action read at each loop point, the
 * operator wait (a task token on the breaker item), and restoring the mapping's remembered
 * settings, then closing the breaker. Every write is conditioned on the execution's epoch: when
 * a newer pause owns the breaker, this execution steps aside ("Superseded") instead of
 * overwriting it.
 */
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { BREAKER_ATTRIBUTES as A, BREAKER_STATE, OPERATOR_ACTION } from '../../contract/control';
import { textIs } from './conditions';
import { BREAKER_ITEM_KEY, type PauseContext, readBreaker } from './pause-context';
import { OPERATIONS_METRIC } from './protocol';
import { attributeNames, CONDITION_FAILED, enteredTime, numberAt } from './steps';

/** Where an operator's action leads: `resume` restores consumption, `hold` disables and waits. */
export interface OperatorWays {
  readonly resume: sfn.IChainable;
  readonly hold: sfn.IChainable;
}

/** Whether the breaker item read into `$.control` carries this operator action. */
const operatorActionIs = (action: string) => textIs(`$.control.Item.${A.operatorAction}.S`, action);

/**
 * The loop points of a pause. `pq resume` and `pq hold` set `operatorAction` on the breaker item
 * and start no execution while one runs: the running one reads it here, at each point.
 */
export class OperatorCheckpoints {
  constructor(
    private readonly ctx: PauseContext,
    private readonly ways: OperatorWays,
  ) {}

  /** Reads the action (and `alsoRead`) into `$.control`; without one, goes on. */
  at(when: string, goOn: sfn.IChainable, alsoRead: readonly string[] = []): sfn.Chain {
    const read = readBreaker(
      this.ctx,
      `ReadOperator${when}`,
      'The operator may have asked to resume or hold since the last loop point.',
      [A.operatorAction, ...alsoRead],
      { resultPath: '$.control' },
    );
    return this.ctx.failure.onError(read, 'Reading the operator action').next(
      new sfn.Choice(this.ctx.scope, `OperatorAction${when}`, {
        comment: "An operator's action overrides the automatic course of the pause.",
      })
        .when(operatorActionIs(OPERATOR_ACTION.resume), this.ways.resume, { comment: 'resume' })
        .when(operatorActionIs(OPERATOR_ACTION.hold), this.ways.hold, { comment: 'hold' })
        .otherwise(goOn),
    );
  }
}

/**
 * Waits for the operator with a task token on the breaker item. The write refuses when the
 * operator already asked to resume (the CLI sets `operatorAction` before it looks for a token),
 * so a resume can never fall between the machine's read and its wait. An overdue wait is
 * counted as pause time for the paused-too-long alarm, escalated, and waited for again.
 */
export function awaitOperatorResume(ctx: PauseContext, resume: sfn.IChainable): sfn.State {
  const wait = ctx.steps.updateItem('AwaitOperatorResume', {
    comment: 'The breaker item holds the token pq resume and pq hold answer with; only this epoch waits.',
    table: ctx.controlTable,
    key: BREAKER_ITEM_KEY,
    update: `SET #${A.taskToken} = :token, #${A.waitingSince} = :now`,
    condition: `#${A.epoch} = :epoch AND (attribute_not_exists(#${A.operatorAction}) OR #${A.operatorAction} <> :resume)`,
    names: attributeNames(A.taskToken, A.waitingSince, A.epoch, A.operatorAction),
    values: {
      ':token': { S: sfn.JsonPath.taskToken },
      ':now': enteredTime(),
      ':epoch': numberAt('$.epoch'),
      ':resume': { S: OPERATOR_ACTION.resume },
    },
    resultPath: '$.operator',
    waitForOperator: { heartbeat: ctx.operatorHeartbeat, timeout: ctx.operatorTimeout },
  });
  wait.addCatch(remindOperator(ctx).next(wait), {
    errors: [sfn.Errors.HEARTBEAT_TIMEOUT, sfn.Errors.TIMEOUT],
    resultPath: sfn.JsonPath.DISCARD,
  });
  wait.addCatch(refusedWait(ctx, resume), { errors: [CONDITION_FAILED], resultPath: '$.error' });
  ctx.failure.onError(wait, 'Waiting for the operator');

  const unknownAction = ctx.steps.notify(
    'NotifyUnknownOperatorAction',
    'An answer this machine cannot read changes nothing: the operator must answer again.',
    'poison-quarantine: unknown operator action',
    {
      event: 'unknown-operator-action',
      epoch: sfn.JsonPath.numberAt('$.epoch'),
      instruction: 'The answer must be { action: resume | hold, who, why }; still waiting.',
    },
  );
  const answered = (action: string) => textIs('$.operator.action', action);
  wait.next(
    new sfn.Choice(ctx.scope, 'OperatorResumeAction', {
      comment: "The operator's answer: resume restores consumption, hold keeps waiting.",
    })
      .when(answered(OPERATOR_ACTION.resume), resume, { comment: 'resume' })
      .when(answered(OPERATOR_ACTION.hold), wait, { comment: 'hold' })
      .otherwise(unknownAction.next(wait)),
  );
  return wait;
}

/** A stop waiting past the heartbeat is pause time too: counted, published, escalated. */
function remindOperator(ctx: PauseContext): sfn.Chain {
  const countWait = new sfn.Pass(ctx.scope, 'CountOverdueWait', {
    comment: 'A heartbeat without an answer adds its length to the time consumption has been stopped.',
    parameters: {
      seconds: sfn.JsonPath.mathAdd(
        sfn.JsonPath.numberAt('$.paused.seconds'),
        ctx.operatorHeartbeat.toSeconds(),
      ),
    },
    resultPath: '$.paused',
  });
  const escalate = ctx.steps.notify(
    'EscalatePause',
    'A silent operator is reminded: the consumer stays paused until someone answers.',
    'poison-quarantine: a paused consumer waits for an operator',
    {
      event: 'pause-awaiting-operator',
      reason: sfn.JsonPath.stringAt('$.reason'),
      epoch: sfn.JsonPath.numberAt('$.epoch'),
      waitingSince: sfn.JsonPath.stringAt('$$.State.EnteredTime'),
      instruction: 'Consumption stays paused until an operator resumes it with the CLI.',
    },
  );
  return countWait
    .next(
      ctx.steps.putMetric(
        'PublishPausedWait',
        'The paused-too-long alarm watches how long this pause has stopped consumption.',
        OPERATIONS_METRIC.pausedSeconds,
        '$.paused.seconds',
      ),
    )
    .next(escalate);
}

/** The wait was refused: the operator asked to resume first, or a newer epoch owns the breaker. */
function refusedWait(ctx: PauseContext, resume: sfn.IChainable): sfn.Chain {
  const read = readBreaker(
    ctx,
    'ReadOperatorAfterRefusedWait',
    'A refused wait means a resume came first or a newer pause took over: the item tells which.',
    [A.operatorAction],
    { resultPath: '$.control' },
  );
  return ctx.failure.onError(read, 'Reading the operator action').next(
    new sfn.Choice(ctx.scope, 'ResumeRequested', {
      comment:
        'A resume that came before the wait is answered now; otherwise a newer pause owns the breaker.',
    })
      .when(operatorActionIs(OPERATOR_ACTION.resume), resume, { comment: 'resume' })
      .otherwise(ctx.superseded),
  );
}

/**
 * Restores the remembered BatchSize and MaximumConcurrency (`$.original`) and enables the
 * mapping, then closes the breaker. Restore first: if the close then finds a newer epoch, that
 * pause owns the consumer, so this execution disables the mapping again before it steps aside.
 */
export function restoreAndClose(ctx: PauseContext): sfn.Choice {
  const close = closeBreaker(ctx);
  const restore = (id: string, comment: string, scaling: Record<string, unknown>) =>
    ctx.failure
      .onError(
        ctx.steps.mappingCall(id, {
          comment,
          action: 'updateEventSourceMapping',
          parameters: {
            BatchSize: sfn.JsonPath.numberAt('$.original.batchSize'),
            ScalingConfig: scaling,
            Enabled: true,
          },
        }),
        'Restoring the mapping',
      )
      .next(close);
  return new sfn.Choice(ctx.scope, 'RestoreSettings', {
    comment: 'An original mapping without ScalingConfig was remembered as 0 and is restored without one.',
  })
    .when(
      sfn.Condition.numberEquals('$.original.maxConcurrency', 0),
      restore('RestoreUnscaledMapping', 'Enables the mapping at its own batch size, unscaled as it was.', {}),
      { comment: 'no maximum concurrency before' },
    )
    .otherwise(
      restore(
        'RestoreMapping',
        'Enables the mapping at the batch size and maximum concurrency it had before the pause.',
        { MaximumConcurrency: sfn.JsonPath.numberAt('$.original.maxConcurrency') },
      ),
    );
}

function closeBreaker(ctx: PauseContext): sfn.TaskStateBase {
  const close = ctx.steps.updateItem('RecordClosed', {
    comment: 'Consumption runs again: the breaker closes, and the next episode starts from scratch.',
    table: ctx.controlTable,
    key: BREAKER_ITEM_KEY,
    update:
      `SET #${A.state} = :closed, #${A.stop} = :false, #${A.closedAt} = :now ` +
      `REMOVE #${A.probeSuccesses}, #${A.probeFailures}, #${A.probeRepeatFailures}, #${A.probeOwnFailures}, ` +
      `#${A.taskToken}, ` +
      `#${A.waitingSince}, #${A.operatorAction}, #${A.originalBatchSize}, #${A.originalMaxConcurrency}, ` +
      `#${A.halfOpenAt}, ` +
      // The next episode starts from the configured cool-down again.
      `#${A.cooldownSeconds}`,
    condition: `#${A.epoch} = :epoch`,
    names: attributeNames(
      A.state,
      A.stop,
      A.closedAt,
      A.probeSuccesses,
      A.probeFailures,
      A.probeRepeatFailures,
      A.probeOwnFailures,
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
  const disableForNewer = ctx.failure.onError(
    ctx.steps.mappingCall('DisableForNewerPause', {
      comment: 'A newer pause owns the breaker: the mapping this run just enabled is its to enable.',
      action: 'updateEventSourceMapping',
      parameters: { Enabled: false },
    }),
    'Disabling the mapping for a newer pause',
  );
  close.addCatch(disableForNewer.next(ctx.superseded), { errors: [CONDITION_FAILED], resultPath: '$.error' });
  ctx.failure.onError(close, 'Closing the breaker');
  close.next(
    ctx.steps
      .notify(
        'NotifyResumed',
        'The people told of the pause hear that it is over.',
        'poison-quarantine: consumption resumed',
        {
          event: 'resumed',
          reason: sfn.JsonPath.stringAt('$.reason'),
          epoch: sfn.JsonPath.numberAt('$.epoch'),
        },
      )
      .next(
        new sfn.Succeed(ctx.scope, 'Resumed', {
          comment: 'The mapping runs with its own settings again and the breaker is closed.',
        }),
      ),
  );
  return close;
}
