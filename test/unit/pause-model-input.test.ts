/**
 * The campaign's pause model runs what the pause state machine would: an input the machine
 * refuses (lib/operations/pause-state-machine.ts RejectInput, pinned on the local AWS by
 * test/integration/operations-pause.test.ts "rejects ... cooldownSeconds: 0") must fail in the
 * model too. It did not, and a restart the consumer sent with `cooldownSeconds: 0` ran in the
 * campaign while on AWS it failed at once, leaving the breaker with no run to drive it.
 */
import { describe, expect, it } from 'vitest';
import { PauseModel } from '../../sim/campaign/pause-model';
import { Trace } from '../../sim/campaign/trace';
import { setOpenBreaker } from '../../sim/world/breaker-states';
import { World } from '../../sim/world/world';

function trippedWorld(): World {
  const world = new World({ random: () => 0.5, processorFor: () => ({ process: async () => {} }) as never });
  setOpenBreaker(world);
  return world;
}

async function runWith(timings: Record<string, number>): Promise<string | undefined> {
  const world = trippedWorld();
  await world.operations.startPause({ epoch: 1, reason: 'outage', stop: false, ...timings });
  new PauseModel(world, 10, new Trace()).tick();
  return [...world.operations.executions.values()][0]?.status;
}

describe('the pause model refuses the inputs the pause state machine refuses', () => {
  it.each([
    ['cooldownSeconds 0', { cooldownSeconds: 0 }],
    ['probeSeconds 0', { cooldownSeconds: 10, probeSeconds: 0 }],
    ['pollSeconds 0', { cooldownSeconds: 10, pollSeconds: 0 }],
    ['maxCooldownSeconds below cooldownSeconds', { cooldownSeconds: 10, maxCooldownSeconds: 5 }],
  ])('given %s, then the run fails before it reads or changes anything', async (_, timings) => {
    expect(await runWith(timings)).toBe('FAILED');
  });

  it('given timings the machine accepts, then the run goes on', async () => {
    expect(
      await runWith({ cooldownSeconds: 1, maxCooldownSeconds: 1, probeSeconds: 1, pollSeconds: 1 }),
    ).toBe('RUNNING');
  });
});
