/**
 * Message attributes poison-quarantine puts on a replayed message. The operator's replay
 * (lambdas/adapters/source-queue.ts) writes them; the consumer reads the key, so that a replay
 * lands on the original's ledger item (a fresh budget, one history) and not on a new one.
 */

/** Marks a replay; its value is the quarantine id replayed. */
export const REPLAY_OF_ATTRIBUTE = 'pq-replay-of';

/** The original message's key; the consumer uses it as the replay's key. */
export const MESSAGE_KEY_ATTRIBUTE = 'pq-message-key';
