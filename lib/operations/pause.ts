/**
 * Into a pause (rules 7 and 11): take the episode from the breaker item, remember the mapping's
 * settings, disable it and wait until it IS disabled, record the breaker open and alert. The
 * steps are strung together in pause-state-machine.ts.
 */
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { BREAKER_ATTRIBUTES as A, BREAKER_STATE } from '../../contract/control';
import { BREAKER_ITEM_KEY, type PauseContext, readBreaker } from './pause-context';
import { DISABLE_POLL_LIMIT, FAILURE } from './protocol';
import { attributeNames, booleanAt, CONDITION_FAILED, enteredTime, numberAt, stringAt } from './steps';

/** `$.paused.seconds` counts how long this run has stopped consumption, for the paused-too-long alarm. */
export function startPauseClock(ctx: PauseContext): sfn.Pass {
  return new sfn.Pass(ctx.scope, 'StartPauseClock', {
    comment: 'Nothing has been stopped by this run yet: the paused-too-long alarm counts from zero.',
    result: sfn.Result.fromObject({ seconds: 0 }),
    resultPath: '$.paused',
  });
}

/**
 * The run acts on the breaker item, not on its input: the consumer's trip (or its escalation to
 * a stop) wrote the episode's epoch, stop and reason there, and only an operator's action may
 * lift a stop. So `$.stop` and `$.reason` are taken from the item of this run's epoch; a newer
 * epoch supersedes the run, and an epoch nobody tripped is refused before anything changes.
 */
export function takeStopAndReasonFromBreaker(ctx: PauseContext): sfn.Chain {
  const { scope } = ctx;
  const item = (attribute: string, type: string) => `$.breaker.Item.${attribute}.${type}`;
  const read = readBreaker(
    ctx,
    'ReadBreaker',
    'The consumer tripped the breaker before it started this run: the item says what the episode is.',
    [A.epoch, A.stop, A.reason],
    { resultPath: '$.breaker' },
  );
  const notTripped = ctx.failure.because(
    'BreakerNotTripped',
    'A run for an epoch nobody tripped would disable a healthy consumer: refused before any change.',
    FAILURE.invalidInput,
    'No breaker was tripped for this epoch: a pause acts only on the breaker item its epoch names.',
  );
  const take = (id: string, comment: string, path: string, into: string) =>
    new sfn.Pass(scope, id, { comment, inputPath: path, resultPath: into });
  const thisEpoch = new sfn.Choice(scope, 'IsBreakerOfThisEpoch', {
    comment: 'Only the pause of the current epoch may act on the breaker and the mapping.',
  })
    .when(
      sfn.Condition.numberEqualsJsonPath('$.breakerEpoch.value', '$.epoch'),
      take(
        'TakeStopFromBreaker',
        'No input can lift a stop: only an operator does.',
        item(A.stop, 'BOOL'),
        '$.stop',
      ).next(
        take(
          'TakeReasonFromBreaker',
          'The alerts name the reason the consumer recorded.',
          item(A.reason, 'S'),
          '$.reason',
        ),
      ),
      { comment: 'this epoch' },
    )
    .when(sfn.Condition.numberGreaterThanJsonPath('$.breakerEpoch.value', '$.epoch'), ctx.superseded, {
      comment: 'a newer epoch',
    })
    .otherwise(notTripped)
    .afterwards();
  const readable = sfn.Condition.and(
    sfn.Condition.isPresent(item(A.epoch, 'N')),
    sfn.Condition.isBoolean(item(A.stop, 'BOOL')),
    sfn.Condition.isString(item(A.reason, 'S')),
  );
  const breakerEpoch = new sfn.Pass(scope, 'BreakerEpoch', {
    comment: 'DynamoDB numbers are text: the epoch becomes a number to compare with the input.',
    parameters: { value: sfn.JsonPath.stringToJson(sfn.JsonPath.stringAt(item(A.epoch, 'N'))) },
    resultPath: '$.breakerEpoch',
  });
  return ctx.failure.onError(read, 'Reading the breaker').next(
    new sfn.Choice(scope, 'IsBreakerReadable', {
      comment: 'A breaker item without an epoch, a stop and a reason was never tripped by a consumer.',
    })
      .when(readable, breakerEpoch.next(thisEpoch), { comment: 'a tripped breaker' })
      .otherwise(notTripped)
      .afterwards(),
  );
}

/**
 * Remembers what to restore: BatchSize and MaximumConcurrency (0 = no ScalingConfig, as a Kafka
 * mapping never has). The response is replaced by these two at once: nothing else of it is
 * needed downstream.
 */
export function rememberMappingSettings(ctx: PauseContext): sfn.Chain {
  const get = ctx.steps.mappingCall('GetMappingSettings', {
    comment: 'The settings the mapping runs with now are the ones to give back when the pause ends.',
    action: 'getEventSourceMapping',
    resultPath: '$.mapping',
  });
  const remember = (id: string, comment: string, maxConcurrency: unknown) =>
    new sfn.Pass(ctx.scope, id, {
      comment,
      parameters: { batchSize: sfn.JsonPath.numberAt('$.mapping.BatchSize'), maxConcurrency },
      resultPath: '$.mapping',
    });
  if (!ctx.steps.mappingScales) {
    return ctx.failure
      .onError(get, 'Reading the mapping')
      .next(
        remember('RememberSettings', 'Keeps the batch size; a Kafka mapping has no ScalingConfig (0).', 0),
      );
  }
  const scaled = '$.mapping.ScalingConfig.MaximumConcurrency';
  return ctx.failure.onError(get, 'Reading the mapping').next(
    new sfn.Choice(ctx.scope, 'RememberSettings', {
      comment: 'A mapping may have no ScalingConfig: it is remembered as 0 and restored without one.',
    })
      .when(
        sfn.Condition.isPresent(scaled),
        remember(
          'RememberScaledSettings',
          'Keeps the batch size and maximum concurrency.',
          sfn.JsonPath.numberAt(scaled),
        ),
        { comment: 'a maximum concurrency' },
      )
      .otherwise(
        remember('RememberUnscaledSettings', 'Keeps the batch size; 0 stands for no ScalingConfig.', 0),
      )
      .afterwards(),
  );
}

/** Stops Lambda polling the queue: no message is received, so none is charged or quarantined. */
export function disableMapping(ctx: PauseContext): sfn.TaskStateBase {
  return ctx.failure.onError(
    ctx.steps.mappingCall('DisableMapping', {
      comment: 'Consumption stops here: a shared outage must not use up the attempts of healthy messages.',
      action: 'updateEventSourceMapping',
      parameters: { Enabled: false },
    }),
    'Disabling the mapping',
  );
}

/**
 * Disabling is asynchronous: polls every `pollSeconds` until the mapping says Disabled, and gives
 * up with an alert after DISABLE_POLL_LIMIT polls. Goes on (its default) once it is Disabled.
 */
export function pollUntilDisabled(ctx: PauseContext): sfn.Chain {
  const { scope } = ctx;
  const readState = ctx.failure.onError(
    ctx.steps.mappingCall('ReadMappingState', {
      comment: 'Until the mapping says Disabled, Lambda may still be delivering messages.',
      action: 'getEventSourceMapping',
      resultSelector: { state: sfn.JsonPath.stringAt('$.State') },
      resultPath: '$.mappingState',
    }),
    'Reading the mapping state',
  );
  const waitAndPollAgain = new sfn.Wait(scope, 'WaitForDisabled', {
    comment: 'Disabling takes a moment: look again after pollSeconds.',
    time: sfn.WaitTime.secondsPath('$.pollSeconds'),
  })
    .next(
      new sfn.Pass(scope, 'CountDisablePoll', {
        comment: 'Bounds the polls: a mapping that never disables must reach a person.',
        parameters: { count: sfn.JsonPath.mathAdd(sfn.JsonPath.numberAt('$.poll.count'), 1) },
        resultPath: '$.poll',
      }),
    )
    .next(readState);
  const stuck = ctx.failure.because(
    'MappingStuck',
    'A mapping that does not disable may still consume: only a person can find out why.',
    FAILURE.mappingNotDisabled,
    `The mapping did not reach Disabled after ${DISABLE_POLL_LIMIT} polls: check it, then resume with the CLI.`,
  );
  const notDisabled = sfn.Condition.not(sfn.Condition.stringEquals('$.mappingState.state', 'Disabled'));
  const isDisabled = new sfn.Choice(scope, 'IsMappingDisabled', {
    comment: 'The breaker is recorded open only once no message can be delivered any more.',
  })
    .when(
      sfn.Condition.and(
        notDisabled,
        sfn.Condition.numberGreaterThanEquals('$.poll.count', DISABLE_POLL_LIMIT),
      ),
      stuck,
      { comment: `not Disabled after ${DISABLE_POLL_LIMIT} polls` },
    )
    .when(notDisabled, waitAndPollAgain, { comment: 'not Disabled yet' });
  const reset = new sfn.Pass(scope, 'ResetDisablePolls', {
    comment: 'Each disable gets the full number of polls.',
    result: sfn.Result.fromObject({ count: 0 }),
    resultPath: '$.poll',
  });
  // Wired before `afterwards` looks for open ends: the only one left is the choice's default.
  reset.next(readState).next(isDisabled);
  return sfn.Chain.custom(reset, isDisabled.afterwards({ includeOtherwise: true }).endStates, isDisabled);
}

/**
 * Records the breaker open for this epoch, with the settings to restore unless an earlier epoch
 * that never closed kept them (that one saw the mapping before any probe shrank it). A newer
 * epoch on the item supersedes this run.
 */
export function recordOpen(ctx: PauseContext): sfn.TaskStateBase {
  const open = ctx.steps.updateItem('RecordOpen', {
    comment: 'The breaker item says the consumer is paused, since when, why, and what to restore.',
    table: ctx.controlTable,
    key: BREAKER_ITEM_KEY,
    update:
      `SET #${A.state} = :open, #${A.reason} = :reason, #${A.epoch} = :epoch, #${A.stop} = :stop, ` +
      `#${A.openedAt} = :now, #${A.disabledAt} = :now, #${A.cooldownSeconds} = :cooldown, ` +
      `#${A.originalBatchSize} = if_not_exists(#${A.originalBatchSize}, :batchSize), ` +
      `#${A.originalMaxConcurrency} = if_not_exists(#${A.originalMaxConcurrency}, :maxConcurrency) ` +
      `REMOVE #${A.probeSuccesses}, #${A.probeFailures}, #${A.probeRepeatFailures}, #${A.probeOwnFailures}, ` +
      `#${A.halfOpenAt}`,
    condition: `attribute_not_exists(#${A.epoch}) OR #${A.epoch} <= :epoch`,
    names: attributeNames(
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
      A.probeOwnFailures,
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
  open.addCatch(ctx.superseded, { errors: [CONDITION_FAILED], resultPath: '$.error' });
  return ctx.failure.onError(open, 'Recording the breaker open');
}

/**
 * What the restore will use: the item's settings, which may be an earlier epoch's (a separate
 * read: UpdateItem's UPDATED_NEW leaves out what if_not_exists kept, ALL_NEW would carry a token).
 */
export function readOriginalSettings(ctx: PauseContext): sfn.TaskStateBase {
  const number = (attribute: string) =>
    sfn.JsonPath.stringToJson(sfn.JsonPath.stringAt(`$.Item.${attribute}.N`));
  return ctx.failure.onError(
    readBreaker(
      ctx,
      'ReadOriginalSettings',
      'The settings to restore are those on the item, which an earlier epoch may have kept.',
      [A.originalBatchSize, A.originalMaxConcurrency],
      {
        resultSelector: {
          batchSize: number(A.originalBatchSize),
          maxConcurrency: number(A.originalMaxConcurrency),
        },
        resultPath: '$.original',
      },
    ),
    'Reading the original settings',
  );
}

export function notifyPaused(ctx: PauseContext): sfn.TaskStateBase {
  return ctx.steps.notify(
    'NotifyPaused',
    'A paused consumer is news for the people on call, whether it resumes by itself or not.',
    'poison-quarantine: consumption paused',
    {
      event: 'paused',
      reason: sfn.JsonPath.stringAt('$.reason'),
      epoch: sfn.JsonPath.numberAt('$.epoch'),
      stop: sfn.JsonPath.stringAt('$.stop'),
      cooldownSeconds: sfn.JsonPath.numberAt('$.cooldownSeconds'),
    },
  );
}

/** An operator's hold at a loop point: the pause becomes a stop, which waits for a person. */
export function holdConsumer(ctx: PauseContext): sfn.Pass {
  return new sfn.Pass(ctx.scope, 'HoldConsumer', {
    comment: 'Disabled again (a probe may be running), recorded as a stop, then waits for the operator.',
    result: sfn.Result.fromBoolean(true),
    resultPath: '$.stop',
  });
}
