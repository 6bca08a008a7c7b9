/**
 * Breaker items a test puts in the world's control table directly, as a trip or a pause run
 * would leave them: epoch 1, opened now, a 10 s cool-down, no stop, no probe counted yet.
 */
import { BREAKER_STATE } from '../../contract/control';
import type { World } from './world';

function base(world: World) {
  return {
    reason: 'outage',
    epoch: 1,
    openedAt: world.clock.now(),
    cooldownSeconds: 10,
    stop: false,
  } as const;
}

/** Open, with no pause run driving it (none is started by setting it). */
export function setOpenBreaker(world: World): void {
  world.control.breaker = {
    record: { state: BREAKER_STATE.open, ...base(world) },
    probeSuccesses: 0,
    probeFailures: 0,
  };
}

/** Half-open: the probe window is open. */
export function setHalfOpenBreaker(world: World): void {
  const probes = { probeSuccesses: 0, probeFailures: 0, probeRepeatFailures: 0 };
  world.control.breaker = {
    record: { state: BREAKER_STATE.halfOpen, ...base(world), ...probes },
    ...probes,
    probeOwnFailures: 0,
  };
}

/** A breaker item no consumer can read (a state nobody writes): the breaker is unreadable. */
export const GARBLED_BREAKER_ITEM = {
  pk: { S: 'breaker' },
  sk: { S: 'state' },
  state: { S: 'paused-by-hand' },
  epoch: { N: '3' },
};
