/** `pq cause`: rule 12, the cause an operator found; replay is refused until one is recorded. */

import { checkCause } from '../../lambdas/core/operator';
import { QuarantineNotFoundError } from '../../lambdas/ports/errors';
import { positionals } from '../arguments';
import type { Command, CommandContext } from '../command';
import type { Deployment } from '../deployment';
import { NotFound, Refused } from '../errors';
import { table } from '../output';
import type { Actor } from '../replay-flow';
import { unresolvedInGroup } from './group-members';

export const cause: Command = {
  name: 'cause',
  options: { group: { type: 'string' } },
  help: `pq cause - record the cause of a quarantine (rule 12: no replay without one)

Usage: pq cause ID "text"
       pq cause --group GROUP "text"      (every open or awaiting-operator record of the group)

Write what you found, for the next person: "order schema v3 not deployed to consumer",
"customer 42 has a malformed address (ticket OPS-123)". The cause and an audit entry (you, now)
are written on the record. A cause can be corrected by running pq cause again.

GROUP is the short id from pq list --group (or the full error signature).

Next: pq replay ID (or pq replay --group GROUP)`,
  async run(context: CommandContext) {
    const group = context.args.string('group');
    const [id, text = ''] =
      group === undefined
        ? positionals(context.args, ['ID', '"text"'])
        : [undefined, ...positionals(context.args, ['"text"'])];
    const refusal = checkCause(text);
    if (refusal) throw new Refused(refusal.reason);
    const causeText = text.trim();
    const deployment = await context.deployment();
    const ids =
      id === undefined ? (await unresolvedInGroup(deployment, group ?? '')).map((record) => record.id) : [id];
    const actor = await context.actor('identified the cause');
    const updated = [];
    for (const recordId of ids) {
      updated.push(await setCause(deployment, recordId, causeText, actor));
    }
    return {
      json: {
        cause: causeText,
        records: updated.map((record) => ({ id: record.id, status: record.status })),
      },
      text: `Cause recorded: ${JSON.stringify(causeText)}\n${table(
        ['ID', 'STATUS'],
        updated.map((record) => [record.id, record.status]),
      )}`,
    };
  },
};

/** Rule 12 with its audit entry; an unknown id is the operator's typo, not a failure. */
async function setCause(deployment: Deployment, id: string, text: string, actor: Actor) {
  try {
    return await deployment.records.setCause(id, text, { who: actor.who, when: actor.now, why: actor.why });
  } catch (error) {
    if (error instanceof QuarantineNotFoundError)
      throw new NotFound(`no quarantine record ${id} (pq list shows the ids)`);
    throw error;
  }
}
