/**
 * Rule 3: a quarantine is content + evidence, written durably BEFORE the message is
 * acknowledged. Order: the decision on the ledger item (`beginQuarantine`), body and envelope to
 * S3, the record to the quarantine table, the operator's execution for "outcome unknown", then
 * the ledger's mark. Every step is idempotent under the one id, and the next delivery finds the
 * begun decision (core/delivery.ts `finish-quarantine`), so a quarantine interrupted half-way is
 * finished, never written twice. If any step fails the message stays in the queue and the
 * consumer stops (rule 11a).
 */

import { QUARANTINED_LOG_EVENT } from '../../contract/log-events';
import { QUARANTINE_STATUS } from '../../contract/quarantine';
import { errorSignature } from '../core/evidence';
import { quarantineId } from '../core/ids';
import { shouldStopQuarantine } from '../core/quarantine-share';
import type { ErrorEvidence, LedgerItem, QuarantineReason } from '../core/types';
import { exactBody, type SourceRecord } from '../ports/source';
import type { ConsumerDeps } from './deps';
import { onLastReceive } from './last-receive';
import { pauseConsumption } from './outage-watch';
import type { RecordOutcome, RecordSession } from './record-outcome';
import type { ShareWindow } from './share-window';

export interface QuarantineRequest {
  readonly record: SourceRecord;
  /** The ledger item as it stands: attempts, charges, stage, times. */
  readonly item: LedgerItem;
  readonly reason: QuarantineReason;
  /** Charges this decision adds to the item's. */
  readonly charge: number;
  /** The error that decided it; a crash has none (the item keeps the last caught one). */
  readonly error?: ErrorEvidence;
  /** @default - derived from the item's key, generation and attempts */
  readonly id?: string;
  /**
   * Whether the ledger item becomes `quarantined`. A key collision's item belongs to the other
   * message, so it is left alone. @default true
   */
  readonly markLedger?: boolean;
}

export type QuarantineOutcome =
  | { readonly kind: 'quarantined'; readonly quarantineId: string }
  | {
      readonly kind: 'stopped';
      readonly why: 'quarantine-share' | 'quarantine-capacity' | 'quarantine-unwritable';
    };

export async function quarantineMessage(
  deps: ConsumerDeps,
  shares: ShareWindow,
  request: QuarantineRequest,
): Promise<QuarantineOutcome> {
  const { record, item, reason } = request;
  // A receive-limit quarantine only keeps a message from the backstop, and says nothing of
  // poison: records held together reach their last receive together, and a share stop would
  // send the rest past the quarantine. Rule 11b neither counts nor stops it, nor any quarantine
  // on a last receive: handed back, the message would reach the backstop with no record.
  const counted = reason !== 'receive-limit' && !onLastReceive(deps, record);
  // Rule 11b: many quarantines at once look like an outage, not poison. Stop quarantining.
  if (counted && shouldStopQuarantine(shares.peek('quarantined'), deps.config.policy)) {
    deps.logger.error('quarantine share above threshold: pausing instead of quarantining', {
      event: 'quarantine-share-exceeded',
    });
    shares.stoppedIn(await pauseConsumption(deps, 'quarantine-share'));
    return { kind: 'stopped', why: 'quarantine-share' };
  }
  const id = request.id ?? quarantineId(item.key, item.generation, item.attempts);
  try {
    // Rule 11a: a quarantine at capacity is a reason to stop, not to keep filling it.
    if (await deps.quarantine.openRecordsAtLeast(deps.config.quarantineCapacity)) {
      deps.logger.error('quarantine at capacity: stopping the consumer', {
        event: 'quarantine-capacity',
        capacity: deps.config.quarantineCapacity,
      });
      await pauseConsumption(deps, 'quarantine-capacity');
      return { kind: 'stopped', why: 'quarantine-capacity' };
    }
    await writeQuarantine(deps, request, id);
  } catch (error) {
    deps.logger.error('quarantine could not be written: stopping the consumer', {
      event: 'quarantine-unwritable',
      quarantineId: id,
      error: error as Error,
    });
    await pauseConsumption(deps, 'quarantine-unwritable');
    return { kind: 'stopped', why: 'quarantine-unwritable' };
  }
  if (counted) shares.record('quarantined');
  // The metric filter behind the "quarantined" alarm matches this line (lib/alarms.ts).
  deps.logger.warn('message quarantined', {
    event: QUARANTINED_LOG_EVENT,
    quarantineId: id,
    reason,
    messageId: record.messageId,
    sourceQueue: record.eventSourceARN,
  });
  return { kind: 'quarantined', quarantineId: id };
}

/** A key collision's item belongs to the other message: its quarantine leaves the item alone. */
function marksLedger(request: QuarantineRequest): boolean {
  return request.markLedger !== false;
}

async function writeQuarantine(deps: ConsumerDeps, request: QuarantineRequest, id: string): Promise<void> {
  const { record, item, reason } = request;
  const now = deps.now().toISOString();
  const lastError = request.error ?? item.lastError;
  if (marksLedger(request)) {
    // Before any content: whoever delivers the message next finishes this quarantine, not another.
    const { charge, error } = request;
    await deps.ledger.beginQuarantine(item.key, item.attemptId, {
      id,
      reason,
      charge,
      ...(error === undefined ? {} : { error }),
    });
  }
  const fifoGroup = record.orderGroup;
  const evidence = {
    quarantineId: id,
    reason,
    messageKey: item.key,
    messageId: record.messageId,
    generation: item.generation,
    attemptsStarted: item.attempts,
    attemptsCharged: item.charged + request.charge,
    stage: item.stage,
    lastError,
    firstAttemptAt: item.firstAttemptAt,
    lastAttemptAt: item.lastAttemptAt,
    external: item.external,
    sourceQueueArn: record.eventSourceARN,
    ...(fifoGroup === undefined ? {} : { messageGroupId: fifoGroup, orderBroken: true }),
  };
  const stored = await deps.quarantine.putContent(id, {
    ...exactBody(record),
    envelope: {
      ...evidence,
      attributes: record.attributes,
      messageAttributes: record.messageAttributes,
      md5OfBody: record.md5OfBody,
      ...kafkaEvidence(record),
    },
  });
  await deps.quarantine.putRecord({
    ...evidence,
    ...stored,
    id,
    status: reason === 'outcome-unknown' ? QUARANTINE_STATUS.awaitingOperator : QUARANTINE_STATUS.open,
    cause: 'unidentified',
    createdAt: now,
    errorSignature: lastError ? errorSignature(lastError) : `crash:${item.stage}`,
  });
  if (reason === 'outcome-unknown') {
    await deps.operations.startOutcomeUnknown({ quarantineId: id, messageKey: item.key });
  }
  if (!marksLedger(request)) return;
  await deps.ledger.markQuarantined(item.key, {
    attemptId: item.attemptId,
    quarantineId: id,
    charge: request.charge,
    now: deps.now(),
  });
}

/** The quarantine step as a record's path takes it: a stop pauses this batch, the record goes back. */
export async function quarantined(
  deps: ConsumerDeps,
  session: RecordSession,
  record: SourceRecord,
  item: LedgerItem,
  reason: QuarantineRequest['reason'],
  charge: number,
  options: Pick<QuarantineRequest, 'error' | 'id' | 'markLedger'> = {},
): Promise<RecordOutcome> {
  const outcome = await quarantineMessage(deps, session.shares, { record, item, reason, charge, ...options });
  if (outcome.kind === 'stopped') {
    session.pause('stop');
    return { kind: 'returned', why: outcome.why };
  }
  return { kind: 'quarantined', quarantineId: outcome.quarantineId };
}

/** A Kafka record's key and headers, exactly, beside its value in the body object (rule 3). */
function kafkaEvidence(record: SourceRecord): object {
  if (record.kafka === undefined) return {};
  const { value: _inTheBody, ...kafka } = record.kafka;
  return { kafka };
}
