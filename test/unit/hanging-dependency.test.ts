/**
 * Issue 22, defect 13: an outside system that accepts requests and never answers. Lambda kills
 * each invocation at its deadline, and a kill is seen only when its message comes back, visibility
 * timeouts later; by then every message may have been sent into the hang. A call still pending
 * as the invocation's time runs out must be recorded before the kill, so that rule 7 trips while
 * it can, and the messages behind the outage complete once it is over.
 */
import { describe, expect, it } from 'vitest';
import type { ProcessorModule } from '../../lambdas/consumer/types';
import { OutsideSystem } from '../../sim/world/scripted-processor';
import { type ExecutionEnvironment, type Handle, World } from '../../sim/world/world';

type Environment = ExecutionEnvironment & { readonly handle: Handle };

/** The outside system: counts requests; while `hanging`, accepts them and never answers. */
class HangingSystem extends OutsideSystem {
  hanging = true;

  call(key: string): Promise<void> {
    this.receive(key, 'charge');
    return this.hanging ? new Promise<void>(() => undefined) : Promise.resolve();
  }
}

function hangingWorld() {
  const outside = new HangingSystem();
  const processor: ProcessorModule = {
    async process(message, ctx) {
      await ctx.external('charge', () => outside.call(message.key));
    },
  };
  const world = new World({ random: () => 0.5, processorFor: () => processor });
  return { world, outside };
}

/** Two environments poll at once, one record each; a dead one is replaced (a cold start). */
async function pollTogether(world: World, envs: Environment[]): Promise<void> {
  if (world.queue.messages.size === 0) return;
  const next = world.queue.nextVisibleAt();
  if (next !== undefined) world.clock.advanceTo(next);
  const results = await Promise.all(envs.map((env) => world.deliver(env, 1)));
  results.forEach((result, slot) => {
    if (result.kind === 'crashed') envs[slot] = world.environment();
  });
}

describe('a dependency that hangs past the function timeout (issue 22, defect 13)', () => {
  it('issue 22 defect 13: given M1..M8, two environments and a hanging outside system, then at most 5 go to a person and the rest complete after recovery, uncharged', async () => {
    // Prepare
    const { world, outside } = hangingWorld();
    const labels = ['M1', 'M2', 'M3', 'M4', 'M5', 'M6', 'M7', 'M8'];
    for (const label of labels) world.queue.send({ messageId: `id-${label}`, body: label });
    const envs = [world.environment(), world.environment()];

    // Act: the outage lasts until the breaker opens; then the system answers again and the pause
    // state machine, after a good probe, restores consumption.
    for (let poll = 0; poll < 20 && world.control.breaker === undefined; poll++)
      await pollTogether(world, envs);
    outside.hanging = false;
    const open = world.control.breaker?.record;
    if (open !== undefined) {
      world.clock.advance(open.cooldownSeconds * 1000);
      world.control.breaker = {
        record: { state: 'closed', epoch: open.epoch, cooldownSeconds: open.cooldownSeconds, stop: false },
        probeSuccesses: 1,
        probeFailures: 0,
      };
    }
    for (let poll = 0; poll < 40 && world.queue.messages.size > 0; poll++) await pollTogether(world, envs);

    // Assess
    const reasons = [...world.quarantine.records.values()].map((record) => record.reason);
    const completed = world.ledger.all().filter((item) => item.state === 'completed');
    expect({ personAsked: reasons.length, completed: completed.length }).toStrictEqual({
      personAsked: 4,
      completed: 4,
    });
    expect(reasons.every((reason) => reason === 'outcome-unknown')).toBe(true);
    expect(world.control.breaker?.record.epoch).toBe(1);
    expect(world.ledger.all().map((item) => item.charged)).toStrictEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(labels.map((label) => outside.count(`id-${label}`, 'charge'))).toStrictEqual([
      1, 1, 1, 1, 1, 1, 1, 1,
    ]);
    expect(world.queue.messages.size).toBe(0);
  });
});
