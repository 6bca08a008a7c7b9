/**
 * Rules 7 and 11: the consumer's circuit breaker, as a pure state machine over the control
 * table's `breaker/state` record. closed -(trip)-> open -(cool-down)-> half-open -(probe)->
 * closed | open (cool-down doubled). A stop condition (rule 11a) or an operator hold opens it
 * with `stop`: no automatic half-open, only an operator resumes.
 * `epoch` numbers pause episodes; it names the pause execution (`pause-<epoch>`).
 */
import type { ErrorClass, FailureCounters, Policy } from './types';

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

/** Why the consumer pauses automatically. The first two are rule 11a stop conditions. */
export type PauseReason = 'quarantine-unwritable' | 'quarantine-capacity' | 'quarantine-share' | 'outage';

/** Invalid transitions are data, not throws: the edge logs the reason and leaves the record. */
export type BreakerTransition =
  | { readonly ok: true; readonly changed: boolean; readonly breaker: BreakerRecord }
  | { readonly ok: false; readonly reason: string };

const STOP_REASONS: ReadonlySet<PauseReason> = new Set(['quarantine-unwritable', 'quarantine-capacity']);

export function closedBreaker(policy: Policy, epoch = 0): ClosedBreaker {
  return { state: 'closed', epoch, cooldownSeconds: policy.breakerCooldownSeconds, stop: false };
}

/**
 * Opens the breaker. Already open (or half-open, waiting for its probe): no change, unless this
 * is a stop condition, which escalates to a new episode whose pause has no automatic resume.
 */
export function trip(breaker: BreakerRecord, reason: PauseReason, now: number): BreakerTransition {
  const stop = STOP_REASONS.has(reason);
  if (breaker.state !== 'closed' && !(stop && !breaker.stop)) {
    return unchanged(breaker);
  }
  return changed({
    state: 'open',
    reason,
    epoch: breaker.epoch + 1,
    openedAt: now,
    cooldownSeconds: breaker.cooldownSeconds,
    stop,
  });
}

/** When the cool-down of an automatic pause ends; undefined when nothing will half-open it. */
export function probeDueAt(breaker: BreakerRecord): number | undefined {
  if (breaker.state !== 'open' || breaker.stop) {
    return undefined;
  }
  return breaker.openedAt + breaker.cooldownSeconds * 1000;
}

/** After the cool-down: let one probe message through. */
export function halfOpen(breaker: BreakerRecord, now: number): BreakerTransition {
  if (breaker.state !== 'open') {
    return refused(`only an open breaker can half-open (it is ${breaker.state})`);
  }
  if (breaker.stop) {
    return refused('a stop condition holds: only an operator resumes');
  }
  const due = breaker.openedAt + breaker.cooldownSeconds * 1000;
  if (now < due) {
    return refused(`the cool-down runs until ${due}`);
  }
  return changed({ ...breaker, state: 'half-open', stop: false });
}

/** The dependency answers again: close, and start the next episode's cool-down from scratch. */
export function probeSucceeded(breaker: BreakerRecord, policy: Policy): BreakerTransition {
  if (breaker.state !== 'half-open') {
    return refused(`no probe is running (the breaker is ${breaker.state})`);
  }
  return changed(closedBreaker(policy, breaker.epoch));
}

/**
 * The probe failed. On a poison suspect (see `isPoisonSuspect`) the failure says nothing about
 * the dependency: stay half-open so the next message probes, or a poison message would hold the
 * breaker open forever. Otherwise reopen with the cool-down doubled, up to its cap.
 */
export function probeFailed(
  breaker: BreakerRecord,
  failure: { readonly suspect: boolean; readonly now: number },
  policy: Policy,
): BreakerTransition {
  if (breaker.state !== 'half-open') {
    return refused(`no probe is running (the breaker is ${breaker.state})`);
  }
  if (failure.suspect) {
    return unchanged(breaker);
  }
  return changed({
    ...breaker,
    state: 'open',
    openedAt: failure.now,
    cooldownSeconds: Math.min(breaker.cooldownSeconds * 2, policy.breakerMaxCooldownSeconds),
  });
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

/** An operator resumes consumption from any state; this is the only way out of a stop. */
export function operatorResume(breaker: BreakerRecord, policy: Policy): BreakerTransition {
  return breaker.state === 'closed' ? unchanged(breaker) : changed(closedBreaker(policy, breaker.epoch));
}

/** An operator pauses and holds: like a stop condition, nothing resumes automatically. */
export function operatorHold(breaker: BreakerRecord, reason: string, now: number): BreakerTransition {
  if (breaker.state === 'open' && breaker.stop) {
    return unchanged(breaker);
  }
  return changed({
    state: 'open',
    reason,
    epoch: breaker.epoch + 1,
    openedAt: now,
    cooldownSeconds: breaker.cooldownSeconds,
    stop: true,
  });
}

function changed(breaker: BreakerRecord): BreakerTransition {
  return { ok: true, changed: true, breaker };
}

function unchanged(breaker: BreakerRecord): BreakerTransition {
  return { ok: true, changed: false, breaker };
}

function refused(reason: string): BreakerTransition {
  return { ok: false, reason };
}
