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
  /** A crash, or a caught error (transient, outcome unknown); events stored before kinds were: errors. */
  readonly kind?: 'transient' | 'crash';
}

export interface OutageVerdict {
  readonly trip: boolean;
  /** The distinct keys inside the window, sorted: the evidence for the pause. */
  readonly distinctKeys: readonly string[];
}

/**
 * Counts distinct keys among the events of the last `outageWindowSeconds` (inclusive). Events
 * stamped slightly after `now` come from another environment's clock and count as recent.
 *
 * A crash that a message passing an isolation trial followed (`lastPassAt`, rule 6) no longer
 * counts: the workers could finish other messages after it, so it was that message's crash, not
 * a shared dependency's. In an outage that kills workers nothing passes, and every message's
 * crash alone counts; among poison, healthy messages pass between the crashes, and several
 * poison messages crashing in one minute do not pause the queue (docs/behaviour.md).
 */
export function evaluateOutage(
  events: readonly FailureEvent[],
  now: number,
  policy: Policy,
  lastPassAt?: number,
): OutageVerdict {
  const windowStart = now - policy.outageWindowSeconds * 1000;
  const counted = events.filter((event) => event.at >= windowStart && countsTowardOutage(event, lastPassAt));
  const keys = new Set(counted.map((event) => event.key));
  const distinctKeys = [...keys].sort();
  return { trip: distinctKeys.length >= policy.outageFailureThreshold, distinctKeys };
}

/** Whether an event counts toward rule 7: not a crash that a message passing a trial followed. */
export function countsTowardOutage(event: FailureEvent, lastPassAt: number | undefined): boolean {
  return event.kind !== 'crash' || lastPassAt === undefined || event.at >= lastPassAt;
}
