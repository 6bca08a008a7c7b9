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
