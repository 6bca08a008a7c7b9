/**
 * Quarantine-table item <-> QuarantineRecord (docs/design.md, "Quarantine table"), attribute
 * by attribute. The attributes the verification state machine shares are named by
 * contract/quarantine.ts (`R.*`); the others are the runtime's own. `taskToken` is the state
 * machine's: never written here, never read back here.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type QuarantineStatus, RECORD_ATTRIBUTES as R } from '../../contract/quarantine';
import type { AuditEntry, NewQuarantineRecord, QuarantineRecord } from '../core/quarantine-record';
import type { QuarantineReason } from '../core/types';
import {
  BOOL,
  compact,
  defined,
  evidenceFromItem,
  evidenceToAttribute,
  externalFromItem,
  externalToAttribute,
  type Item,
  ItemReader,
  L,
  M,
  N,
  optional,
  S,
} from './attribute-values';

/** Every attribute of a record but `taskToken`: what `toQuarantineRecord` reads. */
export const RECORD_READ_ATTRIBUTES = [
  'id',
  R.status,
  'reason',
  'cause',
  R.messageKey,
  'messageId',
  'generation',
  'attemptsStarted',
  'attemptsCharged',
  'stage',
  'lastError',
  'errorSignature',
  'firstAttemptAt',
  'lastAttemptAt',
  'createdAt',
  'sourceQueueArn',
  'messageGroupId',
  'orderBroken',
  'bodyKey',
  'envelopeKey',
  'bodyBytes',
  'external',
  R.audit,
  R.waitingSince,
] as const;

/** A new record -> item, attribute by attribute, with an empty audit (no task token: the state machine's). */
export function quarantineRecordItem(record: NewQuarantineRecord): Item {
  return compact({
    id: S(record.id),
    [R.status]: S(record.status),
    reason: S(record.reason),
    cause: S(record.cause),
    [R.messageKey]: S(record.messageKey),
    messageId: S(record.messageId),
    generation: N(record.generation),
    attemptsStarted: N(record.attemptsStarted),
    attemptsCharged: N(record.attemptsCharged),
    stage: S(record.stage),
    lastError: optional(record.lastError, evidenceToAttribute),
    errorSignature: S(record.errorSignature),
    firstAttemptAt: S(record.firstAttemptAt),
    lastAttemptAt: S(record.lastAttemptAt),
    createdAt: S(record.createdAt),
    sourceQueueArn: S(record.sourceQueueArn),
    messageGroupId: optional(record.messageGroupId, S),
    orderBroken: optional(record.orderBroken, BOOL),
    bodyKey: S(record.bodyKey),
    envelopeKey: S(record.envelopeKey),
    bodyBytes: N(record.bodyBytes),
    external: optional(record.external, externalToAttribute),
    [R.audit]: L([]),
  });
}

export function auditEntryAttribute(entry: AuditEntry): AttributeValue {
  return M({ who: S(entry.who), when: S(entry.when), what: S(entry.what), why: S(entry.why) });
}

/** Item -> domain; reads only the record's own attributes, so a task token can never slip in. */
export function toQuarantineRecord(item: Item): QuarantineRecord {
  const read = new ItemReader(item, 'quarantine record');
  const optionals = defined({
    lastError: evidenceFromItem(read.optionalMap('lastError')),
    messageGroupId: read.optionalString('messageGroupId'),
    orderBroken: item.orderBroken === undefined ? undefined : read.boolean('orderBroken'),
    external: externalFromItem(read.optionalMap('external')),
    waitingSince: read.optionalString(R.waitingSince),
  });
  return {
    id: read.string('id'),
    status: read.string(R.status) as QuarantineStatus,
    reason: read.string('reason') as QuarantineReason,
    cause: read.string('cause'),
    messageKey: read.string(R.messageKey),
    messageId: read.string('messageId'),
    generation: read.number('generation'),
    attemptsStarted: read.number('attemptsStarted'),
    attemptsCharged: read.number('attemptsCharged'),
    stage: read.string('stage'),
    errorSignature: read.string('errorSignature'),
    firstAttemptAt: read.string('firstAttemptAt'),
    lastAttemptAt: read.string('lastAttemptAt'),
    createdAt: read.string('createdAt'),
    sourceQueueArn: read.string('sourceQueueArn'),
    bodyKey: read.string('bodyKey'),
    envelopeKey: read.string('envelopeKey'),
    bodyBytes: read.number('bodyBytes'),
    ...optionals,
    audit: read.list(R.audit).map((entry) => ({
      who: entry.string('who'),
      when: entry.string('when'),
      what: entry.string('what'),
      why: entry.string('why'),
    })),
  };
}
