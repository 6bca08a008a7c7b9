/** `pq verify`: rule 8, the operator's answer for a message whose outside call may have happened. */
import { checkReason, decideVerify, type VerifyDecision, verifyOutput } from '../../lambdas/core/operator';
import { positionals } from '../arguments';
import type { Command, CommandContext } from '../command';
import { Refused, UsageError } from '../errors';
import { replayRecord } from '../replay-flow';

const DECISIONS: readonly VerifyDecision[] = ['done', 'not-done', 'discard'];

export const verify: Command = {
  name: 'verify',
  summary: 'answer an "outcome unknown" record after checking the outside system',
  options: {
    done: { type: 'boolean' },
    'not-done': { type: 'boolean' },
    discard: { type: 'boolean' },
    reason: { type: 'string' },
  },
  help: `pq verify - answer an "outcome unknown" record (status awaiting-operator)

Usage: pq verify ID --done|--not-done|--discard --reason "what you checked"

The worker died (or timed out) after calling an outside system and before recording the result:
nobody knows whether the call took effect. It is never repeated automatically. FIRST check the
outside system (pq show ID: "Outside call" names it; the body identifies the request), then:

  --done       it happened: the message counts as completed and is never replayed
  --not-done   it did not happen: the reason becomes the record's cause and the message is
               replayed ONCE (the outside call will be made again)
  --discard    neither: drop it (e.g. the request is obsolete); nothing is replayed

--reason is required and recorded with your identity in the audit and in the execution's output.
Refused while the execution has not reached its wait yet (try again in a minute), once it was
decided, and for --not-done while replay is frozen.`,
  async run(context: CommandContext) {
    const [id] = positionals(context.args, ['ID']);
    const chosen = DECISIONS.filter((decision) => context.args.flag(decision));
    if (chosen.length !== 1) throw new UsageError('give exactly one of --done, --not-done, --discard');
    const decision = chosen[0] as VerifyDecision;
    const reason = context.args.string('reason');
    const missingReason = checkReason(reason);
    if (missingReason) throw new Refused(missingReason.reason);
    const why = (reason ?? '').trim();

    const deployment = await context.deployment();
    const record = await deployment.records.get(id ?? '');
    if (record === undefined) throw new Refused(`no quarantine record ${id} (pq list shows the ids)`);
    const [token, control] = await Promise.all([
      deployment.records.taskTokenOf(record.id),
      deployment.control.snapshot(),
    ]);
    const plan = decideVerify(record, {
      decision,
      hasTaskToken: token !== undefined,
      replayFrozen: control.replayFrozen,
    });
    if (plan.kind === 'refuse') throw new Refused(`record ${record.id}: ${plan.reason}`);

    const actor = await context.actor(why);
    let replayedAs: string | undefined;
    if (plan.replay) {
      const caused = await deployment.records.setCause(record.id, why, {
        who: actor.who,
        when: actor.now,
        why: 'verify --not-done: the outside call did not happen',
      });
      ({ messageId: replayedAs } = await replayRecord(deployment, caused, 'verify', actor));
    }
    // The token is used only here; the adapter's errors never quote it. The state machine writes
    // the decision's audit entry (these who, why and at) when it moves the record on.
    try {
      await deployment.operations.sendDecision(
        token as string,
        verifyOutput(decision, { who: actor.who, why, at: actor.now }),
      );
    } catch (error) {
      if (replayedAs === undefined) throw error;
      throw new Error(
        `replayed ${record.id} as message ${replayedAs}, but the decision was not delivered ` +
          `(${(error as Error).message}): run the same verify --not-done again to deliver it (it will not replay twice)`,
      );
    }
    return {
      json: { id: record.id, decision, ...(replayedAs === undefined ? {} : { replayedAs }) },
      text:
        `Answered ${record.id}: ${decision}.` +
        (replayedAs === undefined ? '' : ` Replayed once as message ${replayedAs}.`) +
        ' The state machine records the decision and moves the record on (pq show ID).\n',
    };
  },
};
