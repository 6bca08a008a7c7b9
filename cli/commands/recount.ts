/** `pq recount`: rule 11a's open-record count set to what the quarantine table holds. */
import { positionals, requiredReason } from '../arguments';
import type { Command, CommandContext } from '../command';

export const recount: Command = {
  name: 'recount',
  options: { reason: { type: 'string' } },
  help: `pq recount - count the open records again and repair the count the consumer stops at

Usage: pq recount --reason "why"

The consumer stops at quarantineCapacity open records (rule 11a: open or awaiting-operator). It
reads one counter, moved in the same write as every record that enters or leaves those
statuses, instead of counting the table at every quarantine. A counter can still drift: records
edited by hand, a verification execution started by a version without the counter (it decides
without it). pq recount counts the records by status and sets the counter to that number, only
if nothing moved the counter while it counted (else it counts again, three times at most). The
counter keeps who recounted, when, why, and both numbers; the output shows them too.

The count comes from the byStatus index, which may lag its table by a second: run it in a quiet
moment, and a second time if records were being quarantined or resolved meanwhile.`,
  async run(context: CommandContext) {
    positionals(context.args, []);
    const why = requiredReason(context.args);
    const deployment = await context.deployment();
    const actor = await context.actor(why);
    const recounted = await deployment.records.recountOpen({ who: actor.who, when: actor.now, why });
    const capacity = deployment.config.quarantineCapacity;
    const was = recounted.was === undefined ? 'there was no counter' : `the counter said ${recounted.was}`;
    return {
      json: { ...recounted, capacity, who: actor.who, when: actor.now.toISOString(), why },
      text: `Open records: ${recounted.counted} (${was}); the consumer stops at ${capacity}.\n`,
    };
  },
};
