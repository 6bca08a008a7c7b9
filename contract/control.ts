/**
 * The circuit breaker's item of the control table, which three processes share: the consumer
 * trips it and counts probes on it, the pause state machine drives a pause on it, and the
 * operator CLI answers and resets it. Its key, attributes, states and operator actions are
 * spelled here once; every write and read of the item builds its expressions from them
 * (docs/design.md, "Control table", tells what each attribute means).
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
  /** An OPERATOR_ACTION, set by the operator CLI; the pause machine reads it at every loop point. */
  operatorAction: 'operatorAction',
  /** Present only while the pause machine waits for the operator; a bearer secret. */
  taskToken: 'taskToken',
  waitingSince: 'waitingSince',
  /** The operators' trail (`{ who, when, what, why }` entries), written by the CLI. */
  audit: 'audit',
  /** An `audit` that was no list (edited by hand), kept aside as it was when the CLI began a new trail. */
  garbledAudit: 'garbledAudit',
} as const;

/**
 * `state` of the breaker item: the consumer trips it open; the pause state machine makes it
 * half-open for a probe, and closed, or open again.
 */
export const BREAKER_STATE = { open: 'open', halfOpen: 'half-open', closed: 'closed' } as const;

/** What the operator CLI sets in `operatorAction` and sends as `action` in SendTaskSuccess. */
export const OPERATOR_ACTION = { resume: 'resume', hold: 'hold' } as const;

export type BreakerAction = (typeof OPERATOR_ACTION)[keyof typeof OPERATOR_ACTION];

/**
 * The half-open footprint: one record per invocation, the mapping's smallest concurrency. The
 * pause state machine enables the mapping at it for each probe window, so that a probe risks
 * as little as it can; the consumer's probes arrive in batches this small.
 */
export const PROBE_FOOTPRINT = { batchSize: 1, maxConcurrency: 2 } as const;
