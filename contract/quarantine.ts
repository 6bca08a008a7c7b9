/**
 * The statuses of a quarantine record (docs/design.md, "Quarantine table"). The consumer writes
 * `open` and `awaiting-operator`, the operator CLI claims a replay with `replaying`, and the
 * verification state machine and the CLI close a record as `resolved` or `replayed`.
 */
export const QUARANTINE_STATUS = {
  open: 'open',
  awaitingOperator: 'awaiting-operator',
  /** Held by a plain replay from its claim until the message is sent (or the claim released). */
  replaying: 'replaying',
  resolved: 'resolved',
  replayed: 'replayed',
} as const;

export type QuarantineStatus = (typeof QUARANTINE_STATUS)[keyof typeof QUARANTINE_STATUS];
