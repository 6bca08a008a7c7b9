/**
 * Rules 7 and 11: the consumer's side of the circuit breaker. The breaker lives on the control
 * table's `breaker/state` item; the consumer trips it (one conditional write picks one winner)
 * and reports probe outcomes, and the operations state machine owns every other transition:
 * open -(cool-down)-> half-open -(probe)-> closed | open (cool-down doubled), because each one
 * changes the event source mapping. `epoch` numbers pause episodes and names the pause execution.
 */
import type { ErrorClass, FailureCounters } from './types';

export interface ClosedBreaker {
  readonly state: 'closed';
  readonly epoch: number;
  readonly cooldownSeconds: number;
  readonly stop: false;
}

export interface OpenBreaker {
  readonly state: 'open';
  readonly reason: string;
  readonly epoch: number;
  /** Epoch milliseconds of the latest opening; the cool-down counts from here. */
  readonly openedAt: number;
  readonly cooldownSeconds: number;
  readonly stop: boolean;
}

export interface HalfOpenBreaker {
  readonly state: 'half-open';
  readonly reason: string;
  readonly epoch: number;
  readonly openedAt: number;
  readonly cooldownSeconds: number;
  readonly stop: false;
}

export type BreakerRecord = ClosedBreaker | OpenBreaker | HalfOpenBreaker;

/** Why the consumer pauses by itself. */
export type PauseReason = 'quarantine-unwritable' | 'quarantine-capacity' | 'quarantine-share' | 'outage';

/**
 * Whether a pause waits for an operator instead of probing. Rule 11: a quarantine that cannot be
 * written or is full, and a quarantine share that looks like an outage rather than poison, are
 * stops: nothing resumes until a person has looked. An outage (rule 7) probes and resumes.
 */
export function pauseWaitsForOperator(reason: PauseReason): boolean {
  return reason !== 'outage';
}

/**
 * Whether a failed probe points at the message rather than the dependency: a non-transient
 * error, or a transient error or crash on a message with charged attempts or unknown errors
 * behind it. Transient failures alone do not make a suspect: during an outage every message
 * has them, and the breaker would never reopen.
 */
export function isPoisonSuspect(item: FailureCounters, failure: ErrorClass | 'crash'): boolean {
  if (failure !== 'transient' && failure !== 'crash') {
    return true;
  }
  return item.charged > 0 || item.unknownFailures > 0;
}

/**
 * How long a record handed back during a pause should stay hidden: until the cool-down ends, so
 * that the half-open probe finds it waiting (a probe that sees nothing proves nothing), and no
 * longer. A stop waits for a person: its records keep their visibility timeout.
 */
export function returnAfterPauseSeconds(
  breaker: Pick<OpenBreaker, 'openedAt' | 'cooldownSeconds' | 'stop'>,
  now: number,
): number | undefined {
  if (breaker.stop) return undefined;
  return Math.max(0, Math.ceil((breaker.openedAt + breaker.cooldownSeconds * 1000 - now) / 1000));
}
