/**
 * Rules 7 and 11: pause consumption. Disable the mapping, record the breaker open, alert; a stop
 * waits for the operator, an outage cools down and probes half-open until a window succeeds.
 * The operator's `resume` or `hold` is read at each loop point, and no way out restores the
 * mapping while a stop request no operator lifted is in force. The steps are in pause.ts (into
 * the pause), pause-probe.ts (half-open probing) and pause-resume.ts (the ways out).
 */

import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { EXECUTION_INPUT_KIND } from '../../contract/executions';
import { isAtLeastOne, isFlag, isNumber, isText, kindIs } from './conditions';
import { FailureExit } from './failure';
import {
  disableMapping,
  holdConsumer,
  notifyPaused,
  pollUntilDisabled,
  readOriginalSettings,
  recordOpen,
  rememberMappingSettings,
  startPauseClock,
  takeStopAndReasonFromBreaker,
} from './pause';
import type { PauseContext } from './pause-context';
import { coolDown, halfOpen, judgeProbe, PROBE_COUNTERS, probeWindow, reopenLonger } from './pause-probe';
import { awaitOperatorResume, OperatorCheckpoints, restoreAndClose, StopGate } from './pause-resume';
import { FAILURE } from './protocol';
import { type EventSourceMappingRef, PauseSteps } from './steps';
import { type OperationsMachineProps, operationsWorkflow } from './workflow';

/** The timings of a pause, in seconds; each may also come in the execution input. */
export interface PauseTimings {
  readonly cooldownSeconds: number;
  readonly maxCooldownSeconds: number;
  readonly probeSeconds: number;
  readonly pollSeconds: number;
}

export interface PauseStateMachineProps extends OperationsMachineProps {
  /** The consumer's event source mapping: the only one this machine disables and restores. */
  readonly eventSourceMapping: EventSourceMappingRef;
  /** Holds the breaker item the consumer trips and this machine drives back. */
  readonly controlTable: dynamodb.ITable;
  /** Pause timings for a pause input that does not carry them (the input's own win). */
  readonly pauseDefaults: PauseTimings;
}

/** Runs `pause-<epoch>` executions, input `{ kind: "pause", reason, epoch, stop, ...timings }`. */
export class PauseStateMachine extends Construct {
  public readonly stateMachine: sfn.StateMachine;

  constructor(scope: Construct, id: string, props: PauseStateMachineProps) {
    super(scope, id);
    const steps = new PauseSteps(this, props, props.eventSourceMapping);
    const ctx: PauseContext = {
      scope: this,
      steps,
      controlTable: props.controlTable,
      operatorHeartbeat: props.operatorHeartbeat,
      operatorTimeout: props.operatorTimeout,
      failure: new FailureExit(this, steps, {
        notifyId: 'NotifyPauseFailed',
        failId: 'PauseFailed',
        subject: 'poison-quarantine: a pause needs an operator',
        message: {
          event: 'pause-failed',
          reason: sfn.JsonPath.stringAt('$.reason'),
          epoch: sfn.JsonPath.numberAt('$.epoch'),
        },
        taskError: FAILURE.pauseFailed,
        advice: 'the mapping may be left disabled: check it, then resume with the CLI.',
      }),
      superseded: new sfn.Succeed(this, 'Superseded', {
        comment: 'A newer pause (a higher epoch) owns the breaker and the mapping.',
      }),
    };
    this.stateMachine = operationsWorkflow(this, {
      ...props,
      comment: 'Rules 7 and 11: a paused consumer, driven back to consuming by probes or by an operator.',
      definition: acceptInput(ctx, props.pauseDefaults, pauseEpisode(ctx)),
    });
  }
}

/**
 * One pause episode, top-down. The loops return to states made first: `disable` (after a hold
 * or a failed probe window) and `resume` (an operator's resume, or a window that worked).
 */
function pauseEpisode(ctx: PauseContext): sfn.IChainable {
  const disable = disableMapping(ctx);
  // Every way out, and every probe, passes a stop gate: a stop request in force waits for the
  // operator instead.
  const restoreGate = new StopGate(ctx, 'BeforeRestore', restoreAndClose(ctx));
  const resume = restoreGate.entry;
  const awaitOperator = awaitOperatorResume(ctx, resume);
  restoreGate.whenInForce(awaitOperator);
  const checkpoint = new OperatorCheckpoints(ctx, { resume, hold: holdConsumer(ctx).next(disable) });
  const probe = probeOnce(ctx, checkpoint, { disable, resume });
  probe.whenInForce(awaitOperator);

  return startPauseClock(ctx)
    .next(takeStopAndReasonFromBreaker(ctx))
    .next(rememberMappingSettings(ctx))
    .next(disable)
    .next(pollUntilDisabled(ctx))
    .next(recordOpen(ctx))
    .next(readOriginalSettings(ctx))
    .next(notifyPaused(ctx))
    .next(
      new sfn.Choice(ctx.scope, 'StopOrCoolDown', {
        comment: 'A stop (rule 11) or a hold waits for a person; an outage (rule 7) probes by itself.',
      })
        .when(sfn.Condition.booleanEquals('$.stop', true), awaitOperator, {
          comment: 'a stop or a hold',
        })
        .otherwise(
          checkpoint.at('AfterDisable', coolDown(ctx).next(checkpoint.at('AfterCoolDown', probe.entry))),
        ),
    );
}

/** One half-open window behind its stop gate, then its verdict: disable again for longer, or resume. */
function probeOnce(
  ctx: PauseContext,
  checkpoint: OperatorCheckpoints,
  loops: { readonly disable: sfn.IChainable; readonly resume: sfn.IChainable },
): StopGate {
  const verdict = judgeProbe(ctx, { failed: reopenLonger(ctx).next(loops.disable), worked: loops.resume });
  const window = halfOpen(ctx)
    .next(probeWindow(ctx))
    .next(checkpoint.at('AfterProbe', verdict, PROBE_COUNTERS));
  return new StopGate(ctx, 'BeforeProbe', window);
}

/**
 * Accepts pause inputs only. The construct's timings fill in what the input leaves out (the
 * input's own win, so tests and rehearsals scale them down); anything invalid is refused
 * before anything is read or changed.
 */
function acceptInput(ctx: PauseContext, defaults: PauseTimings, pause: sfn.IChainable): sfn.Choice {
  const { scope } = ctx;
  const reject = new sfn.Fail(scope, 'RejectInput', {
    comment: 'Nothing was read or changed: a pause needs its epoch, and timings that can end.',
    error: FAILURE.invalidInput,
    cause:
      'Expected { kind: "pause", reason, epoch, stop, and optionally cooldownSeconds >= 1, ' +
      'maxCooldownSeconds >= cooldownSeconds, probeSeconds >= 1, pollSeconds >= 1 }.',
  });
  const valid = sfn.Condition.and(
    isText('$.reason'),
    isNumber('$.epoch'),
    isFlag('$.stop'),
    isAtLeastOne('$.cooldownSeconds'),
    isNumber('$.maxCooldownSeconds'),
    sfn.Condition.numberGreaterThanEqualsJsonPath('$.maxCooldownSeconds', '$.cooldownSeconds'),
    isAtLeastOne('$.probeSeconds'),
    isAtLeastOne('$.pollSeconds'),
  );
  const withDefaults = new sfn.Pass(scope, 'PauseDefaults', {
    comment: "The construct's timings, for those the input leaves out.",
    result: sfn.Result.fromObject({ ...defaults }),
    resultPath: '$.defaults',
  })
    .next(
      new sfn.Pass(scope, 'ApplyPauseDefaults', {
        comment: "The input's own timings win over the construct's.",
        parameters: {
          input: sfn.JsonPath.jsonMerge(
            sfn.JsonPath.objectAt('$.defaults'),
            sfn.JsonPath.objectAt('$$.Execution.Input'),
          ),
        },
        outputPath: '$.input',
      }),
    )
    .next(
      new sfn.Choice(scope, 'CheckPauseInput', {
        comment: 'Timings that are missing or cannot end are refused.',
      })
        .when(valid, pause, { comment: 'a valid pause' })
        .otherwise(reject),
    );
  return new sfn.Choice(scope, 'IsPauseInput', {
    comment: 'This machine runs pauses only; anything else is refused untouched.',
  })
    .when(kindIs(EXECUTION_INPUT_KIND.pause), withDefaults, { comment: 'a pause input' })
    .otherwise(reject);
}
