/** `pq replay`: send quarantined messages back to the source queue, with a fresh budget. */
import type { QuarantineRecord } from '../../lambdas/adapters/quarantine-writer';
import { decideReplay } from '../../lambdas/core/operator';
import { positionals } from '../arguments';
import type { Command, CommandContext } from '../command';
import type { Deployment } from '../deployment';
import { Refused } from '../errors';
import { table } from '../output';
import { type ReplayReceipt, replayRecord } from '../replay-flow';
import { unresolvedInGroup } from './group-members';

export const replay: Command = {
  name: 'replay',
  summary: 'send a record (or a failure group) back to the source queue, fresh attempt budget',
  options: { group: { type: 'string' }, reason: { type: 'string' } },
  help: `pq replay - send quarantined messages back to the source queue

Usage: pq replay ID [--reason "why now"]
       pq replay --group GROUP [--reason "why now"]

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
skipped and reported (exit 2).`,
  async run(context: CommandContext) {
    const group = context.args.string('group');
    const [id] = group === undefined ? positionals(context.args, ['ID']) : positionals(context.args, []);
    const deployment = await context.deployment();
    const { replayFrozen } = await deployment.control.snapshot();
    if (group === undefined) {
      const record = await deployment.records.get(id ?? '');
      if (record === undefined) throw new Refused(`no quarantine record ${id} (pq list shows the ids)`);
      const receipt = await replayOne(context, deployment, record, replayFrozen);
      if ('refused' in receipt) throw new Refused(`record ${record.id}: ${receipt.refused}`);
      return { json: receipt, text: `${describeReceipt(receipt)}\n` };
    }
    return replayGroup(context, deployment, await unresolvedInGroup(deployment, group), replayFrozen);
  },
};

type Outcome = ReplayReceipt | { readonly id: string; readonly refused: string };

async function replayOne(
  context: CommandContext,
  deployment: Deployment,
  record: QuarantineRecord,
  replayFrozen: boolean,
): Promise<Outcome> {
  const decision = decideReplay(record, { replayFrozen });
  if (decision.kind === 'refuse') return { id: record.id, refused: decision.reason };
  const actor = await context.actor(context.args.string('reason') ?? `cause: ${record.cause}`);
  return replayRecord(deployment, record, 'replay', actor);
}

async function replayGroup(
  context: CommandContext,
  deployment: Deployment,
  members: readonly QuarantineRecord[],
  replayFrozen: boolean,
) {
  if (replayFrozen) throw new Refused('replay is frozen for this pipeline (see status; unfreeze first)');
  const outcomes: Outcome[] = [];
  for (const record of members) {
    try {
      outcomes.push(await replayOne(context, deployment, record, replayFrozen));
    } catch (error) {
      const done = outcomes.filter((outcome) => !('refused' in outcome)).length;
      throw new Error(
        `replayed ${done} of ${members.length}, then ${record.id} failed: ${(error as Error).message}`,
      );
    }
  }
  const refused = outcomes.filter((outcome) => 'refused' in outcome).length;
  const rows = outcomes.map((outcome) =>
    'refused' in outcome
      ? [outcome.id, 'REFUSED', outcome.refused]
      : [outcome.id, 'replayed', `as message ${outcome.messageId}`],
  );
  return {
    json: { outcomes },
    text: table(['ID', 'RESULT', 'DETAIL'], rows),
    ...(refused > 0 ? { refusal: `${refused} of ${outcomes.length} records refused (see the table)` } : {}),
  };
}

function describeReceipt(receipt: ReplayReceipt): string {
  return `Replayed ${receipt.id} as message ${receipt.messageId} (ledger generation ${receipt.generation}: a fresh attempt budget). Status: replayed.`;
}
