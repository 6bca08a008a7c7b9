/**
 * How the operations state machine's executions are named (lambdas/core/ids.ts builds the names):
 * the consumer and the CLI start and describe them by name, and IAM scopes who may describe
 * them by these prefixes (lib/poison-quarantine.ts).
 */
export const EXECUTION_NAME_PREFIX = {
  /** `pause-<epoch>`, `pause-<epoch>-r<n>`: the runs of one pause episode. */
  pause: 'pause-',
  /** `ou-<quarantine id>`: the wait for an operator's answer on an outcome-unknown record. */
  outcomeUnknown: 'ou-',
} as const;
