/**
 * The breaker as the pause path leaves it after a cool-down: a new half-open window (tripped
 * first if need be), with probes counted in it already or not.
 */
import type { World } from './world';

export async function halfOpenWindow(
  world: World,
  counts: { readonly probeSuccesses?: number; readonly probeFailures?: number } = {},
): Promise<void> {
  const { probeSuccesses = 0, probeFailures = 0 } = counts;
  if (world.control.breaker === undefined) {
    await world.control.tripBreaker({ reason: 'outage', now: world.clock.date(), stop: false });
  }
  const paused = world.control.breaker?.record;
  if (paused === undefined || paused.state === 'closed') throw new Error('breaker not paused');
  world.control.breaker = {
    record: {
      ...paused,
      state: 'half-open',
      stop: false,
      probeSuccesses,
      probeFailures,
      probeRepeatFailures: 0,
    },
    probeSuccesses,
    probeFailures,
  };
}
