import { positionals, requiredReason } from '../arguments';
import type { Command, CommandContext } from '../command';

function freezeCommand(frozen: boolean): Command {
  const name = frozen ? 'freeze' : 'unfreeze';
  return {
    name,
    options: { reason: { type: 'string' } },
    help: frozen
      ? `pq freeze - refuse every replay (and verify --not-done) until someone unfreezes

Usage: pq freeze --reason "why"

Use it while a fix is not deployed yet, during an incident on a downstream system, or when
replays themselves cause harm. The consumer keeps consuming; only replays stop. pq status shows
who froze replay, when and why.`
      : `pq unfreeze - allow replays again

Usage: pq unfreeze --reason "why"

pq status shows who froze replay and why: make sure that reason is gone.`,
    async run(context: CommandContext) {
      positionals(context.args, []);
      const why = requiredReason(context.args);
      const deployment = await context.deployment();
      const actor = await context.actor(why);
      const freeze = await deployment.control.setReplayFreeze({
        frozen,
        who: actor.who,
        why: actor.why,
        now: actor.now,
      });
      return {
        json: freeze,
        text: `Replay is ${frozen ? 'FROZEN' : 'allowed'} (by ${freeze.who} at ${freeze.when}: ${freeze.why}).\n`,
      };
    },
  };
}

export const freeze = freezeCommand(true);
export const unfreeze = freezeCommand(false);
