/**
 * Rule 7 (and 11): pause consumption. Remember the mapping's settings, disable it and wait until
 * it IS disabled, record the breaker open, alert. A stop waits for the operator; otherwise cool
 * down, half-open at the smallest footprint, and judge the probe by the counters the consumer
 * keeps on the breaker item: failures and no success reopen with the cool-down doubled (capped),
 * a success or silence restores the remembered settings. The operator's `operatorAction` is
 * read at each loop point. Timings come in the input, so tests scale them down to seconds.
 */
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import {
  BREAKER_ITEM_KEY,
  names,
  onTaskError,
  operatorActionIs,
  operatorWait,
  type PauseContext,
  readControl,
  restoreAndClose,
} from './pause-resume';
import {
  BREAKER_ATTRIBUTES as A,
  BREAKER_STATE,
  DISABLE_POLL_LIMIT,
  FAILURE,
  OPERATIONS_METRIC,
  OPERATOR_ACTION,
  PROBE_FOOTPRINT,
} from './protocol';
import { booleanAt, CONDITION_FAILED, enteredTime, numberAt, stringAt } from './steps';

/** The pause branch; its input is `{ kind, reason, epoch, stop, cooldownSeconds, maxCooldownSeconds, probeSeconds, pollSeconds }`. */
export function pausePath(ctx: PauseContext): sfn.IChainable {
  const { scope, steps } = ctx;
  const restore = restoreAndClose(ctx);
  const awaitOperator = operatorWait(ctx, restore);

  // Remember what to restore: BatchSize and MaximumConcurrency (0 = no ScalingConfig). The
  // response is replaced by these two at once: nothing else of it is needed downstream.
  const getSettings = onTaskError(
    ctx,
    steps.mapping('GetMappingSettings', 'getEventSourceMapping', {}, { resultPath: '$.mapping' }),
    'Reading the mapping',
  );
  const remember = (id: string, maxConcurrency: unknown) =>
    new sfn.Pass(scope, id, {
      parameters: { batchSize: sfn.JsonPath.numberAt('$.mapping.BatchSize'), maxConcurrency },
      resultPath: '$.mapping',
    });

  // Disable, then poll until the mapping says Disabled (disabling is asynchronous), bounded.
  const disable = onTaskError(
    ctx,
    steps.mapping('DisableMapping', 'updateEventSourceMapping', { Enabled: false }),
    'Disabling the mapping',
  );
  const readState = onTaskError(
    ctx,
    steps.mapping(
      'ReadMappingState',
      'getEventSourceMapping',
      {},
      { resultSelector: { state: sfn.JsonPath.stringAt('$.State') }, resultPath: '$.mappingState' },
    ),
    'Reading the mapping state',
  );
  const countPoll = new sfn.Pass(scope, 'CountDisablePoll', {
    parameters: { count: sfn.JsonPath.mathAdd(sfn.JsonPath.numberAt('$.poll.count'), 1) },
    resultPath: '$.poll',
  });
  const stuck = new sfn.Pass(scope, 'MappingStuck', {
    result: sfn.Result.fromObject({
      error: FAILURE.mappingNotDisabled,
      cause: `The mapping did not reach Disabled after ${DISABLE_POLL_LIMIT} polls: check it, then resume with the CLI.`,
    }),
    resultPath: '$.failure',
  }).next(ctx.failed);

  const recordOpen = steps.updateItem('RecordOpen', {
    table: ctx.controlTable,
    key: BREAKER_ITEM_KEY,
    update:
      `SET #${A.state} = :open, #${A.reason} = :reason, #${A.epoch} = :epoch, #${A.stop} = :stop, ` +
      `#${A.openedAt} = :now, #${A.disabledAt} = :now, #${A.cooldownSeconds} = :cooldown, ` +
      // Kept from an earlier epoch that never closed: that one saw the mapping before any probe shrank it.
      `#${A.originalBatchSize} = if_not_exists(#${A.originalBatchSize}, :batchSize), ` +
      `#${A.originalMaxConcurrency} = if_not_exists(#${A.originalMaxConcurrency}, :maxConcurrency) ` +
      `REMOVE #${A.probeSuccesses}, #${A.probeFailures}, #${A.probeRepeatFailures}, #${A.halfOpenAt}`,
    condition: `attribute_not_exists(#${A.epoch}) OR #${A.epoch} <= :epoch`,
    names: names(
      A.state,
      A.reason,
      A.epoch,
      A.stop,
      A.openedAt,
      A.disabledAt,
      A.cooldownSeconds,
      A.originalBatchSize,
      A.originalMaxConcurrency,
      A.probeSuccesses,
      A.probeFailures,
      A.probeRepeatFailures,
      A.halfOpenAt,
    ),
    values: {
      ':open': { S: BREAKER_STATE.open },
      ':reason': stringAt('$.reason'),
      ':epoch': numberAt('$.epoch'),
      ':stop': booleanAt('$.stop'),
      ':now': enteredTime(),
      ':cooldown': numberAt('$.cooldownSeconds'),
      ':batchSize': numberAt('$.mapping.batchSize'),
      ':maxConcurrency': numberAt('$.mapping.maxConcurrency'),
    },
  });
  recordOpen.addCatch(ctx.superseded, { errors: [CONDITION_FAILED], resultPath: '$.error' });
  onTaskError(ctx, recordOpen, 'Recording the breaker open');

  // What the restore will use: the item's settings, which may be an earlier epoch's (a separate
  // read: UpdateItem's UPDATED_NEW leaves out what if_not_exists kept, ALL_NEW would carry a token).
  const readOriginal = onTaskError(
    ctx,
    steps.getItem(
      'ReadOriginalSettings',
      ctx.controlTable,
      BREAKER_ITEM_KEY,
      [A.originalBatchSize, A.originalMaxConcurrency],
      {
        resultSelector: {
          batchSize: sfn.JsonPath.stringToJson(sfn.JsonPath.stringAt(`$.Item.${A.originalBatchSize}.N`)),
          maxConcurrency: sfn.JsonPath.stringToJson(
            sfn.JsonPath.stringAt(`$.Item.${A.originalMaxConcurrency}.N`),
          ),
        },
        resultPath: '$.original',
      },
    ),
    'Reading the original settings',
  );

  const notifyPaused = steps.notify('NotifyPaused', 'poison-quarantine: consumption paused', {
    event: 'paused',
    reason: sfn.JsonPath.stringAt('$.reason'),
    epoch: sfn.JsonPath.numberAt('$.epoch'),
    stop: sfn.JsonPath.stringAt('$.stop'),
    cooldownSeconds: sfn.JsonPath.numberAt('$.cooldownSeconds'),
  });

  // An operator hold at any loop point: disabled again (a probe may be running), stop recorded, wait.
  const hold = new sfn.Pass(scope, 'HoldConsumer', {
    result: sfn.Result.fromBoolean(true),
    resultPath: '$.stop',
  });
  const checkpoint = (when: string, attributes: string[], otherwise: (choice: sfn.Choice) => sfn.Choice) =>
    readControl(ctx, `ReadOperator${when}`, attributes).next(
      otherwise(
        new sfn.Choice(scope, `OperatorAction${when}`)
          .when(operatorActionIs(OPERATOR_ACTION.resume), restore)
          .when(operatorActionIs(OPERATOR_ACTION.hold), hold),
      ),
    );

  const recordHalfOpen = steps.updateItem('RecordHalfOpen', {
    table: ctx.controlTable,
    key: BREAKER_ITEM_KEY,
    update:
      `SET #${A.state} = :halfOpen, #${A.probeSuccesses} = :zero, #${A.probeFailures} = :zero, ` +
      `#${A.probeRepeatFailures} = :zero, #${A.halfOpenAt} = :now`,
    condition: `#${A.epoch} = :epoch`,
    names: names(A.state, A.probeSuccesses, A.probeFailures, A.probeRepeatFailures, A.halfOpenAt, A.epoch),
    values: {
      ':halfOpen': { S: BREAKER_STATE.halfOpen },
      ':zero': { N: '0' },
      ':now': enteredTime(),
      ':epoch': numberAt('$.epoch'),
    },
  });
  recordHalfOpen.addCatch(ctx.superseded, { errors: [CONDITION_FAILED], resultPath: '$.error' });
  onTaskError(ctx, recordHalfOpen, 'Recording the breaker half-open');
  const enableForProbe = onTaskError(
    ctx,
    steps.mapping('EnableForProbe', 'updateEventSourceMapping', {
      BatchSize: PROBE_FOOTPRINT.batchSize,
      ScalingConfig: { MaximumConcurrency: PROBE_FOOTPRINT.maxConcurrency },
      Enabled: true,
    }),
    'Enabling the mapping for a probe',
  );

  // A window whose probes failed and none succeeded doubles the cool-down, up to its cap, and
  // disables the mapping again. One success says the dependency works: what failed beside it
  // failed by itself, and meets its own budget once consumption is restored.
  const counted = (attribute: string) => {
    const path = `$.control.Item.${attribute}.N`;
    return sfn.Condition.and(
      sfn.Condition.isPresent(path),
      sfn.Condition.not(sfn.Condition.stringEquals(path, '0')),
    );
  };
  const probeFailed = sfn.Condition.and(
    counted(A.probeFailures),
    sfn.Condition.not(counted(A.probeSuccesses)),
  );
  const doubleCooldown = new sfn.Pass(scope, 'DoubleCooldown', {
    parameters: {
      value: sfn.JsonPath.mathAdd(
        sfn.JsonPath.numberAt('$.cooldownSeconds'),
        sfn.JsonPath.numberAt('$.cooldownSeconds'),
      ),
    },
    resultPath: '$.doubled',
  });
  const useCooldown = (id: string, inputPath: string) =>
    new sfn.Pass(scope, id, { inputPath, resultPath: '$.cooldownSeconds' }).next(disable);
  const capCooldown = new sfn.Choice(scope, 'CapCooldown')
    .when(
      sfn.Condition.numberGreaterThanJsonPath('$.doubled.value', '$.maxCooldownSeconds'),
      useCooldown('UseMaxCooldown', '$.maxCooldownSeconds'),
    )
    .otherwise(useCooldown('UseDoubledCooldown', '$.doubled.value'));

  const probeWindow = new sfn.Wait(scope, 'ProbeWindow', {
    time: sfn.WaitTime.secondsPath('$.probeSeconds'),
  });
  const judgeProbe = checkpoint(
    'AfterProbe',
    [A.operatorAction, A.probeSuccesses, A.probeFailures],
    (choice) =>
      choice
        .when(probeFailed, countPausedTime(ctx).next(doubleCooldown).next(capCooldown))
        .otherwise(restore),
  );
  const coolDown = new sfn.Wait(scope, 'CoolDown', { time: sfn.WaitTime.secondsPath('$.cooldownSeconds') });
  const afterCoolDown = checkpoint('AfterCoolDown', [A.operatorAction], (choice) =>
    choice.otherwise(recordHalfOpen.next(enableForProbe).next(probeWindow).next(judgeProbe)),
  );
  const afterDisable = checkpoint('AfterDisable', [A.operatorAction], (choice) =>
    choice.otherwise(coolDown.next(afterCoolDown)),
  );

  hold.next(disable);
  disable
    .next(
      new sfn.Pass(scope, 'ResetDisablePolls', {
        result: sfn.Result.fromObject({ count: 0 }),
        resultPath: '$.poll',
      }),
    )
    .next(readState)
    .next(
      new sfn.Choice(scope, 'IsMappingDisabled')
        .when(sfn.Condition.stringEquals('$.mappingState.state', 'Disabled'), recordOpen)
        .when(sfn.Condition.numberGreaterThanEquals('$.poll.count', DISABLE_POLL_LIMIT), stuck)
        .otherwise(
          new sfn.Wait(scope, 'WaitForDisabled', { time: sfn.WaitTime.secondsPath('$.pollSeconds') })
            .next(countPoll)
            .next(readState),
        ),
    );
  recordOpen
    .next(readOriginal)
    .next(notifyPaused)
    .next(
      new sfn.Choice(scope, 'StopOrCoolDown')
        .when(sfn.Condition.booleanEquals('$.stop', true), awaitOperator)
        .otherwise(afterDisable),
    );

  const startClock = new sfn.Pass(scope, 'StartPauseClock', {
    result: sfn.Result.fromObject({ seconds: 0 }),
    resultPath: '$.paused',
  });
  return startClock
    .next(fromTheBreaker(ctx))
    .next(getSettings)
    .next(
      new sfn.Choice(scope, 'RememberSettings')
        .when(
          sfn.Condition.isPresent('$.mapping.ScalingConfig.MaximumConcurrency'),
          remember(
            'RememberScaledSettings',
            sfn.JsonPath.numberAt('$.mapping.ScalingConfig.MaximumConcurrency'),
          ).next(disable),
        )
        .otherwise(remember('RememberUnscaledSettings', 0).next(disable)),
    );
}

/**
 * The run acts on the breaker item, not on its input: the consumer's trip (or its escalation to
 * a stop) wrote the episode's epoch, stop and reason there, and only an operator's action may
 * lift a stop. So `$.stop` and `$.reason` are taken from the item of this run's epoch; a newer
 * epoch supersedes the run, and an epoch nobody tripped is refused before anything changes.
 */
function fromTheBreaker(ctx: PauseContext): sfn.Chain {
  const { scope, steps } = ctx;
  const item = (attribute: string, type: string) => `$.breaker.Item.${attribute}.${type}`;
  const readBreaker = onTaskError(
    ctx,
    steps.getItem('ReadBreaker', ctx.controlTable, BREAKER_ITEM_KEY, [A.epoch, A.stop, A.reason], {
      resultPath: '$.breaker',
    }),
    'Reading the breaker',
  );
  const notTripped = new sfn.Pass(scope, 'BreakerNotTripped', {
    result: sfn.Result.fromObject({
      error: FAILURE.invalidInput,
      cause: 'No breaker was tripped for this epoch: a pause acts only on the breaker item its epoch names.',
    }),
    resultPath: '$.failure',
  }).next(ctx.failed);
  const take = (id: string, path: string, into: string) =>
    new sfn.Pass(scope, id, { inputPath: path, resultPath: into });
  const thisEpoch = new sfn.Choice(scope, 'IsBreakerOfThisEpoch')
    .when(
      sfn.Condition.numberEqualsJsonPath('$.breakerEpoch.value', '$.epoch'),
      take('TakeStopFromBreaker', item(A.stop, 'BOOL'), '$.stop').next(
        take('TakeReasonFromBreaker', item(A.reason, 'S'), '$.reason'),
      ),
    )
    .when(sfn.Condition.numberGreaterThanJsonPath('$.breakerEpoch.value', '$.epoch'), ctx.superseded)
    .otherwise(notTripped)
    .afterwards();
  const readable = sfn.Condition.and(
    sfn.Condition.isPresent(item(A.epoch, 'N')),
    sfn.Condition.isBoolean(item(A.stop, 'BOOL')),
    sfn.Condition.isString(item(A.reason, 'S')),
  );
  const breakerEpoch = new sfn.Pass(scope, 'BreakerEpoch', {
    parameters: { value: sfn.JsonPath.stringToJson(sfn.JsonPath.stringAt(item(A.epoch, 'N'))) },
    resultPath: '$.breakerEpoch',
  });
  return readBreaker.next(
    new sfn.Choice(scope, 'IsBreakerReadable')
      .when(readable, breakerEpoch.next(thisEpoch))
      .otherwise(notTripped)
      .afterwards(),
  );
}

/**
 * A window whose probes failed adds its cool-down and probe window to the time this pause has
 * kept consumption stopped, and publishes the total: the paused-too-long alarm watches it.
 */
function countPausedTime(ctx: PauseContext): sfn.Chain {
  const add = (id: string, path: string) =>
    new sfn.Pass(ctx.scope, id, {
      parameters: {
        seconds: sfn.JsonPath.mathAdd(sfn.JsonPath.numberAt('$.paused.seconds'), sfn.JsonPath.numberAt(path)),
      },
      resultPath: '$.paused',
    });
  return add('CountCoolDown', '$.cooldownSeconds')
    .next(add('CountProbeWindow', '$.probeSeconds'))
    .next(ctx.steps.putMetric('PublishPausedTime', OPERATIONS_METRIC.pausedSeconds, '$.paused.seconds'));
}
