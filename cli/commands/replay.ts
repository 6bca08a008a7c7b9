/** `pq replay`: send quarantined messages back to the source queue, with a fresh budget. */

import { decideReplay, decideResume, REPLAY_RUNNING_AT_MOST_MINUTES } from '../../lambdas/core/operator';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import { positionals, requiredReason } from '../arguments';
import type { Command, CommandContext, CommandResult } from '../command';
import type { Deployment } from '../deployment';
import { Refused, UsageError } from '../errors';
import { type ReplayReceipt, type ResumeReceipt, replayRecord, resumeReplay } from '../replay-flow';
import { actOnGroup, isRefusal, type MemberRefusal, unresolvedInGroup } from './group-members';

export const replay: Command = {
  name: 'replay',
  summary: 'send a record (or a failure group) back to the source queue, fresh attempt budget',
  options: { group: { type: 'string' }, reason: { type: 'string' }, resume: { type: 'boolean' } },
  help: `pq replay - send quarantined messages back to the source queue

Usage: pq replay ID [--reason "why now"]
       pq replay --group GROUP [--reason "why now"]
       pq replay ID --resume --reason "why"      (a replay that broke half-way)

Replay is refused (exit 2, nothing changes) when:
  - no cause is recorded for the record: pq cause ID "..." first (rule 12);
  - replay is frozen: pq status shows who froze it and why (pq unfreeze);
  - the record is awaiting-operator (outcome unknown): check the outside system and use
    pq verify ID --done | --not-done | --discard instead;
  - the record is not open (already replayed, resolved, or being replayed by someone else).

What it does: marks the record "replaying" (so two people cannot replay it twice), gives the
message a fresh attempt budget in the ledger, sends the exact body with its message attributes
(and FIFO group) and the attribute pq-replay-of=ID, then marks the record "replayed" with an
audit entry (you, now, --reason or the recorded cause). If the fix is not deployed yet, the
message will fail and be quarantined again under a new id.

--group replays every open record of the group (pq list --group); records without a cause are
skipped and reported (exit 2).

--resume settles a record that a broken replay (killed, or cut off) left "replaying", once
that replay started ${REPLAY_RUNNING_AT_MOST_MINUTES} minutes ago or more. A send that timed out may or may not
have gone out; resume never sends, and never assumes it did: the attempts ledger decides.
  - the consumer picked the replay up: the record becomes "replayed";
  - otherwise: the record is open again, and pq replay ID sends it. If the ledger was already
    reset, it is put back first, so a copy the broken replay may have sent, still waiting in
    the queue, is acknowledged without running: only your next replay runs.
Either way the audit records you, the reason and what the ledger showed.`,
  async run(context: CommandContext) {
    const group = context.args.string('group');
    if (context.args.flag('resume')) {
      if (group !== undefined) throw new UsageError('--resume takes one ID, not --group');
      return resume(context);
    }
    const [id] = group === undefined ? positionals(context.args, ['ID']) : positionals(context.args, []);
    const deployment = await context.deployment();
    const { replayFrozen } = await deployment.control.snapshot();
    if (group === undefined) {
      const record = await deployment.records.get(id ?? '');
      if (record === undefined) throw new Refused(`no quarantine record ${id} (pq list shows the ids)`);
      const receipt = await replayOne(context, deployment, record, replayFrozen);
      if (isRefusal(receipt)) throw new Refused(`record ${record.id}: ${receipt.refused}`);
      return { json: receipt, text: `${describeReceipt(receipt)}\n` };
    }
    if (replayFrozen) throw new Refused('replay is frozen for this pipeline (see status; unfreeze first)');
    return actOnGroup(
      await unresolvedInGroup(deployment, group),
      { verb: 'replayed', detail: (done: ReplayReceipt) => `as message ${done.messageId}` },
      (record) => replayOne(context, deployment, record, replayFrozen),
    );
  },
};

async function replayOne(
  context: CommandContext,
  deployment: Deployment,
  record: QuarantineRecord,
  replayFrozen: boolean,
): Promise<ReplayReceipt | MemberRefusal> {
  const decision = decideReplay(record, { replayFrozen });
  if (decision.kind === 'refuse') return { id: record.id, refused: decision.reason };
  const actor = await context.actor(context.args.string('reason') ?? `cause: ${record.cause}`);
  return replayRecord(deployment, record, 'replay', actor);
}

async function resume(context: CommandContext): Promise<CommandResult> {
  const [id] = positionals(context.args, ['ID']);
  const why = requiredReason(context.args);
  const deployment = await context.deployment();
  const record = await deployment.records.get(id ?? '');
  if (record === undefined) throw new Refused(`no quarantine record ${id} (pq list shows the ids)`);
  const ledger = await deployment.ledger.get(record.messageKey);
  const plan = decideResume(record, ledger, context.now());
  if (plan.kind === 'refuse') throw new Refused(`record ${record.id}: ${plan.reason}`);
  const actor = await context.actor(why);
  const receipt = await resumeReplay(deployment, record, ledger, plan, actor);
  return { json: receipt, text: `${describeResume(receipt)}\n` };
}

function describeReceipt(receipt: ReplayReceipt): string {
  return `Replayed ${receipt.id} as message ${receipt.messageId} (ledger generation ${receipt.generation}: a fresh attempt budget). Status: replayed.`;
}

function describeResume({ id, resumed, evidence }: ResumeReceipt): string {
  return resumed === 'finish'
    ? `Recorded ${id} as replayed: ${evidence}. Status: replayed.`
    : `Released ${id}: ${evidence}. Status: open (pq replay ${id} sends it again).`;
}
