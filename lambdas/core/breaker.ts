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
  /**
   * A probe of this window failed already: that is the window's verdict, and the state machine
   * reopens at its end. Probing on would spend a receive and a call per batch for nothing.
   */
  readonly probeFailed: boolean;
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
 * Failed probes after which a message is suspected rather than the dependency. A message that
 * fails on every attempt would otherwise fail every probe: the breaker would never close, and
 * the queue would stop for good behind it. Two, so that one unlucky probe does not suffice.
 */
export const PROBE_FAILURES_BEFORE_SUSPECT = 2;

/**
 * Whether a failed probe points at the message rather than the dependency: a non-transient
 * error, or a transient error or crash on a message with charged attempts, unknown errors or
 * failed probes behind it. Transient failures alone do not make a suspect: during an outage
 * every message has them, and the breaker would never reopen.
 */
export function isPoisonSuspect(item: FailureCounters, failure: ErrorClass | 'crash'): boolean {
  if (failure !== 'transient' && failure !== 'crash') {
    return true;
  }
  return item.charged > 0 || item.unknownFailures > 0 || item.probeFailures >= PROBE_FAILURES_BEFORE_SUSPECT;
}

/**
 * The breaker when it holds batches back untouched: open, or half-open with its window's probe
 * already failed.
 */
export function holdingBreaker(
  breaker: BreakerRecord | undefined,
): OpenBreaker | HalfOpenBreaker | undefined {
  if (breaker?.state === 'open' || (breaker?.state === 'half-open' && breaker.probeFailed)) return breaker;
  return undefined;
}

/**
 * How long a record handed back during a pause should stay hidden: until the cool-down ends, so
 * that the half-open probe finds it waiting (a probe that sees nothing proves nothing), and at
 * least one probe window: past the cool-down a breaker still open means its run is late or gone
 * (the consumer restarts it), and handing records back at once would spend a receive on every
 * poll until the backstop takes the message. After a failed probe, the next window opens within
 * this window's end plus the doubled cool-down. A stop waits for a person: its records keep
 * their visibility timeout.
 */
export function returnAfterPauseSeconds(
  breaker: OpenBreaker | HalfOpenBreaker,
  now: number,
  timings: { readonly probeSeconds: number; readonly maxCooldownSeconds: number },
): number | undefined {
  if (breaker.stop) return undefined;
  if (breaker.state === 'half-open') {
    return Math.min(2 * breaker.cooldownSeconds, timings.maxCooldownSeconds) + timings.probeSeconds;
  }
  const coolDownLeft = Math.ceil((breaker.openedAt + breaker.cooldownSeconds * 1000 - now) / 1000);
  return Math.max(timings.probeSeconds, coolDownLeft);
}
