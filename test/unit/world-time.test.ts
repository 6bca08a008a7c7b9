/**
 * Time in the world passes as on Lambda: each invocation's waits and work take its own time, one
 * environment's long work never jumps another's clock past its deadline, and an invocation still
 * running at its deadline is killed there. Found by the soak (seed 100031 #16894): another
 * environment's 31 s of work moved the shared clock at once, so an invocation mid-settle found
 * its deadline gone by yet ran on, and its lost completion looked like a thrown one.
 */
import { describe, expect, it } from 'vitest';
import type { ProcessorModule } from '../../lambdas/consumer/types';
import { OutsideSystem, type Step, scriptedProcessor } from '../../sim/world/scripted-processor';
import { World } from '../../sim/world/world';

/** Two messages delivered at once to two environments, each following its own script. */
async function twoInvocations(scripts: Record<string, readonly Step[]>) {
  const outside = new OutsideSystem();
  const remainingAfterWork = new Map<string, number>();
  const world: World = new World({
    env: {},
    random: () => 0.5,
    processorFor: (env): ProcessorModule => {
      const scripted = scriptedProcessor(env, world, outside, (message) => scripts[message.messageId] ?? []);
      return {
        async process(message, ctx) {
          await scripted.process(message, ctx);
          remainingAfterWork.set(message.messageId, ctx.remainingTimeMs());
        },
      };
    },
  });
  for (const id of Object.keys(scripts)) world.queue.send({ messageId: id, body: `{"id":"${id}"}` });
  const [a, b] = [world.environment(), world.environment()];
  const started = world.clock.now();
  const results = await Promise.all([world.deliver(a, 1), world.deliver(b, 1)]);
  return { world, started, remainingAfterWork, results: results.map((result) => result.kind) };
}

describe('time in the world', () => {
  it("given one invocation working past its deadline, then another's short work takes only its own time", async () => {
    // Prepare: the default attempt timeout is 30 s.
    const short = [{ do: 'work', ms: 200 }] as const;
    const long = [{ do: 'work', ms: 31_000 }] as const;

    // Act
    const { world, remainingAfterWork, results } = await twoInvocations({ short, long });

    // Assess: the short one finished 200 ms into its 30 s and completed; the long one was killed.
    expect(remainingAfterWork.get('short')).toBe(29_800);
    expect(remainingAfterWork.has('long')).toBe(false);
    expect(results).toStrictEqual(['returned', 'crashed']);
    expect(world.ledger.get('short')?.state).toBe('completed');
  });

  it('given an invocation still running at its deadline, then it is killed there and no code of it runs after', async () => {
    // Prepare: 20 s of work, then 20 s more: the second wait ends past the 30 s deadline.
    const slow = [
      { do: 'work', ms: 20_000 },
      { do: 'work', ms: 20_000 },
    ] as const;

    // Act
    const { world, started, remainingAfterWork, results } = await twoInvocations({ slow });

    // Assess
    expect(results[0]).toBe('crashed');
    expect(remainingAfterWork.has('slow')).toBe(false);
    expect(world.clock.now() - started).toBe(30_000);
  });
});
