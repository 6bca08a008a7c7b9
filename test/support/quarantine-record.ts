/**
 * A quarantine record as the consumer writes one (a message quarantined after three charged
 * crashes), for tests that need a record to act on; each test overrides what it is about.
 */
import { randomUUID } from 'node:crypto';
import { quarantineObjectKeys } from '../../lambdas/adapters/quarantine-writer';
import type { NewQuarantineRecord } from '../../lambdas/core/quarantine-record';

/** A fresh record id of the consumer's shape (`q-<16 hex>-g<generation>-a<attempts>`). */
export function newRecordId(): string {
  return `q-${randomUUID().replace(/-/g, '').slice(0, 16)}-g0-a3`;
}

export function aQuarantineRecord(
  sourceQueueArn: string,
  overrides: Partial<NewQuarantineRecord> = {},
): NewQuarantineRecord {
  const id = overrides.id ?? newRecordId();
  return {
    id,
    status: 'open',
    reason: 'crash-limit',
    cause: 'unidentified',
    messageKey: `key-${id}`,
    messageId: randomUUID(),
    generation: 0,
    attemptsStarted: 3,
    attemptsCharged: 3,
    stage: 'parsed',
    errorSignature: 'crash:parsed',
    firstAttemptAt: '2030-01-01T00:00:00.000Z',
    lastAttemptAt: '2030-01-01T00:05:00.000Z',
    createdAt: '2030-01-01T00:06:00.000Z',
    sourceQueueArn,
    ...quarantineObjectKeys(id),
    bodyBytes: 12,
    ...overrides,
  };
}
