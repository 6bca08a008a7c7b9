/**
 * Rule 9: what to do after the user's work threw a caught error (not a crash). The edge writes
 * `counters` to the ledger item in the same conditional write that ends the attempt.
 */
import type { ErrorClass, FailureCounters, Policy, QuarantineReason } from './types';

export type FailureDecision =
  /** Return the message with this visibility delay; the ledger item becomes `ready`. */
  | {
      readonly kind: 'retry';
      readonly delaySeconds: number;
      readonly charge: number;
      readonly counters: FailureCounters;
      /** Rule 7: record a failure event for this message's key. */
      readonly failureEvent: boolean;
    }
  | {
      readonly kind: 'quarantine';
      readonly reason: QuarantineReason;
      readonly charge: number;
      readonly counters: FailureCounters;
      readonly failureEvent: boolean;
    }
  /**
   * Rule 8: quarantine for a person to check the outside system; never retried. Also a rule 7
   * event: an outside system that hangs after requests is an outage, not a run of poison.
   */
  | { readonly kind: 'outcome-unknown'; readonly failureEvent: true };

export function decideFailure(
  item: FailureCounters,
  errorClass: ErrorClass,
  policy: Policy,
  random: number,
): FailureDecision {
  switch (errorClass) {
    case 'outcome-unknown':
      return { kind: 'outcome-unknown', failureEvent: true };
    case 'permanent':
      // The message itself is at fault, so this attempt is charged to it.
      return quarantine('permanent-error', { ...item, charged: item.charged + 1 }, 1, false);
    case 'unknown':
      return decideUnknown(item, policy, random);
    case 'transient':
      return decideTransient(item, policy, random);
  }
}

/** Unknown: one retry (in case it was a fluke), charged, then quarantine. */
function decideUnknown(item: FailureCounters, policy: Policy, random: number): FailureDecision {
  const counters = { ...item, charged: item.charged + 1, unknownFailures: item.unknownFailures + 1 };
  if (item.unknownFailures >= 1) {
    return quarantine('unknown-error-repeated', counters, 1, false);
  }
  if (counters.charged >= policy.attemptLimit) {
    // Earlier crashes already used the budget: rule 2's reason, as a later delivery would give.
    return quarantine('crash-limit', counters, 1, false);
  }
  return {
    kind: 'retry',
    delaySeconds: backoffSeconds(item.unknownFailures, policy, random),
    charge: 1,
    counters,
    failureEvent: false,
  };
}

/** Transient: not charged (the dependency, not the message, failed), counted toward rule 7. */
function decideTransient(item: FailureCounters, policy: Policy, random: number): FailureDecision {
  const counters = { ...item, transientFailures: item.transientFailures + 1 };
  if (item.transientFailures >= policy.transientRetries) {
    return quarantine('transient-retries-exhausted', counters, 0, true);
  }
  return {
    kind: 'retry',
    delaySeconds: backoffSeconds(item.transientFailures, policy, random),
    charge: 0,
    counters,
    failureEvent: true,
  };
}

function quarantine(
  reason: QuarantineReason,
  counters: FailureCounters,
  charge: number,
  failureEvent: boolean,
): FailureDecision {
  return { kind: 'quarantine', reason, charge, counters, failureEvent };
}

/**
 * Exponential backoff with full jitter (AWS Architecture Blog, "Exponential Backoff And
 * Jitter"): a whole number of seconds drawn uniformly from 0..min(cap, base * 2^retry). Full
 * jitter spreads a herd of messages failing on the same outage over the whole interval.
 * `random` is in [0, 1); anything else is clamped so a bad source cannot break the SQS call.
 */
export function backoffSeconds(retry: number, policy: Policy, random: number): number {
  const ceiling = Math.min(policy.maxBackoffSeconds, policy.backoffBaseSeconds * 2 ** retry);
  const unit = Number.isFinite(random) ? Math.min(Math.max(random, 0), 1) : 0;
  return Math.min(Math.floor(unit * (ceiling + 1)), ceiling);
}
