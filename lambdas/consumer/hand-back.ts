/**
 * How a record goes back to the queue: sooner than its visibility timeout when asked, and never
 * on its last receive before the backstop, where it is quarantined instead (rule 3 over rule 7).
 */

import type { LedgerItem } from '../core/types';
import type { SourceRecord } from '../ports/source';
import type { ConsumerDeps } from './deps';
import { onLastReceive } from './last-receive';
import { quarantined } from './quarantine-step';
import type { RecordOutcome, RecordSession } from './record-outcome';

/**
 * Hands a settled record back to the queue (for the probe, or for a retry) unless this is its
 * last receive before the backstop (core/receive-limit.ts): then it is quarantined, uncharged
 * (outside rule 11b's share, quarantine-step.ts).
 */
export async function handBackUnlessLastReceive(
  deps: ConsumerDeps,
  session: RecordSession,
  record: SourceRecord,
  item: LedgerItem,
  handBack: () => Promise<RecordOutcome>,
): Promise<RecordOutcome> {
  if (!onLastReceive(deps, record)) return handBack();
  return quarantined(deps, session, record, item, 'receive-limit', 0);
}

/** A record handed back becomes visible again after `seconds`, not a visibility timeout later. */
export async function returnAfter(deps: ConsumerDeps, record: SourceRecord, seconds: number): Promise<void> {
  await deps.queue.delay(record.receiptHandle, seconds).catch((error: unknown) => {
    // Best effort: the record then waits out its visibility timeout; nothing is lost.
    deps.logger.warn('record handed back keeps its visibility timeout', {
      event: 'return-after-failed',
      messageId: record.messageId,
      error: error as Error,
    });
  });
}
