/**
 * Items of the control table that more than one process reads or writes. The consumer trips and
 * probes the breaker, the pause state machine drives a pause on it, and the operator CLI
 * answers and resets it: all three address it by this key.
 */

/** The control table item of the circuit breaker. */
export const BREAKER_KEY = { pk: 'breaker', sk: 'state' } as const;
