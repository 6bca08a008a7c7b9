/**
 * Structured log events (`event` in the consumer's JSON log lines) that the construct's metric
 * filters count (lib/alarms.ts). The consumer writes them and the construct filters on them, so
 * each is spelled here once.
 */

/** The consumer found the breaker item unreadable and held its batch: nothing runs until a reset. */
export const BREAKER_UNREADABLE_LOG_EVENT = 'breaker-unreadable';

/** The consumer quarantined a message: the "Quarantined" alarm counts these lines. */
export const QUARANTINED_LOG_EVENT = 'quarantined';
