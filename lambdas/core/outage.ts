/**
 * Rule 7, branch C: when different messages fail close together the cause is shared (a
 * dependency is down), so consumption pauses instead of charging each message. Events are keyed
 * (see `failureEventForCrash`, `failureEventForMessage`): repeated failures of one key count once.
 */
import type { Policy } from './types';

/** One failure event as stored in the control table; `at` is epoch milliseconds. */
export interface FailureEvent {
  readonly key: string;
  readonly at: number;
}

export interface OutageVerdict {
  readonly trip: boolean;
  /** The distinct keys inside the window, sorted: the evidence for the pause. */
  readonly distinctKeys: readonly string[];
}

/**
 * Counts distinct keys among the events of the last `outageWindowSeconds` (inclusive). Events
 * stamped slightly after `now` come from another environment's clock and count as recent.
 */
export function evaluateOutage(events: readonly FailureEvent[], now: number, policy: Policy): OutageVerdict {
  const windowStart = now - policy.outageWindowSeconds * 1000;
  const keys = new Set(events.filter((event) => event.at >= windowStart).map((event) => event.key));
  const distinctKeys = [...keys].sort();
  return { trip: distinctKeys.length >= policy.outageFailureThreshold, distinctKeys };
}
