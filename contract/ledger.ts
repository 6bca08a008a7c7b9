/**
 * The states of an attempts ledger item (docs/design.md, "Attempts table"). The consumer moves
 * an item through them, the operator CLI resets and reads them for a replay, and the
 * verification state machine completes a quarantined item when the operator answers `done`.
 */
export const LEDGER_STATE = {
  /** An attempt started and has not ended (or its environment died). */
  inFlight: 'in-flight',
  /** The last attempt ended in a retryable error: the start write may admit the next one. */
  ready: 'ready',
  /** Done, never run again: every later delivery is a duplicate (rule 13). */
  completed: 'completed',
  /** Quarantined under the item's `quarantineId`; only an operator's replay resets it. */
  quarantined: 'quarantined',
} as const;

export type LedgerState = (typeof LEDGER_STATE)[keyof typeof LEDGER_STATE];
