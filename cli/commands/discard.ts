/** `pq discard`: close open records without replaying them; their content stays as evidence. */
import { QUARANTINE_STATUS } from '../../contract/quarantine';
import { DISCARD_AUDIT, decideDiscard } from '../../lambdas/core/operator';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import { QuarantineStatusConflictError } from '../../lambdas/ports/errors';
import { positionals, requiredReason } from '../arguments';
import type { Command, CommandContext } from '../command';
import type { Deployment } from '../deployment';
import { NotFound, Refused } from '../errors';
import { actOnGroup, isRefusal, type MemberRefusal, unresolvedInGroup } from './group-members';

interface Discarded {
  readonly id: string;
  readonly status: string;
}

export const discard: Command = {
  name: 'discard',
  options: { group: { type: 'string' }, reason: { type: 'string' } },
  help: `pq discard - close open records without replaying them

Usage: pq discard ID --reason "why it must not run"
       pq discard --group GROUP --reason "why"      (every open record of the group)

For a message that must never run: obsolete, superseded, a test message, handled by hand. The
record becomes resolved, with an audit entry (you, now, discard, the reason). Nothing is sent
and nothing is deleted: pq show ID still shows the evidence and the exact body.

Refused (exit 2, nothing changes) without --reason, and for a record that is not open:
  - awaiting-operator (outcome unknown): its execution waits for pq verify ID --discard;
  - replaying, replayed or resolved: it is no longer waiting for a decision.
The write is conditioned on the record still being open: if another operator moved it on since
it was read, it is refused, not overwritten.

--group discards every open record of the group (pq list --group); its awaiting-operator
records are reported as refused (exit 2).`,
  async run(context: CommandContext) {
    const group = context.args.string('group');
    const [id] = group === undefined ? positionals(context.args, ['ID']) : positionals(context.args, []);
    const why = requiredReason(context.args);
    const deployment = await context.deployment();
    if (group !== undefined) {
      return actOnGroup(
        await unresolvedInGroup(deployment, group),
        { verb: 'discarded', detail: (done: Discarded) => `${done.status}, content kept` },
        (record) => discardOne(context, deployment, record, why),
        context.progress('discarded'),
      );
    }
    const record = await deployment.records.get(id ?? '');
    if (record === undefined) throw new NotFound(`no quarantine record ${id} (pq list shows the ids)`);
    const outcome = await discardOne(context, deployment, record, why);
    if (isRefusal(outcome)) throw new Refused(`record ${record.id}: ${outcome.refused}`);
    return {
      json: outcome,
      text: `Discarded ${record.id}: ${outcome.status}, nothing replayed. Its content stays in the quarantine bucket (pq show ${record.id}).\n`,
    };
  },
};

async function discardOne(
  context: CommandContext,
  deployment: Deployment,
  record: QuarantineRecord,
  why: string,
): Promise<Discarded | MemberRefusal> {
  const decision = decideDiscard(record);
  if (decision.kind === 'refuse') return { id: record.id, refused: decision.reason };
  const actor = await context.actor(why);
  try {
    const resolved = await deployment.records.setStatus(
      record.id,
      QUARANTINE_STATUS.resolved,
      { who: actor.who, when: actor.now, why },
      { expected: [QUARANTINE_STATUS.open], what: DISCARD_AUDIT },
    );
    return { id: resolved.id, status: resolved.status };
  } catch (error) {
    if (error instanceof QuarantineStatusConflictError) {
      return { id: record.id, refused: `another operator moved it on first (${error.message})` };
    }
    throw error;
  }
}
