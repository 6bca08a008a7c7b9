/**
 * The quarantine's domain types: a record as the consumer writes it and as an operator reads it
 * (docs/design.md, "Quarantine table"). The adapters map them to and from table items
 * (adapters/quarantine-item.ts); the consumer writes them (adapters/quarantine-writer.ts) and the
 * operator CLI reads and changes them (adapters/quarantine-reader.ts).
 */
import type { QUARANTINE_STATUS, QuarantineStatus } from '../../contract/quarantine';
import type { ErrorEvidence, ExternalRecord, QuarantineReason } from './types';

/** Rule 4: every operator action, recorded on the record. */
export interface AuditEntry {
  readonly who: string;
  /** ISO-8601. */
  readonly when: string;
  readonly what: string;
  readonly why: string;
}

/** One item of the quarantine table (docs/design.md), as anyone but the state machine sees it. */
export interface QuarantineRecord {
  readonly id: string;
  readonly status: QuarantineStatus;
  readonly reason: QuarantineReason;
  /** `unidentified` until an operator sets it; replay is refused until then (rule 12). */
  readonly cause: string;
  readonly messageKey: string;
  readonly messageId: string;
  readonly generation: number;
  readonly attemptsStarted: number;
  readonly attemptsCharged: number;
  readonly stage: string;
  readonly lastError?: ErrorEvidence;
  /** Groups records failing the same way (core/evidence.ts `errorSignature`). */
  readonly errorSignature: string;
  /** ISO-8601. */
  readonly firstAttemptAt: string;
  readonly lastAttemptAt: string;
  readonly createdAt: string;
  readonly sourceQueueArn: string;
  /** FIFO only: the group, and that removing this message broke its order. */
  readonly messageGroupId?: string;
  readonly orderBroken?: boolean;
  readonly bodyKey: string;
  readonly envelopeKey: string;
  readonly bodyBytes: number;
  readonly external?: ExternalRecord;
  readonly audit: readonly AuditEntry[];
  /** ISO-8601: set by the state machine while it waits for the operator's decision. */
  readonly waitingSince?: string;
}

/** What the consumer writes: a fresh record, no cause yet, no audit yet. */
export type NewQuarantineRecord = Omit<QuarantineRecord, 'status' | 'cause' | 'audit' | 'waitingSince'> & {
  readonly status: typeof QUARANTINE_STATUS.open | typeof QUARANTINE_STATUS.awaitingOperator;
  readonly cause: 'unidentified';
};
