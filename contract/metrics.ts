/**
 * The metrics poison-quarantine publishes and the names its dashboard and alarms read them by.
 * The consumer writes its counts in CloudWatch's embedded metric format (EMF) to its own log, as
 * an attempt's work starts and as an invocation ends: no API call, nothing a record waits for
 * (lambdas/consumer/metrics.ts). The construct (lib/metrics.ts, lib/dashboard.ts, lib/alarms.ts)
 * reads the same names, so neither side can drift.
 */

import { PAUSE_REASONS } from './control';
import { QUARANTINE_REASONS } from './quarantine';

/** Every metric of poison-quarantine: the consumer's, its log filters' and the state machines'. */
export const METRIC_NAMESPACE = 'PoisonQuarantine';

/**
 * The consumer's metrics carry Powertools' `service` dimension with this value, besides `Queue`:
 * a CloudWatch series is its exact set of dimensions, so an alarm has to name both.
 */
export const METRIC_SERVICE = 'poison-quarantine';

export const METRIC_DIMENSION = {
  /** Powertools' own dimension (METRIC_SERVICE). */
  service: 'service',
  /** The source queue's ARN: each pipeline's series apart, as its log filters and state machines do. */
  queue: 'Queue',
  /** Why: a second series of the counts kept by reason (BY_REASON), beside their total. */
  reason: 'Reason',
} as const;

/** The consumer's counts (docs/behaviour.md names the rules). */
export const CONSUMER_METRIC = {
  /** Attempts recorded on the ledger before their work started (rule 1), restarts after a crash included. */
  attempts: 'AttemptsStarted',
  /** Records handed back with a backoff delay to be tried again: a transient error, or a delivery still at work. */
  retries: 'Retries',
  /** Crashes charged to their message (rule 5): the crashed attempt settled with a charge. */
  chargedCrashes: 'ChargedCrashes',
  /** Quarantine records created (rule 3). */
  quarantines: 'Quarantines',
  /** Outcome-unknown quarantine records (rule 8): each waits for a person to check the outside system. */
  outcomeUnknown: 'OutcomeUnknown',
  /** Breaker trips: consumption paused for an outage (rule 7) or stopped for a person (rule 11). */
  breakerTrips: 'BreakerTrips',
  /** Half-open probes that succeeded (rule 7). */
  probeSuccesses: 'ProbeSuccesses',
  /** Half-open probes that failed, a message's repeated failure included (rule 7). */
  probeFailures: 'ProbeFailures',
  /** Isolation trials started or restarted by a crash nobody could be blamed for (rule 6). */
  isolationTrials: 'IsolationTrials',
  /** Deliveries of a message already completed or quarantined, acknowledged without work (rule 13). */
  duplicates: 'Duplicates',
} as const;

/** The name of one of the consumer's counts: a value of CONSUMER_METRIC. */
export type ConsumerMetric = (typeof CONSUMER_METRIC)[keyof typeof CONSUMER_METRIC];

/**
 * Counted twice: in total, and per `Reason` (a quarantine's reason, a trip's pause reason), with
 * the reasons each has a series of. The total is what an alarm watches: an alarm cannot add up
 * series it does not know in advance.
 */
export const REASONS_OF: Readonly<Partial<Record<ConsumerMetric, readonly string[]>>> = {
  [CONSUMER_METRIC.quarantines]: QUARANTINE_REASONS,
  [CONSUMER_METRIC.breakerTrips]: PAUSE_REASONS,
};

export const BY_REASON = Object.keys(REASONS_OF) as readonly ConsumerMetric[];
