/**
 * `pq reset-breaker`: the repair of a breaker item nobody can read (issue 8, defect 5). The item
 * becomes a stop of a new episode, with an audit entry (core/breaker-reset.ts), in one write
 * conditioned on the item being as read; then a run of that episode's pause is started, which
 * disables the mapping and waits for `pq resume`, as for any stop.
 */
import type { OpenBreaker } from '../../lambdas/core/breaker';
import { BREAKER_RESET_AUDIT, type BreakerReset, decideBreakerReset } from '../../lambdas/core/breaker-reset';
import { positionals, requiredReason } from '../arguments';
import type { Command, CommandContext } from '../command';
import type { Deployment } from '../deployment';
import { Refused } from '../errors';
import { auditEntry } from '../replay-flow';
import { ensurePauseRun } from './breaker';

export const resetBreaker: Command = {
  name: 'reset-breaker',
  options: { reason: { type: 'string' } },
  help: `pq reset-breaker - repair a breaker item that cannot be read

Usage: pq reset-breaker --reason "why"

pq status shows "Breaker: UNREADABLE" when the control table's breaker item holds what no reader
knows (an edit by hand, a bug): the consumer then runs nothing, holds every message (one on its
last receive is quarantined as receive-limit, unrun) and the BreakerUnreadable alarm fires.

The reset replaces the item with a stop of a new episode (reason breaker-reset), records who,
when and why on it, and starts its pause run, which disables the mapping and waits. Find out
how the item was garbled, then: pq resume --reason "...".

Refused when the item can be read (use pq resume or pq hold), or when it changed since pq read
it (a consumer or the pause run wrote it: look at pq status again).`,
  async run(context: CommandContext) {
    positionals(context.args, []);
    const why = requiredReason(context.args);
    const deployment = await context.deployment();
    const read = await deployment.control.breakerItem();
    if (read === undefined) throw new Refused('there is no breaker item (it never opened): nothing to reset');
    const cooldownSeconds = deployment.config.policy.breakerCooldownSeconds;
    const decision = decideBreakerReset(read.reading, { now: context.now(), cooldownSeconds });
    if (decision.kind === 'refuse') throw new Refused(decision.reason);
    const actor = await context.actor(why);
    const { reset } = await deployment.control.resetUnreadableBreaker(
      read,
      decision.breaker,
      auditEntry(actor, BREAKER_RESET_AUDIT),
    );
    if (!reset) {
      throw new Refused('the breaker item changed since it was read: look at pq status again');
    }
    const started = await startPauseRun(deployment, decision.breaker);
    return {
      json: { reset: true, was: read.reading, breaker: decision.breaker, startedExecution: started ?? null },
      text: resetText(decision, started),
    };
  },
};

/** The item is repaired whatever happens next: a failed start says so, and how to start it. */
async function startPauseRun(deployment: Deployment, breaker: OpenBreaker): Promise<string | undefined> {
  try {
    return await ensurePauseRun(deployment, breaker);
  } catch (error) {
    throw new Error(
      `the breaker WAS reset to a stop of epoch ${breaker.epoch}, but its pause run could not be started ` +
        `(${(error as Error).message}): pq resume --reason "..." starts it`,
      { cause: error },
    );
  }
}

function resetText({ breaker, problem }: BreakerReset, started: string | undefined): string {
  const run = started
    ? `started ${started}, which disables the mapping and waits`
    : `a run of its pause exists already (pq status shows whether it drives the breaker)`;
  return (
    `Reset the unreadable breaker item (${problem}) to a stop of epoch ${breaker.epoch}, reason ${breaker.reason}; ${run}.\n` +
    'Find out how the item was garbled, then let the consumer run again: pq resume --reason "...".\n'
  );
}
