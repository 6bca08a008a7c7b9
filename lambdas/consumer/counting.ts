/**
 * Where the consumer's metrics are counted: at the ports, when a write confirms what happened (an
 * attempt started, a trip won, a record created), and per record outcome in the batch. So the
 * orchestration holds no metric calls of its own, and a write that failed counts nothing.
 */
import { CONSUMER_METRIC, type ConsumerMetric } from '../../contract/metrics';
import type { ConsumerPorts, ControlPort, LedgerPort, QuarantineStorePort } from '../ports/consumer-ports';
import type { ConsumerMetrics } from './metrics';
import type { RecordOutcome } from './record-outcome';

/** The ports of one execution environment, counting into `metrics` (which never throw: loggingFailures). */
export function countedPorts(ports: ConsumerPorts, metrics: ConsumerMetrics): ConsumerPorts {
  return {
    operations: ports.operations,
    queue: ports.queue,
    ledger: countedLedger(ports.ledger, metrics),
    control: countedControl(ports.control, metrics),
    quarantine: afterCalls<QuarantineStorePort>(ports.quarantine, {
      putRecord: (result, record) => {
        if (!result.created) return;
        metrics.count(CONSUMER_METRIC.quarantines, record.reason);
        if (record.reason === 'outcome-unknown') metrics.count(CONSUMER_METRIC.outcomeUnknown);
      },
    }),
  };
}

const OUTCOME_METRIC: Partial<Record<RecordOutcome['kind'], ConsumerMetric>> = {
  retry: CONSUMER_METRIC.retries,
  duplicate: CONSUMER_METRIC.duplicates,
};

/** What a record's outcome alone tells: a retry, or a duplicate acknowledged without work. */
export function countOutcome(metrics: ConsumerMetrics, outcome: RecordOutcome): void {
  const metric = OUTCOME_METRIC[outcome.kind];
  if (metric !== undefined) metrics.count(metric);
}

/**
 * An attempt's start publishes what was counted so far: the user's work runs next and may kill
 * the worker, and a poison message that does so every time would otherwise take every count of
 * its crashes with it. A crash is charged either by the restart that settles it or by the
 * quarantine it completes the limit of: a charged decision without a caught error. That one
 * counts when its mark lands, so a quarantine another delivery finishes (begun again under the
 * same id) counts once.
 */
function countedLedger(ledger: LedgerPort, metrics: ConsumerMetrics): LedgerPort {
  // Quarantines begun for a charged crash, by id, until marked. One that is never marked here
  // stopped the consumer (rule 11a), so the set stays as small as the stops it saw.
  const crashCharged = new Set<string>();
  return afterCalls<LedgerPort>(ledger, {
    start: (result) => {
      if (!result.started) return;
      metrics.count(CONSUMER_METRIC.attempts);
      metrics.flush();
    },
    restartAfterCrash: (result, input) => {
      if (!result.started) return;
      metrics.count(CONSUMER_METRIC.attempts);
      if (input.charge > 0) metrics.count(CONSUMER_METRIC.chargedCrashes);
      metrics.flush();
    },
    beginQuarantine: (_, _key, _attemptId, intent) => {
      if (intent.charge > 0 && intent.error === undefined) crashCharged.add(intent.id);
    },
    markQuarantined: (_, _key, mark) => {
      if (crashCharged.delete(mark.quarantineId)) metrics.count(CONSUMER_METRIC.chargedCrashes);
    },
  });
}

function countedControl(control: ControlPort, metrics: ConsumerMetrics): ControlPort {
  // The crashes whose trial this environment counted. A trial is claimed once per crash, but every
  // caller gets the trial as it stands: the one that started it is the caller whose own start time
  // it carries (two environments claiming in the same millisecond would both count it).
  const trialCauses = new Set<string>();
  return afterCalls<ControlPort>(control, {
    tripBreaker: (result, trip) => {
      if (result.tripped) metrics.count(CONSUMER_METRIC.breakerTrips, trip.reason);
    },
    recordProbe: (result, probe) => {
      if (!result.counted) return;
      metrics.count(probe === 'success' ? CONSUMER_METRIC.probeSuccesses : CONSUMER_METRIC.probeFailures);
    },
    startIsolation: (trial, start) => {
      if (!trial.active || trial.startedAt !== start.now.getTime() || trialCauses.has(start.cause)) return;
      trialCauses.add(start.cause);
      metrics.count(CONSUMER_METRIC.isolationTrials);
    },
  });
}

type AfterCall<F> = F extends (...args: infer A) => Promise<infer R>
  ? (result: R, ...args: A) => void
  : never;

/** The port, with `after[method]` run once a call of that method has resolved. */
function afterCalls<T extends object>(port: T, after: { readonly [K in keyof T]?: AfterCall<T[K]> }): T {
  return new Proxy(port, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      const observe = after[property as keyof T] as
        | ((result: unknown, ...args: unknown[]) => void)
        | undefined;
      if (observe === undefined) return value.bind(target);
      return async (...args: unknown[]) => {
        const result: unknown = await value.apply(target, args);
        observe(result, ...args);
        return result;
      };
    },
  });
}
