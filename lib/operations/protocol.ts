/**
 * What only the operations state machines need: the item attributes they read and write, the
 * task outputs they accept, their limits and their Fail states. The names they share with the
 * consumer and the operator CLI (execution inputs, the breaker key, quarantine statuses) live in
 * contract/, which both sides import; docs/design.md lists them and the state machine tests in
 * test/cdk/ pin them in the synthesized definitions.
 */

/**
 * Metrics the machines publish (namespace METRIC_NAMESPACE, dimension `Queue` = the source
 * queue's ARN), which lib/alarms.ts watches.
 */
export const OPERATIONS_METRIC = {
  /**
   * How long a pause has kept consumption stopped so far, in seconds: published when a window's
   * probes failed (its cool-down and probe window counted) and when an operator wait is overdue
   * (the heartbeat counted).
   */
  pausedSeconds: 'PausedSeconds',
  /** An outcome-unknown record waited a whole operator heartbeat without an answer. */
  decisionOverdue: 'OperatorDecisionOverdue',
} as const;

/** Breaker item attributes. The consumer ADDs 1 to the probe counters while the state is half-open. */
export const BREAKER_ATTRIBUTES = {
  state: 'state',
  reason: 'reason',
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
  /** 'resume' | 'hold', set by the operator CLI; read at every loop point. */
  operatorAction: 'operatorAction',
  /** Present only while the pause machine waits for the operator; a bearer secret. */
  taskToken: 'taskToken',
  waitingSince: 'waitingSince',
} as const;

export const BREAKER_STATE = { open: 'open', halfOpen: 'half-open', closed: 'closed' } as const;

/** What the operator CLI sets in `operatorAction` and sends as `action` in SendTaskSuccess. */
export const OPERATOR_ACTION = { resume: 'resume', hold: 'hold' } as const;

/** Quarantine record attributes the verification machine writes (table key `id`). */
export const RECORD_ATTRIBUTES = {
  status: 'status',
  /** Read, never written: the ledger item a `done` completes. */
  messageKey: 'messageKey',
  taskToken: 'taskToken',
  waitingSince: 'waitingSince',
  audit: 'audit',
} as const;

/** `decision` of the operator's SendTaskSuccess output `{ decision, who, why, at }`. */
export const DECISION = { done: 'done', notDone: 'not-done', discard: 'discard' } as const;

/** The attempts ledger state a `done` decision sets: completed, never replayed. */
export const LEDGER_COMPLETED = 'completed';
/** The ledger state a `done` decision finds: the item still holds this quarantine. */
export const LEDGER_QUARANTINED = 'quarantined';

/** The half-open footprint: one record per invocation, the mapping's smallest concurrency. */
export const PROBE_FOOTPRINT = { batchSize: 1, maxConcurrency: 2 } as const;

/** Polls of the mapping's state (every `pollSeconds`) before a pause gives up and alerts. */
export const DISABLE_POLL_LIMIT = 60;

/** Error names of the machines' Fail states. */
export const FAILURE = {
  invalidInput: 'InvalidInput',
  recordNotOpen: 'QuarantineRecordNotOpen',
  recordNotAwaiting: 'QuarantineRecordNotAwaiting',
  ledgerNotHoldingQuarantine: 'LedgerNotHoldingQuarantine',
  invalidDecision: 'InvalidDecision',
  verificationFailed: 'VerificationFailed',
  mappingNotDisabled: 'MappingNotDisabled',
  pauseFailed: 'PauseFailed',
} as const;
