/** `pq verify`: rule 8, the operator's answer for a message whose outside call may have happened. */
import {
  QUARANTINE_STATUS,
  VERIFIED_STATUS,
  VERIFY_DECISION,
  type VerifyDecision,
} from '../../contract/quarantine';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import { decideVerify, verifyOutput, verifyWaitOf } from '../../lambdas/core/verify';
import { LedgerStateMismatchError, QuarantineStatusConflictError } from '../../lambdas/ports/errors';
import { positionals, requiredReason } from '../arguments';
import type { Command, CommandContext, CommandResult } from '../command';
import type { Deployment } from '../deployment';
import { NotFound, Refused, UsageError } from '../errors';
import { type Actor, replayMessage, replayRecord } from '../replay-flow';

const DECISIONS: readonly VerifyDecision[] = Object.values(VERIFY_DECISION);

export const verify: Command = {
  name: 'verify',
  options: {
    // One flag per decision, named as the decision: `run` reads them so.
    [VERIFY_DECISION.done]: { type: 'boolean' },
    [VERIFY_DECISION.notDone]: { type: 'boolean' },
    [VERIFY_DECISION.discard]: { type: 'boolean' },
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
If the record's execution is gone (it failed, was stopped or timed out, or never started), the
decision is recorded on the record itself, with the same checks. Refused while the execution runs
but has not reached its wait yet (try again in a minute), once it was decided, and for
--not-done while replay is frozen.`,
  async run(context: CommandContext) {
    const [id] = positionals(context.args, ['ID']);
    const chosen = DECISIONS.filter((decision) => context.args.flag(decision));
    if (chosen.length !== 1) throw new UsageError('give exactly one of --done, --not-done, --discard');
    const decision = chosen[0] as VerifyDecision;
    const why = requiredReason(context.args);

    const deployment = await context.deployment();
    try {
      return await answer(context, deployment, { id: id ?? '', decision, why });
    } finally {
      // A Kafka consumer's --not-done produced the replay: its connection is closed.
      await deployment.kafka?.close();
    }
  },
};

async function answer(
  context: CommandContext,
  deployment: Deployment,
  { id, decision, why }: { readonly id: string; readonly decision: VerifyDecision; readonly why: string },
): Promise<CommandResult> {
  const record = await deployment.records.get(id);
  if (record === undefined) throw new NotFound(`no quarantine record ${id} (pq list shows the ids)`);
  const [token, control, execution] = await Promise.all([
    deployment.records.taskTokenOf(record.id),
    deployment.control.snapshot(),
    deployment.operations.outcomeUnknownStatus(record.id),
  ]);
  const plan = decideVerify(record, {
    decision,
    wait: verifyWaitOf(execution, token !== undefined),
    replayFrozen: control.replayFrozen,
  });
  if (plan.kind === 'refuse') throw new Refused(`record ${record.id}: ${plan.reason}`);

  // A message SQS would refuse is refused before the cause is set: nothing changes.
  const message = plan.replay ? await replayMessage(deployment, record) : undefined;
  if (message !== undefined && 'refused' in message)
    throw new Refused(`record ${record.id}: ${message.refused}`);
  const actor = await context.actor(why);
  let replayedAs: string | undefined;
  if (message !== undefined) {
    const caused = await deployment.records.setCause(record.id, why, {
      who: actor.who,
      when: actor.now,
      why: 'verify --not-done: the outside call did not happen',
    });
    ({ messageId: replayedAs } = await replayRecord(deployment, caused, message, 'verify', actor));
  }
  try {
    if (plan.via === 'execution') {
      // The token is used only here; the adapter's errors never quote it. The state machine
      // writes the decision's audit entry (these who, why and at) when it moves the record on.
      await deployment.operations.sendDecision(
        token as string,
        verifyOutput(decision, { who: actor.who, why, at: actor.now }),
      );
    } else {
      await applyToRecord(deployment, record, decision, actor);
    }
  } catch (error) {
    if (replayedAs === undefined) throw error;
    throw new Error(
      `replayed ${record.id} as message ${replayedAs}, but the decision was not recorded ` +
        `(${(error as Error).message}): run the same verify --not-done again to record it (it will not replay twice)`,
    );
  }
  const moved =
    plan.via === 'execution'
      ? ' The state machine records the decision and moves the record on (pq show ID).'
      : ` No execution waits for it any more: the decision was recorded on the record itself (${VERIFIED_STATUS[decision]}).`;
  return {
    json: { id: record.id, decision, via: plan.via, ...(replayedAs === undefined ? {} : { replayedAs }) },
    text:
      `Answered ${record.id}: ${decision}.` +
      (replayedAs === undefined ? '' : ` Replayed once as message ${replayedAs}.`) +
      `${moved}\n`,
  };
}

/**
 * The state machine's writes for an answer, made here because its execution is gone (never
 * started, failed, stopped, timed out): `done` completes the ledger item that still holds this
 * quarantine, and the record leaves `awaiting-operator` once, with the decision's audit entry.
 */
async function applyToRecord(
  deployment: Deployment,
  record: QuarantineRecord,
  decision: VerifyDecision,
  actor: Actor,
): Promise<void> {
  try {
    if (decision === VERIFY_DECISION.done)
      await deployment.ledger.completeQuarantined(record.messageKey, record.id, actor.now);
    await deployment.records.setStatus(
      record.id,
      VERIFIED_STATUS[decision],
      { who: actor.who, when: actor.now, why: actor.why },
      { expected: [QUARANTINE_STATUS.awaitingOperator], what: decision, closeWait: true },
    );
  } catch (error) {
    if (error instanceof LedgerStateMismatchError)
      throw new Refused(
        `record ${record.id}: the attempts ledger no longer holds this quarantine (${error.message})`,
      );
    if (error instanceof QuarantineStatusConflictError)
      throw new Refused(`record ${record.id}: another operator answered it first (${error.message})`);
    throw error;
  }
}
