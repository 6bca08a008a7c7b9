/**
 * The reference: docs/behaviour.md's rules as a small pure function of what happened in a
 * schedule (the attempt facts, the messages sent, their receives, the pauses), saying what must
 * have followed. Written from the rules, not from the consumer: it never asks how the consumer
 * decided. Where the rules allow more than one outcome it answers with the set.
 * - charges (rules 2, 5, 6, 8, 9, and "which failures count"): an attempt is charged 1 for a
 *   crash with it alone in flight, a permanent error, an unknown error; 0 otherwise, and 0 when a
 *   keyless call of it may have reached the outside system (a person decides). Unclear (both):
 *   an attempt whose worker lived on without recording its end (its next delivery takes it for
 *   a crash, alone or not), a crash whose worker also held such an abandoned attempt, and any
 *   attempt settled across a pause (rule 7 charges nothing of an outage, a stop in the middle
 *   of a quarantine charges nothing).
 * - reasons: the quarantine reasons the facts of the key's generation make possible.
 * - twins (rule 13): the messages that are the same message (same key, same bytes).
 * - the backstop: only a message whose last receive crashed or found our own tables failing.
 * - crashes alone (rules 2, 5): a key whose every attempt crashed alone is quarantined as
 *   `crash-limit` within its limit, or `receive-limit` where the backstop comes first.
 * On Kafka no receive count ends a record and nothing reaches a backstop: `receive-limit` is a
 * record's last failed half-open probe instead (docs/behaviour.md, "Kafka sources").
 */
import type { QuarantineReason } from '../../lambdas/core/types';
import type { AttemptFacts } from './attempt-log';
import type { Receive } from './trace';

export interface OracleMessage {
  readonly messageId: string;
  readonly key: string;
  readonly body: string;
  /** Its exact bytes where the body's text may not hold them (a Kafka value). */
  readonly bytes?: Buffer;
}

export interface OracleInput {
  readonly attempts: readonly AttemptFacts[];
  readonly pauses: readonly number[];
  /** Attempts the ledger still holds in flight at the end: never settled, so never charged yet. */
  readonly unsettled: ReadonlySet<string>;
  readonly sent: readonly OracleMessage[];
  /** Every record handed to an invocation, in order. */
  readonly receives: readonly Receive[];
  /** The seq at which each environment died. */
  readonly deaths: ReadonlyMap<string, number>;
  readonly transientRetries: number;
  /** Every attempt limit the schedule deploys. */
  readonly limits: readonly number[];
  readonly backstopMaxReceiveCount: number;
  /** Kafka: failed half-open probes that end a record `receive-limit` (SQS: none, infinity). */
  readonly maxFailedProbes: number;
}

/** The charges each attempt may have added, by attemptId. */
export function expectedCharges(input: OracleInput): Map<string, ReadonlySet<number>> {
  const charges = new Map<string, ReadonlySet<number>>();
  for (const group of generations(input.attempts).values()) {
    group.forEach((attempt, index) => {
      const charge = input.unsettled.has(attempt.attemptId) ? ZERO : chargeOf(attempt);
      const paused = settledAcrossAPause(input, attempt, group[index + 1]);
      charges.set(attempt.attemptId, paused ? new Set([0, ...charge]) : charge);
    });
  }
  return charges;
}

/** A pause or stop was decided between the attempt's start and its key's next one. */
function settledAcrossAPause(
  input: OracleInput,
  attempt: AttemptFacts,
  next: AttemptFacts | undefined,
): boolean {
  const settledBy = next?.seq ?? Number.POSITIVE_INFINITY;
  return input.pauses.some((seq) => seq > attempt.seq && seq < settledBy);
}

function chargeOf(attempt: AttemptFacts): ReadonlySet<number> {
  if (attempt.mayHaveCalled.size > 0) return ZERO;
  if (attempt.crash !== undefined) {
    if (attempt.crash.unclear) return EITHER;
    return attempt.crash.inFlight === 1 ? ONE : ZERO;
  }
  if (attempt.ended === undefined) return EITHER;
  if (attempt.ended === 'complete') return ZERO;
  return attempt.thrown === 'permanent' || attempt.thrown === 'unknown' ? ONE : ZERO;
}

const ZERO: ReadonlySet<number> = new Set([0]);
const ONE: ReadonlySet<number> = new Set([1]);
const EITHER: ReadonlySet<number> = new Set([0, 1]);

/** The reasons a record of `message`'s quarantine in `generation` may give. */
export function possibleReasons(
  input: OracleInput,
  message: OracleMessage,
  generation: number,
  attemptsCharged: number,
): Set<QuarantineReason> {
  const group = generations(input.attempts).get(generationKey(message.key, generation)) ?? [];
  const thrown = (kind: AttemptFacts['thrown']) => group.filter((attempt) => attempt.thrown === kind).length;
  const reasons = new Set<QuarantineReason>();
  const add = (reason: QuarantineReason, possible: boolean) => {
    if (possible) reasons.add(reason);
  };
  add(
    'key-collision',
    input.sent.some((other) => other.key === message.key && !sameBytes(other, message)),
  );
  add('permanent-error', thrown('permanent') > 0);
  add('unknown-error-repeated', thrown('unknown') > 1);
  add('transient-retries-exhausted', thrown('other') > input.transientRetries);
  add(
    'outcome-unknown',
    group.some((attempt) => attempt.keylessDeclared),
  );
  add('crash-limit', attemptsCharged >= Math.min(...input.limits));
  const receives = input.receives.filter((receive) => receive.messageId === message.messageId);
  // Its receives in a half-open window bound the probes it failed from above.
  const probes = receives.filter((receive) => receive.breaker === 'half-open').length;
  add('receive-limit', receives.length >= input.backstopMaxReceiveCount || probes >= input.maxFailedProbes);
  return reasons;
}

/** A copy of a message SQS moved to the backstop: sent at `sentAt`, received `receiveCount` times. */
export interface BackstopCopy {
  readonly messageId: string;
  readonly sentAt: number;
  readonly receiveCount: number;
}

/**
 * "The last receive quarantines": SQS's backstop may take a message only when nothing could
 * tell its last receive was the last: the worker died during it (its first crash), or our own
 * tables failed it (then nothing can be written, rule 11a: it stays in the queue). The last
 * receive is the copy's own: the `receiveCount`-th since it was sent (SQS may deliver the same
 * messageId again later, as a new copy with receives of its own).
 */
export function mayReachTheBackstop(input: OracleInput, copy: BackstopCopy): boolean {
  const last = input.receives.filter(
    (receive) => receive.messageId === copy.messageId && receive.at >= copy.sentAt,
  )[copy.receiveCount - 1];
  if (last === undefined) return false;
  const died = input.deaths.get(last.envId) ?? Number.NEGATIVE_INFINITY;
  const diedDuringIt =
    died > last.seq &&
    !input.receives.some(
      (receive) => receive.envId === last.envId && receive.seq > last.seq && receive.seq < died,
    );
  return last.wastedByOwn || diedDuringIt;
}

/** Rule 13: the messages that are this one (the same key and the same bytes), itself included. */
export function twinsOf(input: OracleInput, message: OracleMessage): OracleMessage[] {
  return input.sent.filter((other) => other.key === message.key && sameBytes(other, message));
}

/** The same bytes: as text for messages sent as text, byte for byte where one was sent as bytes. */
function sameBytes(a: OracleMessage, b: OracleMessage): boolean {
  if (a.bytes === undefined && b.bytes === undefined) return a.body === b.body;
  return (a.bytes ?? Buffer.from(a.body, 'utf8')).equals(b.bytes ?? Buffer.from(b.body, 'utf8'));
}

export interface CrashedAlone {
  readonly key: string;
  readonly generation: number;
  readonly attempts: number;
  /** The highest limit any of its attempts ran under. */
  readonly limit: number;
}

/**
 * Keys whose every attempt of a generation crashed with only itself in flight, no keyless call
 * made and no pause around it (so each must be charged 1): nothing but rule 2 may end them.
 */
export function crashedAlone(input: OracleInput): CrashedAlone[] {
  const charges = expectedCharges(input);
  const chargedForItsCrash = (attempt: AttemptFacts) => {
    const charge = charges.get(attempt.attemptId);
    return attempt.crash !== undefined && !attempt.workFinished && charge?.size === 1 && charge.has(1);
  };
  return [...generations(input.attempts).values()]
    .filter((group) => group.every(chargedForItsCrash))
    .map((group) => ({
      key: group[0].key,
      generation: group[0].generation,
      attempts: group.length,
      limit: Math.max(...group.map((attempt) => attempt.limit)),
    }));
}

/** Attempts by key and generation, in the order they started. */
export function generations(attempts: readonly AttemptFacts[]): Map<string, AttemptFacts[]> {
  const groups = new Map<string, AttemptFacts[]>();
  for (const attempt of attempts) {
    const id = generationKey(attempt.key, attempt.generation);
    const group = groups.get(id);
    if (group === undefined) groups.set(id, [attempt]);
    else group.push(attempt);
  }
  return groups;
}

export function generationKey(key: string, generation: number): string {
  return `${key}#${generation}`;
}
