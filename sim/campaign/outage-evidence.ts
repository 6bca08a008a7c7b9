/**
 * When could a working breaker (rule 7) have known about an outage? The world knows every
 * failure it caused and on which message key; once `outageFailureThreshold` distinct keys have
 * failed within `outageWindowSeconds`, the evidence the consumer counts was there. Inside an
 * outage the schedule staged, the evidence then holds until that outage ends: a paused consumer
 * receives nothing, so the failures that would refresh the window rightly stop coming.
 * Sporadic faults outside a staged outage only count while inside the sliding window.
 */
import { DEFAULTS } from '../../contract/defaults';
import type { Failure, OutageWindow, Trace } from './trace';

export interface EvidenceRule {
  readonly threshold: number;
  /** Which failures count: our own AWS calls, the outside system, or both. */
  readonly by: ReadonlySet<Failure['by']>;
  readonly windowSeconds?: number;
}

/** Whether the evidence stood before the moment `{ seq, at }` (a receive, usually). */
export function outageEvident(
  trace: Trace,
  moment: { seq: number; at: number },
  rule: EvidenceRule,
): boolean {
  const failures = trace.failures.filter((failure) => rule.by.has(failure.by) && failure.seq < moment.seq);
  if (evidentAt(failures, moment.at, rule)) return true;
  return trace.outages.some(
    (outage) =>
      rule.by.has(outage.by) &&
      within(outage, moment) &&
      failures.some(
        (failure, index) =>
          failure.at >= outage.start &&
          failure.at < outage.end &&
          evidentAt(failures.slice(0, index + 1), failure.at, rule),
      ),
  );
}

function within(outage: OutageWindow, moment: { seq: number; at: number }): boolean {
  if (moment.at < outage.start) return false;
  return moment.at < outage.end || (moment.at === outage.end && moment.seq < (outage.endSeq ?? 0));
}

/** At least `threshold` distinct keys among the failures inside the window ending at `at`. */
function evidentAt(failures: readonly Failure[], at: number, rule: EvidenceRule): boolean {
  const since = at - (rule.windowSeconds ?? DEFAULTS.outageWindowSeconds) * 1000;
  const keys = new Set<string>();
  for (const failure of failures) if (failure.at >= since && failure.at <= at) keys.add(failure.key);
  return keys.size >= rule.threshold;
}
