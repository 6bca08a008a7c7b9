/**
 * `pq reset-breaker`: the operator's repair of a breaker item nobody can read (issue 8, defect
 * 5). The item becomes what a stop trip would have made of it, an open stop of a new episode, so
 * nothing resumes until the operator has looked and runs `pq resume`, as for any stop (rule 11).
 * A delete would be simpler, but no item reads as a closed breaker: consumption would resume at
 * once, whatever the garbled item had held back (a quarantine that cannot be written, say).
 */
import { BREAKER_STATE } from '../../contract/control';
import type { BreakerReading, OpenBreaker } from './breaker';
import type { Refusal } from './operator';

/** The reset breaker's `reason`, as pq status and the pause run's notification show it. */
export const BREAKER_RESET_REASON = 'breaker-reset';

/** The audit `what` of the reset. */
export const BREAKER_RESET_AUDIT = 'reset-breaker';

/** The repaired breaker, and what was wrong with the item it replaces. */
export interface BreakerReset {
  readonly kind: 'reset';
  readonly breaker: OpenBreaker;
  readonly problem: string;
}

/** Only an unreadable item is reset: a breaker that reads is answered with resume or hold. */
export function decideBreakerReset(
  reading: BreakerReading,
  context: { readonly now: Date; readonly cooldownSeconds: number },
): BreakerReset | Refusal {
  if (reading.state !== 'unreadable') {
    return {
      kind: 'refuse',
      reason: `the breaker item can be read (${reading.state}): use pq resume or pq hold, never a reset`,
    };
  }
  return {
    kind: 'reset',
    problem: reading.problem,
    breaker: {
      state: BREAKER_STATE.open,
      reason: BREAKER_RESET_REASON,
      epoch: nextEpoch(reading.epoch, context.now),
      openedAt: context.now.getTime(),
      cooldownSeconds: context.cooldownSeconds,
      stop: true,
    },
  };
}

/**
 * The new episode's epoch, which names its pause run: one more than the garbled item's. When its
 * epoch is what is garbled, the seconds since 1970: above any count of trips, so no run of an
 * earlier episode is taken for this one's.
 */
function nextEpoch(epoch: number | undefined, now: Date): number {
  return epoch === undefined ? Math.floor(now.getTime() / 1000) : epoch + 1;
}
