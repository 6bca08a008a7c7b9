/**
 * The ways out of a pause (rules 7 and 11): the operator's action read at each loop point, the
 * operator wait (a task token on the episode's answer item), the check that no stop request is
 * in force, and restoring the mapping's remembered settings, then closing the breaker. Every
 * breaker write is conditioned on the execution's epoch: when a newer pause owns the breaker,
 * this execution steps aside ("Superseded") instead of overwriting it.
 */
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import {
  BREAKER_ATTRIBUTES as A,
  ANSWER_ATTRIBUTES as ANSWER,
  BREAKER_STATE,
  CONSUMER_PARTITIONS,
  OPERATOR_ACTION,
  STOPS_LIFTED_ATTRIBUTES,
} from '../../contract/control';
import { isText, textIs } from './conditions';
import {
  answerItemKey,
  BREAKER_ITEM_KEY,
  type PauseContext,
  readAnswer,
  readBreaker,
  STOPS_LIFTED_ITEM_KEY,
} from './pause-context';
import { OPERATIONS_METRIC } from './protocol';
import { attributeNames, CONDITION_FAILED, enteredTime, numberAt, stringAt } from './steps';

/** Where an operator's action leads: `resume` restores consumption, `hold` disables and waits. */
export interface OperatorWays {
  readonly resume: sfn.IChainable;
  readonly hold: sfn.IChainable;
}

/** Whether the answer read into `$.answer` carries this operator action. */
const operatorActionIs = (action: string) => textIs(`$.answer.Item.${ANSWER.action}.S`, action);

/**
 * The loop points of a pause. `pq resume` and `pq hold` set `action` on the episode's answer
 * item and start no execution while one runs: the running one reads it here, at each point.
 */
export class OperatorCheckpoints {
  constructor(
    private readonly ctx: PauseContext,
    private readonly ways: OperatorWays,
  ) {}

  /** Reads the action into `$.answer` (and `alsoRead` of the breaker into `$.control`); without one, goes on. */
  at(when: string, goOn: sfn.IChainable, alsoRead: readonly string[] = []): sfn.Chain {
    const read = readAnswer(
      this.ctx,
      `ReadOperator${when}`,
      'The operator may have asked to resume or hold since the last loop point.',
      [ANSWER.action],
      '$.answer',
    );
    const next =
      alsoRead.length === 0
        ? goOn
        : this.ctx.failure
            .onError(
              readBreaker(
                this.ctx,
                `ReadBreaker${when}`,
                'What the consumer counted decides next.',
                alsoRead,
                {
                  resultPath: '$.control',
                },
              ),
              'Reading the breaker',
            )
            .next(goOn);
    return this.ctx.failure.onError(read, 'Reading the operator action').next(
      new sfn.Choice(this.ctx.scope, `OperatorAction${when}`, {
        comment: "An operator's action overrides the automatic course of the pause.",
      })
        .when(operatorActionIs(OPERATOR_ACTION.resume), this.ways.resume, { comment: 'resume' })
        .when(operatorActionIs(OPERATOR_ACTION.hold), this.ways.hold, { comment: 'hold' })
        .otherwise(next),
    );
  }
}

/**
 * Waits for the operator with a task token on the episode's answer item. The write refuses when
 * the operator already asked to resume (the CLI sets `action` before it looks for a token), so a
 * resume can never fall between the machine's read and its wait: refused, it resumes. An overdue
 * wait is counted as pause time for the paused-too-long alarm, escalated, and waited for again
 * while this epoch still owns the breaker.
 */
export function awaitOperatorResume(ctx: PauseContext, resume: sfn.IChainable): sfn.State {
  const wait = ctx.steps.updateItem('AwaitOperatorResume', {
    comment: "The episode's answer item holds the token pq resume and pq hold answer with.",
    table: ctx.controlTable,
    key: answerItemKey(),
    update: `SET #${ANSWER.taskToken} = :token, #${ANSWER.waitingSince} = :now`,
    condition: `attribute_not_exists(#${ANSWER.action}) OR #${ANSWER.action} <> :resume`,
    names: attributeNames(ANSWER.taskToken, ANSWER.waitingSince, ANSWER.action),
    values: {
      ':token': { S: sfn.JsonPath.taskToken },
      ':now': enteredTime(),
      ':resume': { S: OPERATOR_ACTION.resume },
    },
    resultPath: '$.operator',
    waitForOperator: { heartbeat: ctx.operatorHeartbeat, timeout: ctx.operatorTimeout },
  });
  wait.addCatch(remindOperator(ctx).next(whileThisEpoch(ctx, wait)), {
    errors: [sfn.Errors.HEARTBEAT_TIMEOUT, sfn.Errors.TIMEOUT],
    resultPath: sfn.JsonPath.DISCARD,
  });
  wait.addCatch(resume, { errors: [CONDITION_FAILED], resultPath: '$.error' });
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

/**
 * Waits again while the breaker is still this run's epoch; a newer pause owns it otherwise, and
 * its own run waits on its own answer item (a breaker without a readable epoch keeps this wait).
 */
function whileThisEpoch(ctx: PauseContext, wait: sfn.State): sfn.Chain {
  const epochPath = `$.breaker.Item.${A.epoch}.N`;
  const read = readBreaker(
    ctx,
    'ReadEpochWhileWaiting',
    'Only the run of the current epoch keeps waiting: an older one is superseded.',
    [A.epoch],
    { resultPath: '$.breaker' },
  );
  const compare = new sfn.Pass(ctx.scope, 'EpochWhileWaiting', {
    comment: 'DynamoDB numbers are text: the epoch becomes a number to compare with the input.',
    parameters: { value: sfn.JsonPath.stringToJson(sfn.JsonPath.stringAt(epochPath)) },
    resultPath: '$.breakerEpoch',
  }).next(
    new sfn.Choice(ctx.scope, 'IsStillThisEpoch', { comment: 'A newer epoch supersedes this wait.' })
      .when(sfn.Condition.numberGreaterThanJsonPath('$.breakerEpoch.value', '$.epoch'), ctx.superseded, {
        comment: 'a newer epoch',
      })
      .otherwise(wait),
  );
  return ctx.failure.onError(read, 'Reading the breaker').next(
    new sfn.Choice(ctx.scope, 'HasEpochWhileWaiting', {
      comment: 'An item without an epoch supersedes nothing.',
    })
      .when(isText(epochPath), compare, { comment: 'an epoch' })
      .otherwise(wait),
  );
}

/**
 * Rule 11: before the mapping is enabled again (restored, or for a probe), no stop request may
 * be in force. The consumer's role can rewrite the breaker item (clear `stop`, start a new epoch
 * and a run of it) but not the operator partition, where only an operator's resume lifts the
 * requests made so far (`stops-lifted`); a request after it waits for an operator, whatever the
 * breaker says. `before` names the gate's states (BeforeRestore, BeforeProbe).
 */
export class StopGate {
  /** The first state: reads what was lifted and the newest request. */
  public readonly entry: sfn.IChainable;
  private readonly inForce: sfn.Choice;

  constructor(
    private readonly ctx: PauseContext,
    private readonly before: string,
    then: sfn.IChainable,
  ) {
    const lifted = ctx.steps.getItem(`ReadStopsLifted${before}`, {
      comment: 'The newest stop request an operator lifted; every later one is in force.',
      table: ctx.controlTable,
      key: STOPS_LIFTED_ITEM_KEY,
      attributes: [STOPS_LIFTED_ATTRIBUTES.liftedThrough],
      resultPath: '$.stops',
    });
    const newest = ctx.steps.newestOfPartition(`ReadNewestStopRequest${before}`, {
      comment: 'Every stop trip adds a request the consumer can never remove.',
      table: ctx.controlTable,
      partition: CONSUMER_PARTITIONS.stop,
      resultPath: '$.stopRequest',
    });
    this.inForce = new sfn.Choice(ctx.scope, `StopRequestInForce${before}`, {
      comment: 'A stop no operator lifted waits for one, whatever the breaker item says now.',
    });
    this.inForce.otherwise(then);
    this.entry = ctx.failure
      .onError(lifted, 'Reading the stops lifted')
      .next(ctx.failure.onError(newest, 'Reading the stop requests'))
      .next(this.inForce);
  }

  /** Where a stop in force leads: the operator's wait, after an earlier answer it overrides is forgotten. */
  whenInForce(wait: sfn.IChainable): void {
    const newest = '$.stopRequest.Items[0].sk.S';
    const lifted = `$.stops.Item.${STOPS_LIFTED_ATTRIBUTES.liftedThrough}.S`;
    this.inForce.when(
      sfn.Condition.and(
        isText(newest),
        sfn.Condition.or(
          sfn.Condition.not(isText(lifted)),
          sfn.Condition.stringGreaterThanJsonPath(newest, lifted),
        ),
      ),
      this.forgetEarlierAnswer(newest).next(wait),
      { comment: 'a stop request no operator lifted' },
    );
  }

  /**
   * A resume given before this request did not lift it, and would refuse the wait: it is removed,
   * unless the operator's resume lifted the request meanwhile (then the gate looks again).
   */
  private forgetEarlierAnswer(newest: string): sfn.TaskStateBase {
    const forget = this.ctx.steps.updateItem(`ForgetEarlierAnswer${this.before}`, {
      comment: 'An answer given before the stop request does not answer it.',
      table: this.ctx.controlTable,
      key: answerItemKey(),
      update: `REMOVE #${ANSWER.action}`,
      condition: `attribute_not_exists(#${ANSWER.liftedThrough}) OR #${ANSWER.liftedThrough} < :request`,
      names: attributeNames(ANSWER.action, ANSWER.liftedThrough),
      values: { ':request': stringAt(newest) },
    });
    forget.addCatch(this.entry, { errors: [CONDITION_FAILED], resultPath: '$.error' });
    return this.ctx.failure.onError(forget, 'Forgetting an earlier answer');
  }
}

/**
 * Restores the remembered BatchSize and MaximumConcurrency (`$.original`) and enables the
 * mapping, then closes the breaker. Restore first: if the close then finds a newer epoch, that
 * pause owns the consumer, so this execution disables the mapping again before it steps aside.
 * A mapping without a ScalingConfig setting (Kafka) gets its batch size back alone.
 */
export function restoreAndClose(ctx: PauseContext): sfn.IChainable {
  const close = closeBreaker(ctx);
  if (!ctx.steps.mappingScales) {
    const restore = ctx.steps.mappingCall('RestoreMapping', {
      comment: 'Enables the mapping at the batch size it had before the pause.',
      action: 'updateEventSourceMapping',
      parameters: { BatchSize: sfn.JsonPath.numberAt('$.original.batchSize'), Enabled: true },
    });
    return ctx.failure.onError(restore, 'Restoring the mapping').next(close);
  }
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
      `#${A.originalBatchSize}, #${A.originalMaxConcurrency}, ` +
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
