/**
 * Half-open probing (rule 7): after the cool-down the mapping runs at the smallest footprint for
 * a probe window, and the counters the consumer keeps on the breaker item judge it. Failures and
 * no success, or a record our own tables failed, reopen with the cool-down doubled (capped); a
 * success or silence restores the remembered settings. Timings come in the input, so tests scale
 * them down to seconds.
 */
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { BREAKER_ATTRIBUTES as A, BREAKER_STATE, PROBE_FOOTPRINT } from '../../contract/control';
import { BREAKER_ITEM_KEY, type PauseContext } from './pause-context';
import { OPERATIONS_METRIC } from './protocol';
import { attributeNames, CONDITION_FAILED, enteredTime, numberAt } from './steps';

/** The probe counters the verdict reads, besides the operator's action. */
export const PROBE_COUNTERS = [A.probeSuccesses, A.probeFailures, A.probeOwnFailures] as const;

export function coolDown(ctx: PauseContext): sfn.Wait {
  return new sfn.Wait(ctx.scope, 'CoolDown', {
    comment: 'The outside system gets time to recover before anything is sent to it again.',
    time: sfn.WaitTime.secondsPath('$.cooldownSeconds'),
  });
}

/** Records the breaker half-open with zeroed counters, then enables the mapping at the probe footprint. */
export function halfOpen(ctx: PauseContext): sfn.Chain {
  const record = ctx.steps.updateItem('RecordHalfOpen', {
    comment: 'The consumer counts probe outcomes on the item while it is half-open; each window from zero.',
    table: ctx.controlTable,
    key: BREAKER_ITEM_KEY,
    update:
      `SET #${A.state} = :halfOpen, #${A.probeSuccesses} = :zero, #${A.probeFailures} = :zero, ` +
      `#${A.probeRepeatFailures} = :zero, #${A.probeOwnFailures} = :zero, #${A.halfOpenAt} = :now`,
    condition: `#${A.epoch} = :epoch`,
    names: attributeNames(
      A.state,
      A.probeSuccesses,
      A.probeFailures,
      A.probeRepeatFailures,
      A.probeOwnFailures,
      A.halfOpenAt,
      A.epoch,
    ),
    values: {
      ':halfOpen': { S: BREAKER_STATE.halfOpen },
      ':zero': { N: '0' },
      ':now': enteredTime(),
      ':epoch': numberAt('$.epoch'),
    },
  });
  record.addCatch(ctx.superseded, { errors: [CONDITION_FAILED], resultPath: '$.error' });
  const enable = ctx.steps.mappingCall('EnableForProbe', {
    comment: ctx.steps.mappingScales
      ? 'One record per invocation, the smallest concurrency: a probe risks as little as it can.'
      : 'One record per invocation: a probe risks as little as it can (a Kafka mapping has no concurrency setting).',
    action: 'updateEventSourceMapping',
    parameters: {
      BatchSize: PROBE_FOOTPRINT.batchSize,
      ...(ctx.steps.mappingScales
        ? { ScalingConfig: { MaximumConcurrency: PROBE_FOOTPRINT.maxConcurrency } }
        : {}),
      Enabled: true,
    },
  });
  return ctx.failure
    .onError(record, 'Recording the breaker half-open')
    .next(ctx.failure.onError(enable, 'Enabling the mapping for a probe'));
}

export function probeWindow(ctx: PauseContext): sfn.Wait {
  return new sfn.Wait(ctx.scope, 'ProbeWindow', {
    comment: 'The probes run for probeSeconds; the consumer counts their outcomes on the breaker item.',
    time: sfn.WaitTime.secondsPath('$.probeSeconds'),
  });
}

/**
 * A window whose probes failed and none succeeded says the dependency is still down. One
 * success says it works: what failed beside it failed by itself, and meets its own budget once
 * consumption is restored. A window without traffic restores too: nothing says it is down. A
 * window in which our own tables failed a record proves nothing, whatever succeeded: restoring
 * would run every message into the same failure, a receive each, so it reopens.
 */
export function judgeProbe(
  ctx: PauseContext,
  ways: { failed: sfn.IChainable; worked: sfn.IChainable },
): sfn.Choice {
  const counted = (attribute: string) => {
    const path = `$.control.Item.${attribute}.N`;
    return sfn.Condition.and(
      sfn.Condition.isPresent(path),
      sfn.Condition.not(sfn.Condition.stringEquals(path, '0')),
    );
  };
  return new sfn.Choice(ctx.scope, 'JudgeProbe', {
    comment: "The consumer's probe counters decide: reopen for longer, or restore consumption.",
  })
    .when(
      sfn.Condition.or(
        counted(A.probeOwnFailures),
        sfn.Condition.and(counted(A.probeFailures), sfn.Condition.not(counted(A.probeSuccesses))),
      ),
      ways.failed,
      {
        comment: 'probes failed and none succeeded, or our own tables failed',
      },
    )
    .otherwise(ways.worked);
}

/**
 * A failed window: its cool-down and probe window count as paused time (published for the
 * alarm), and the next cool-down is doubled, up to its cap. Ends open: then disable again.
 */
export function reopenLonger(ctx: PauseContext): sfn.Chain {
  const { scope } = ctx;
  const doubled = new sfn.Pass(scope, 'DoubleCooldown', {
    comment: 'Each failed window waits twice as long before the next probe.',
    parameters: {
      value: sfn.JsonPath.mathAdd(
        sfn.JsonPath.numberAt('$.cooldownSeconds'),
        sfn.JsonPath.numberAt('$.cooldownSeconds'),
      ),
    },
    resultPath: '$.doubled',
  });
  const use = (id: string, comment: string, inputPath: string) =>
    new sfn.Pass(scope, id, { comment, inputPath, resultPath: '$.cooldownSeconds' });
  return countPausedTime(ctx)
    .next(doubled)
    .next(
      new sfn.Choice(scope, 'CapCooldown', { comment: 'The cool-down never grows past maxCooldownSeconds.' })
        .when(
          sfn.Condition.numberGreaterThanJsonPath('$.doubled.value', '$.maxCooldownSeconds'),
          use('UseMaxCooldown', 'Doubling would pass the cap: wait the cap.', '$.maxCooldownSeconds'),
          { comment: 'past the cap' },
        )
        .otherwise(use('UseDoubledCooldown', 'The doubled cool-down is within the cap.', '$.doubled.value'))
        .afterwards(),
    );
}

/** Adds the failed window's cool-down and probe window to `$.paused.seconds` and publishes it. */
function countPausedTime(ctx: PauseContext): sfn.Chain {
  const add = (id: string, comment: string, path: string) =>
    new sfn.Pass(ctx.scope, id, {
      comment,
      parameters: {
        seconds: sfn.JsonPath.mathAdd(sfn.JsonPath.numberAt('$.paused.seconds'), sfn.JsonPath.numberAt(path)),
      },
      resultPath: '$.paused',
    });
  return add('CountCoolDown', 'The cool-down kept consumption stopped.', '$.cooldownSeconds')
    .next(add('CountProbeWindow', 'A failed probe window restored nothing either.', '$.probeSeconds'))
    .next(
      ctx.steps.putMetric(
        'PublishPausedTime',
        'The paused-too-long alarm watches how long this pause has stopped consumption.',
        OPERATIONS_METRIC.pausedSeconds,
        '$.paused.seconds',
      ),
    );
}
