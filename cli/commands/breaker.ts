/**
 * `pq resume` / `pq hold`: the operator's answer to a paused consumer (rules 7 and 11). The
 * answer is written on the episode's answer item in the operator partition (`action`, with an
 * audit entry; a resume also lifts every stop request made so far) and, when the pause
 * execution waits for it, sent to that execution.
 */

import { BREAKER_STATE, type BreakerAction, OPERATOR_ACTION } from '../../contract/control';
import { OPERATOR_PAUSE_RUNS } from '../../lambdas/adapters/operations';
import type { BreakerReading } from '../../lambdas/core/breaker';
import { breakerOutput, decideBreakerAction } from '../../lambdas/core/operator';
import { BreakerNotPausedError, TaskTokenRejectedError } from '../../lambdas/ports/errors';
import { positionals, requiredReason } from '../arguments';
import type { Command, CommandContext } from '../command';
import type { Deployment } from '../deployment';
import { Refused } from '../errors';
import { auditEntry } from '../replay-flow';

const HELP: Readonly<Record<BreakerAction, string>> = {
  [OPERATOR_ACTION.resume]: `pq resume - let a paused consumer consume again

Usage: pq resume --reason "why it is safe now"

The consumer was paused (pq status: breaker open) because different messages failed together
(an outage of something they share) or a stop condition hit (the quarantine could not be
written, or too many messages were being quarantined). Check that the cause is gone first.
A stop ("STOP: no automatic resume" or "STOP REQUESTED" in pq status) waits for exactly
this: a resume lifts every stop requested until then.`,
  [OPERATOR_ACTION.hold]: `pq hold - keep a paused consumer paused

Usage: pq hold --reason "why"

The pause execution stops probing (no automatic resume) and waits for pq resume. Use it while a
dependency is known to be down, or while you investigate.`,
};

function breakerCommand(action: BreakerAction): Command {
  return {
    name: action,
    options: { reason: { type: 'string' } },
    help: HELP[action],
    async run(context: CommandContext) {
      positionals(context.args, []);
      const why = requiredReason(context.args);
      const deployment = await context.deployment();
      const { breaker } = await deployment.controlItems.read();
      const decision = decideBreakerAction(breaker.breaker, action);
      if (decision.kind === 'refuse') throw new Refused(decision.reason);
      const actor = await context.actor(why);
      // Action first, token second: the pause execution refuses to start a wait once it sees a
      // resume, so a resume cannot slip between its read and its wait.
      await refusedIfClosed(deployment.controlItems.setOperatorAction(action, auditEntry(actor, action)));
      const token = await deployment.controlItems.breakerTaskToken();
      const answered = token !== undefined && (await answer(deployment, token, breakerOutput(action, actor)));
      // Nobody waited: make sure a run of the pause reads the action (issue 8, defect 1: a trip
      // whose pause never started, or a run that failed, would leave the action unread for good).
      const started = answered ? undefined : await ensurePauseRun(deployment, breaker.breaker);
      return {
        json: { action, answeredWaitingExecution: answered, startedExecution: started ?? null },
        text: `Recorded ${action} on the breaker. ${
          answered
            ? 'The waiting pause execution has been answered.'
            : started
              ? `No pause execution waited for it: started ${started}, which carries it out.`
              : 'No pause execution waits for an answer right now: its running one reads the action at its next checkpoint.'
        }\n`,
      };
    },
  };
}

/**
 * A token the execution no longer waits on (it moved on since we read it) is not a failure: the
 * action is recorded, and the execution reads it at its next checkpoint.
 */
async function answer(deployment: Deployment, token: string, output: object): Promise<boolean> {
  try {
    await deployment.operations.sendDecision(token, output);
    return true;
  } catch (error) {
    if (error instanceof TaskTokenRejectedError) return false;
    throw error;
  }
}

export const resume = breakerCommand(OPERATOR_ACTION.resume);
export const hold = breakerCommand(OPERATOR_ACTION.hold);

/**
 * Starts the next run of the breaker's pause unless one is running; its name, if started. Past
 * the runs the consumer gives up after: a person looked (issue 8, case
 * pq-resume-refused-after-five-failed-runs).
 */
export async function ensurePauseRun(
  deployment: Deployment,
  breaker: BreakerReading | undefined,
): Promise<string | undefined> {
  // A closed breaker has no pause, and an unreadable one no episode a run could drive.
  if (breaker === undefined || breaker.state === BREAKER_STATE.closed || breaker.state === 'unreadable')
    return undefined;
  const pause = { epoch: breaker.epoch, reason: breaker.reason, stop: breaker.stop };
  const outcome = await deployment.operations.startPause(
    { ...pause, ...deployment.config.breakerTimings },
    OPERATOR_PAUSE_RUNS,
  );
  return outcome.started ? outcome.executionArn.split(':').at(-1) : undefined;
}

/** The breaker closed before the answer was recorded: a refusal (nothing changed), not a failure. */
async function refusedIfClosed(write: Promise<void>): Promise<void> {
  try {
    await write;
  } catch (error) {
    if (error instanceof BreakerNotPausedError) throw new Refused(error.message);
    throw error;
  }
}
