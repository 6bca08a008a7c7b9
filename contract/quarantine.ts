/**
 * What the consumer, the operator CLI and the verification state machine share of a quarantine
 * record (docs/design.md, "Quarantine table"): its statuses, its reasons, the attributes the machine reads
 * and writes, and the operator's decisions on an outcome-unknown record with the status each
 * leads to. The consumer writes `open` and `awaiting-operator`, the operator CLI claims a replay
 * with `replaying`, and the verification state machine and the CLI close a record as `resolved`
 * or `replayed`. The record's other attributes are the runtime's alone
 * (lambdas/adapters/quarantine-item.ts).
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

/**
 * Why a message was quarantined (docs/design.md, "Quarantine reasons"): the consumer's core
 * decides them, `pq list --reason` and the console filter by them.
 */
export const QUARANTINE_REASONS = [
  'crash-limit',
  'permanent-error',
  'unknown-error-repeated',
  'transient-retries-exhausted',
  'outcome-unknown',
  'key-collision',
  'receive-limit',
  /** Taken by an operator from the backstop queue (`pq backstop take`): SQS moved it past our ledger. */
  'backstop',
] as const;

/** Why a message was quarantined: one of QUARANTINE_REASONS. */
export type QuarantineReason = (typeof QUARANTINE_REASONS)[number];

/** The quarantine table's indexes, by what they find (lib/quarantine-storage.ts makes them). */
export const QUARANTINE_INDEXES = {
  /** `status`, `createdAt`: pq list, status and the console. */
  byStatus: 'byStatus',
  /** `messageKey`, `createdAt`, keys only: pq find --key. */
  byMessageKey: 'byMessageKey',
  /** `messageId`, `createdAt`, keys only: pq find --message-id. */
  byMessageId: 'byMessageId',
} as const;

/** Quarantine record attributes the verification machine reads and writes (table key `id`). */
export const RECORD_ATTRIBUTES = {
  status: 'status',
  /** Read, never written by the machine: the ledger item a `done` completes. */
  messageKey: 'messageKey',
  /** Present only while the machine waits for the operator; a bearer secret. */
  taskToken: 'taskToken',
  waitingSince: 'waitingSince',
  /** `{ who, when, what, why }` entries: the machine appends the operator's decision. */
  audit: 'audit',
} as const;

/** `decision` of the operator's SendTaskSuccess output `{ decision, who, why, at }` (rule 8). */
export const VERIFY_DECISION = { done: 'done', notDone: 'not-done', discard: 'discard' } as const;

export type VerifyDecision = (typeof VERIFY_DECISION)[keyof typeof VERIFY_DECISION];

/**
 * Where each decision leaves the record: the verification machine moves it on so, and the CLI
 * does the same when no execution is left to wait.
 */
export const VERIFIED_STATUS = {
  [VERIFY_DECISION.done]: QUARANTINE_STATUS.resolved,
  [VERIFY_DECISION.notDone]: QUARANTINE_STATUS.replayed,
  [VERIFY_DECISION.discard]: QUARANTINE_STATUS.resolved,
} as const satisfies Record<VerifyDecision, QuarantineStatus>;

/**
 * Rule 11a's open records: the statuses that count toward the capacity (a record waiting for a
 * person's decision). `replaying` is a claim on its way out and counts no longer.
 */
export const COUNTED_STATUSES: readonly QuarantineStatus[] = [
  QUARANTINE_STATUS.open,
  QUARANTINE_STATUS.awaitingOperator,
];

/**
 * The count of open records, kept on one item of the quarantine table so that rule 11a reads one
 * item instead of counting the byStatus index. Every write that moves a record into or out of
 * COUNTED_STATUSES ADDs +1 or -1 to `openRecords` in the same transaction, and the record's own
 * condition guards it, so a retried write that finds its record already moved counts nothing.
 * The item has no `status`, so it is never in the byStatus index. `lastRecount` is
 * `{ who, when, why, was, counted }` of the last `pq recount`: one entry, not a trail, because
 * every quarantine writes this item and DynamoDB bills a write by the item's size.
 */
/**
 * How every record id begins (lambdas/core/ids.ts): the consumer's role may put items under such
 * ids only, so never the open-record counter.
 */
export const QUARANTINE_RECORD_ID_PREFIX = 'q-';

/**
 * How the id of a record taken from the backstop begins (lambdas/core/ids.ts): the operator may
 * put the content of such records only, never another record's.
 */
export const BACKSTOP_RECORD_ID_PREFIX = `${QUARANTINE_RECORD_ID_PREFIX}backstop-`;

export const OPEN_RECORDS_COUNTER = {
  key: { id: '#open-records' },
  attributes: { count: 'openRecords', lastRecount: 'lastRecount' },
} as const;
