/**
 * How the operations state machines' executions are named (lambdas/core/ids.ts builds the names):
 * the consumer and the CLI start and describe them by name, and IAM scopes who may describe
 * them by these prefixes (lib/poison-quarantine.ts).
 */
export const EXECUTION_NAME_PREFIX = {
  /** `pause-<epoch>`, `pause-<epoch>-r<n>`: the runs of one pause episode. */
  pause: 'pause-',
  /** `ou-<quarantine id>`: the wait for an operator's answer on an outcome-unknown record. */
  outcomeUnknown: 'ou-',
} as const;

/**
 * `kind` of an execution input: each state machine accepts its own kind only and refuses any
 * other (lib/operations/pause-state-machine.ts, verification-state-machine.ts); the consumer and
 * the CLI start executions with it (lambdas/adapters/operations.ts).
 */
export const EXECUTION_INPUT_KIND = { outcomeUnknown: 'outcome-unknown', pause: 'pause' } as const;

/** Rule 8: wait for a person's answer on an outcome-unknown record (`ou-<quarantine id>`). */
export interface OutcomeUnknownExecutionInput {
  readonly kind: typeof EXECUTION_INPUT_KIND.outcomeUnknown;
  readonly quarantineId: string;
  readonly messageKey: string;
}

/** The pause's timings an input may carry; any left out fall back to the construct's values. */
export const PAUSE_TIMINGS = [
  'cooldownSeconds',
  'maxCooldownSeconds',
  'probeSeconds',
  'pollSeconds',
] as const;

/** Rules 7 and 11: disable the mapping, tell a person, and resume when it is time (`pause-<epoch>`). */
export interface PauseExecutionInput {
  readonly kind: typeof EXECUTION_INPUT_KIND.pause;
  readonly reason: string;
  readonly epoch: number;
  /**
   * Informational (what the starter saw): the run takes stop and reason from the breaker item of
   * its epoch, so no input can lift a stop (lib/operations/pause.ts).
   */
  readonly stop: boolean;
  /** The cool-down before a half-open probe, in seconds (doubles per failed probe). */
  readonly cooldownSeconds?: number;
  /** The cool-down's cap, in seconds. */
  readonly maxCooldownSeconds?: number;
  /** How long a half-open probe watches outcomes, in seconds. */
  readonly probeSeconds?: number;
  /** How often the machine polls the mapping until it reports Disabled, in seconds. */
  readonly pollSeconds?: number;
}

export type ExecutionInput = OutcomeUnknownExecutionInput | PauseExecutionInput;
