/**
 * When could a working breaker (rule 7) have known about an outage? The world knows every
 * failure it caused and on which message key; once `outageFailureThreshold` distinct keys have
 * failed within `outageWindowSeconds`, the evidence the consumer counts was there. Inside an
 * outage the schedule staged, the evidence then holds until that outage ends: a paused consumer
 * receives nothing, so the failures that would refresh the window rightly stop coming.
 * Sporadic faults outside a staged outage only count while inside the sliding window.
 */
import { DEFAULTS } from '../../contract/defaults';
import type { FaultPoint } from '../faults/fault-points';
import type { Failure, OutageWindow, Trace } from './trace';

export interface EvidenceRule {
  readonly threshold: number;
  /** Which failures count: our own AWS calls, the outside system, or both. */
  readonly by: ReadonlySet<Failure['by']>;
  readonly windowSeconds?: number;
}

/**
 * Whether the evidence stood before the moment `{ seq, at }` (a receive, usually) in the
 * environment `envId`. A failure whose event the control table refused is evidence only there,
 * in the environment that saw it (docs/behaviour.md, "Failure events that could not be recorded
 * still count"): no other one can know of it.
 */
export function outageEvident(
  trace: Trace,
  moment: { seq: number; at: number; envId: string },
  rule: EvidenceRule,
): boolean {
  const failures = trace.failures.filter(
    (failure) =>
      rule.by.has(failure.by) &&
      failure.seq < moment.seq &&
      (failure.envId === moment.envId || !eventRefused(trace, failure)),
  );
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

/**
 * Whether the failure event reporting `failure` was refused: the first fault in its environment
 * after it hit the control table's recordFailureEvent. When another fault came first, the failure
 * counts everywhere: the check stays on the strict side.
 */
function eventRefused(trace: Trace, failure: Failure): boolean {
  const next = trace.fired.find((fault) => fault.envId === failure.envId && fault.seq > failure.seq);
  return next?.point === RECORD_FAILURE_EVENT;
}

const RECORD_FAILURE_EVENT: FaultPoint = 'control.recordFailureEvent';

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
