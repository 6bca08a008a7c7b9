/**
 * What only the operations state machines use: the metrics they publish, their limits and the
 * error names of their Fail states. Every name they share with the consumer and the operator
 * CLI lives in contract/, which both sides import: execution inputs (executions.ts), the breaker
 * item's key, attributes, states, operator actions and probe footprint (control.ts), quarantine
 * record attributes, statuses and operator decisions (quarantine.ts), and ledger states
 * (ledger.ts). docs/design.md lists them, and the state machine tests in test/cdk/ pin them in
 * the synthesized definitions.
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
