/**
 * Deterministic names. A quarantine interrupted half-way is finished on the next try, not
 * duplicated, because every step (S3 objects, the record, the execution) reuses the same id.
 * node:crypto's hash is deterministic, so it belongs here as much as any arithmetic.
 */

import { createHash } from 'node:crypto';
import { EXECUTION_NAME_PREFIX } from '../../contract/executions';
import { BACKSTOP_RECORD_ID_PREFIX, QUARANTINE_RECORD_ID_PREFIX as Q } from '../../contract/quarantine';

/** `q-<sha256(message key) first 16 hex>-g<generation>-a<attempts started>` (docs/design.md). */
export function quarantineId(messageKey: string, generation: number, attemptsStarted: number): string {
  const digest = sha256(messageKey).slice(0, 16);
  return `${Q}${digest}-g${generation}-a${attemptsStarted}`;
}

/**
 * The quarantine id of a message that collided with another's key: its own, so it never meets
 * the record of the message whose key it carries. `q-<key digest>-c<messageId digest>`.
 */
export function collisionQuarantineId(messageKey: string, messageId: string): string {
  return `${Q}${sha256(messageKey).slice(0, 16)}-c${sha256(messageId).slice(0, 16)}`;
}

/**
 * The record of a message taken from the backstop queue: one per SQS message, so a take cut short
 * and run again finishes the same record. `q-backstop-<sha256(messageId) first 32 hex>`.
 */
export function backstopQuarantineId(messageId: string): string {
  return `${BACKSTOP_RECORD_ID_PREFIX}${sha256(messageId).slice(0, 32)}`;
}

/** sha256 of a body as SQS delivered it (UTF-8): tells the same content from other content. */
export function bodyDigest(body: string): string {
  return sha256(body);
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Step Functions execution names: at most 80 characters of [A-Za-z0-9-_]. A quarantine id is
 * at most 2 + 16 + 2 + 16 + 2 + 16 characters for safe integers, so both names fit.
 */
export function outcomeUnknownExecutionName(quarantineId: string): string {
  return `${EXECUTION_NAME_PREFIX.outcomeUnknown}${quarantineId}`;
}

/**
 * One pause episode (breaker epoch) may need several runs: a run that failed or was stopped
 * while the breaker stayed open is replaced by the next (`pause-<epoch>-r2`, ...).
 */
export function pauseExecutionName(epoch: number, run = 1): string {
  const name = `${EXECUTION_NAME_PREFIX.pause}${epoch}`;
  return run === 1 ? name : `${name}-r${run}`;
}
