/**
 * The control table's items that three processes share: the circuit breaker, which the consumer
 * trips and counts probes on and the pause state machine drives; the stop requests the consumer
 * adds; and what only operators and the pause machine decide (an episode's answer, the stops
 * lifted, the replay freeze), under a partition the consumer's role cannot write. Keys,
 * attributes, states and operator actions are spelled here once; every write and read builds its
 * expressions from them (docs/design.md, "Control table", tells what each attribute means).
 */

/** The control table item of the circuit breaker. */
export const BREAKER_KEY = { pk: 'breaker', sk: 'state' } as const;

/** Breaker item attributes. The consumer ADDs 1 to the probe counters while the state is half-open. */
export const BREAKER_ATTRIBUTES = {
  state: 'state',
  reason: 'reason',
  /** +1 per trip: names the pause execution of the episode. */
  epoch: 'epoch',
  stop: 'stop',
  openedAt: 'openedAt',
  disabledAt: 'disabledAt',
  halfOpenAt: 'halfOpenAt',
  closedAt: 'closedAt',
  cooldownSeconds: 'cooldownSeconds',
  originalBatchSize: 'originalBatchSize',
  /** 0 when the mapping had no ScalingConfig: restored without one. */
  originalMaxConcurrency: 'originalMaxConcurrency',
  probeSuccesses: 'probeSuccesses',
  probeFailures: 'probeFailures',
  /** Of the failures, those of messages that had failed a probe before: they decide nothing. */
  probeRepeatFailures: 'probeRepeatFailures',
  /** Of the failures, records our own tables failed: the window proves nothing, and reopens. */
  probeOwnFailures: 'probeOwnFailures',
  /** The trail of `pq reset-breaker` (`{ who, when, what, why }` entries). */
  audit: 'audit',
} as const;

/**
 * Partitions of the control table the consumer's role may write (lib/poison-quarantine.ts
 * grants PutItem and UpdateItem on these leading keys only).
 */
export const CONSUMER_PARTITIONS = {
  breaker: BREAKER_KEY.pk,
  isolation: 'isolation',
  failure: 'failure',
  crash: 'crash',
  lostCompletion: 'lost-completion',
  /** One item per stop trip (rule 11): the consumer adds them and, holding no DeleteItem, never removes one. */
  stop: 'stop',
} as const;

/**
 * The partition only operators and the pause state machine write: the consumer's role holds no
 * write on it, so nothing the consumer does can answer a pause, lift a stop or thaw replay.
 */
export const OPERATOR_PARTITION = 'operator';

/** Sort keys of the operator partition. */
export const OPERATOR_ITEMS = {
  /** `answer#<epoch>`: the operator's answer to one pause episode, and its wait's task token. */
  answerPrefix: 'answer#',
  /** The stop requests an operator lifted: `liftedThrough`. */
  stopsLifted: 'stops-lifted',
  /** Rule 11c: `{ frozen, who, when, why, audit }`. */
  replayFreeze: 'replay-freeze',
} as const;

/** The answer item of an episode: the sort key the CLI and the pause machine both build. */
export const answerSortKey = (epoch: number) => `${OPERATOR_ITEMS.answerPrefix}${epoch}`;

/** Attributes of an episode's answer item (`answer#<epoch>`). */
export const ANSWER_ATTRIBUTES = {
  /** An OPERATOR_ACTION, set by the operator CLI; the pause machine reads it at every loop point. */
  action: 'action',
  /** The newest stop request this answer lifted (a `stop` sort key), when it is a resume. */
  liftedThrough: 'liftedThrough',
  /** Present only while the pause machine waits for the operator; a bearer secret. */
  taskToken: 'taskToken',
  waitingSince: 'waitingSince',
  /** The operators' trail (`{ who, when, what, why }` entries), written by the CLI. */
  audit: 'audit',
  /** An `audit` that was no list (edited by hand), kept aside as it was when the CLI began a new trail. */
  garbledAudit: 'garbledAudit',
} as const;

/**
 * Attributes of the stop requests lifted (`stops-lifted`): `liftedThrough` is the newest stop
 * request (its sort key) an operator's resume ended; every request after it is in force.
 */
export const STOPS_LIFTED_ATTRIBUTES = { liftedThrough: 'liftedThrough' } as const;

/** A stop request's sort key: when it was made, and why (two at one millisecond are one request). */
export const stopRequestSortKey = (at: Date, reason: string) => `${at.toISOString()}#${reason}`;

/**
 * `state` of the breaker item: the consumer trips it open; the pause state machine makes it
 * half-open for a probe, and closed, or open again.
 */
export const BREAKER_STATE = { open: 'open', halfOpen: 'half-open', closed: 'closed' } as const;

/** What the operator CLI sets in an answer's `action` and sends as `action` in SendTaskSuccess. */
export const OPERATOR_ACTION = { resume: 'resume', hold: 'hold' } as const;

export type BreakerAction = (typeof OPERATOR_ACTION)[keyof typeof OPERATOR_ACTION];

/**
 * The half-open footprint: one record per invocation, the mapping's smallest concurrency. The
 * pause state machine enables the mapping at it for each probe window, so that a probe risks
 * as little as it can; the consumer's probes arrive in batches this small.
 */
export const PROBE_FOOTPRINT = { batchSize: 1, maxConcurrency: 2 } as const;

/**
 * Why the consumer pauses by itself: rule 7's outage, or one of rule 11's stops. Also the
 * `Reason` of its BreakerTrips metric.
 */
export const PAUSE_REASONS = [
  'quarantine-unwritable',
  'quarantine-capacity',
  'quarantine-share',
  'outage',
] as const;
export type PauseReason = (typeof PAUSE_REASONS)[number];
