/**
 * Rules 7 and 11: the consumer's side of the circuit breaker. The breaker lives on the control
 * table's `breaker/state` item; the consumer trips it (one conditional write picks one winner)
 * and reports probe outcomes, and the pause state machine owns every other transition:
 * open -(cool-down)-> half-open -(probe)-> closed | open (cool-down doubled), because each one
 * changes the event source mapping. `epoch` numbers pause episodes and names the pause execution.
 */
import { BREAKER_STATE, type PauseReason } from '../../contract/control';
import type { ErrorClass, ErrorEvidence, FailureCounters } from './types';

export interface ClosedBreaker {
  readonly state: typeof BREAKER_STATE.closed;
  readonly epoch: number;
  readonly cooldownSeconds: number;
  readonly stop: false;
}

export interface OpenBreaker {
  readonly state: typeof BREAKER_STATE.open;
  readonly reason: string;
  readonly epoch: number;
  /** Epoch milliseconds of the latest opening; the cool-down counts from here. */
  readonly openedAt: number;
  readonly cooldownSeconds: number;
  readonly stop: boolean;
}

export interface HalfOpenBreaker {
  readonly state: typeof BREAKER_STATE.halfOpen;
  readonly reason: string;
  readonly epoch: number;
  readonly openedAt: number;
  readonly cooldownSeconds: number;
  readonly stop: false;
  /** Probes of this window that succeeded and failed, as the consumers counted them. */
  readonly probeSuccesses: number;
  readonly probeFailures: number;
  /** Of `probeFailures`, those of messages that had failed a probe before (probeFailureKind). */
  readonly probeRepeatFailures: number;
}

export type BreakerRecord = ClosedBreaker | OpenBreaker | HalfOpenBreaker;

/**
 * A breaker item that cannot be read as a breaker: a state nobody knows, an attribute missing or
 * of the wrong type (edited by hand, or a bug). Nobody can tell whether consumption may run, so it
 * counts as a stop: the consumer starts nothing, and only an operator's reset (`pq reset-breaker`,
 * core/breaker-reset.ts) makes it a breaker again, one that waits for `pq resume`.
 */
export interface UnreadableBreaker {
  readonly state: 'unreadable';
  /** What the reader found wrong. */
  readonly problem: string;
  /** The epoch, when at least that attribute reads as a number. */
  readonly epoch?: number;
}

/** The breaker item as read. */
export type BreakerReading = BreakerRecord | UnreadableBreaker;

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
 * Failed probes (of messages that had failed none before) after which a window with no success
 * is the dependency's verdict. One may be
 * the message's own (a message failing on every attempt would otherwise fail every window and
 * hold the breaker for good): a second message still probes. Two is the dependency, and probing
 * on would spend a receive and a call per batch for nothing.
 */
export const FAILED_PROBES_OF_A_DOWN_DEPENDENCY = 2;

/**
 * What a consumer reports of one half-open probe. `own-failure`: a record our own tables failed
 * (any record of the window, probing or not): the pipeline cannot work yet, whatever succeeded.
 */
export type ProbeResult = 'success' | 'failure' | 'repeated-failure' | 'own-failure';

/**
 * How a failed probe counts. A message that failed a probe before and fails again may be failing
 * by itself: two such messages, probed first in every window, would decide every window and hold
 * the healthy messages behind them until SQS's backstop takes those. Its failure still ends the
 * window in failure (it is no silence) but does not make the verdict: the next message probes.
 */
export function probeFailureKind(item: { readonly failedProbes?: number }): Exclude<ProbeResult, 'success'> {
  return (item.failedProbes ?? 0) > 0 ? 'repeated-failure' : 'failure';
}

/**
 * The breaker when it holds batches back untouched: open, or half-open with its window already
 * decided against the dependency.
 */
export function holdingBreaker(
  breaker: BreakerRecord | undefined,
): OpenBreaker | HalfOpenBreaker | undefined {
  if (breaker?.state === BREAKER_STATE.open) return breaker;
  if (breaker?.state !== BREAKER_STATE.halfOpen || breaker.probeSuccesses > 0) return undefined;
  const verdicts = breaker.probeFailures - breaker.probeRepeatFailures;
  return verdicts >= FAILED_PROBES_OF_A_DOWN_DEPENDENCY ? breaker : undefined;
}

/**
 * Whether a batch is a probe: half-open and no probe of the window succeeded yet. After a
 * success the dependency works (the state machine restores consumption at the window's end),
 * so what fails later fails by itself, on its own budget.
 */
export function probesTheWindow(breaker: BreakerRecord | undefined): boolean {
  return breaker?.state === BREAKER_STATE.halfOpen && breaker.probeSuccesses === 0;
}

/** How long an open breaker in its cool-down may be cached (see `controlMaxAgeMs`). */
export const COOLING_BREAKER_MAX_AGE_MS = 1_000;

/**
 * How old a cached control snapshot may be, given the breaker it shows. Closed: the cache
 * period. Open in its cool-down (or stopped): at most a second, since only an operator changes it
 * then, and until the mapping is disabled every batch of every environment would otherwise read
 * it (1,000 environments overrun one item's reads, docs/scale.md). Otherwise it may move at any
 * moment (half-open, a window's probe counted, an unreadable item repaired): read it fresh, or a
 * probe could be refused.
 */
export function controlMaxAgeMs(breaker: BreakerReading | undefined, now: number, cacheMs: number): number {
  if (breaker === undefined || breaker.state === BREAKER_STATE.closed) return cacheMs;
  const cooling =
    breaker.state === BREAKER_STATE.open &&
    (breaker.stop || now < breaker.openedAt + breaker.cooldownSeconds * 1000);
  return cooling ? Math.min(cacheMs, COOLING_BREAKER_MAX_AGE_MS) : 0;
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
  timings: WindowTimings,
): number | undefined {
  if (breaker.stop) return undefined;
  if (breaker.state === BREAKER_STATE.halfOpen) return nextWindowSeconds(breaker.cooldownSeconds, timings);
  const coolDownLeft = Math.ceil((breaker.openedAt + breaker.cooldownSeconds * 1000 - now) / 1000);
  return Math.max(timings.probeSeconds, coolDownLeft);
}

type WindowTimings = { readonly probeSeconds: number; readonly maxCooldownSeconds: number };

/**
 * From a half-open window whose probe failed to the end of the next window: this window ends
 * within `probeSeconds`, and the breaker reopens with its cool-down doubled (capped).
 */
export function nextWindowSeconds(cooldownSeconds: number, timings: WindowTimings): number {
  return reopenedCooldownSeconds(cooldownSeconds, timings) + timings.probeSeconds;
}

/** The cool-down a failed window reopens with: doubled, capped. */
function reopenedCooldownSeconds(cooldownSeconds: number, timings: WindowTimings): number {
  return Math.min(2 * cooldownSeconds, timings.maxCooldownSeconds);
}

/**
 * The timings a pause run begins with when it is started again for this breaker (the run that
 * drove it died): what keeps the episode's timeline, so its window opens when the dead run's next
 * one would have. Open: at the end of the cool-down it was in. Half-open and holding (its window
 * went against the dependency): after that window and the doubled cool-down its reopening would
 * have set, which is when the records handed back for the next window come back
 * (`nextWindowSeconds`). Begun again with the first cool-down, the run's window ended before they
 * were visible and restored consumption in silence while the dependency was still down.
 * Two more bounds. The window must be open when the records of the batch that restarts it come
 * back (`returnAfterPauseSeconds`), with half a window left: past the cool-down the timeline says
 * "at once", and a window opened at once ended just as they came back. And the pause machine
 * refuses a cool-down under 1 s or over the input's cap (CheckPauseInput): the cap is raised to
 * the cool-down where the timeline runs past it (a capped reopening plus its window).
 */
export function restartPauseTimings(
  breaker: OpenBreaker | HalfOpenBreaker,
  now: number,
  timings: WindowTimings,
): { readonly cooldownSeconds: number; readonly maxCooldownSeconds: number } {
  const cooled = breaker.openedAt + breaker.cooldownSeconds * 1000;
  const windowOpens =
    breaker.state === BREAKER_STATE.halfOpen
      ? cooled + (timings.probeSeconds + reopenedCooldownSeconds(breaker.cooldownSeconds, timings)) * 1000
      : cooled;
  const comeBack = returnAfterPauseSeconds(breaker, now, timings) ?? 0;
  const cooldownSeconds = Math.max(
    1,
    Math.ceil((windowOpens - now) / 1000),
    comeBack - Math.floor(timings.probeSeconds / 2),
  );
  return { cooldownSeconds, maxCooldownSeconds: Math.max(timings.maxCooldownSeconds, cooldownSeconds) };
}

/**
 * How long a record held by an unreadable breaker stays hidden: the longest cool-down. Nothing
 * probes such a breaker or lifts it by itself, and each hand-back spends one of the message's
 * receives toward the backstop while a person is on the way (with the defaults: 1 h, so 9 h
 * before the last receive, where the record is quarantined rather than handed back).
 */
export function unreadableHoldSeconds(timings: WindowTimings): number {
  return timings.maxCooldownSeconds;
}

/**
 * The evidence of a record quarantined on its last receive while the breaker could not be read:
 * not its own failure (it never ran), so it is grouped apart from every failure of the work.
 */
export function unreadableBreakerEvidence(breaker: UnreadableBreaker): ErrorEvidence {
  return {
    class: 'transient',
    name: 'BreakerUnreadable',
    message: `not run: the breaker item could not be read (${breaker.problem})`,
    stackHead: '',
  };
}
