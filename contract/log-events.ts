/**
 * Structured log events (`event` in the consumer's JSON log lines) that the construct's metric
 * filters count (lib/alarms.ts). The consumer writes them and the construct filters on them, so
 * each is spelled here once.
 */

/** The consumer found the breaker item unreadable and held its batch: nothing runs until a reset. */
export const BREAKER_UNREADABLE_LOG_EVENT = 'breaker-unreadable';

/** The consumer quarantined a message: the "Quarantined" alarm counts these lines. */
export const QUARANTINED_LOG_EVENT = 'quarantined';

/**
 * One record's outcome and the AWS calls made for it (lambdas/consumer/batch.ts): INFO, but DEBUG
 * for a completed record, so that a healthy message writes one line at the default level. The
 * local AWS runs the consumer at DEBUG: the rehearsal and the bench read every one of these
 * lines (local/consumer-log.ts).
 */
export const RECORD_LOG_EVENT = 'record';

/** The message of a RECORD_LOG_EVENT line. */
export const RECORD_PROCESSED_MESSAGE = 'record processed';

/**
 * A batch made the records behind its first crash suspect invisible past its deadline, each a
 * little later (rule 6, lambdas/core/suspects.ts): if the suspect crashes, they come back apart.
 */
export const SUSPECTS_STAGGERED_LOG_EVENT = 'suspects-staggered';

/**
 * The time guard handed records back unrun (lambdas/core/time-guard.ts): WARN, once per
 * invocation. Each such record costs a receive toward the backstop, so a batch whose work does
 * not fit the function timeout should be made smaller, or the timeout longer.
 */
export const TIME_GUARD_CUT_LOG_EVENT = 'time-guard-cut';

/**
 * Kafka: an attempt's lease (lambdas/core/lease.ts) lapsed before its worker renewed it: WARN. The
 * worker was too slow to show itself alive (a blocked event loop, slow writes), so a delivery of
 * the same record elsewhere (a rebalance) may have taken it for dead and run the record again.
 */
export const ATTEMPT_LEASE_LATE_LOG_EVENT = 'attempt-lease-late';

/**
 * Kafka: a redelivery found a crashed attempt's lease still running and had no time left to wait
 * for it and still finish the record (lambdas/consumer/attempt-lease.ts): WARN. The record stays
 * for the next invocation, so its partition is held one invocation more than the crash's own. A
 * longer function timeout, or a smaller batch, leaves the time.
 */
export const LEASE_WAIT_NO_TIME_LOG_EVENT = 'lease-wait-no-time';
