/**
 * Our own tables (the attempts and control tables, the quarantine) failing a record: never the
 * message's fault. The record goes back alone, uncharged, and the failure counts as evidence of
 * an outage (rule 7).
 */

import { failureEventForMessage } from '../core/delivery';
import { isOwnTableUnavailable } from '../ports/errors';
import type { SourceRecord } from '../ports/source';
import type { ConsumerDeps } from './deps';
import { reportOutage } from './outage-step';
import type { RecordOutcome, RecordSession } from './record-outcome';

/**
 * One record's failure to reach AWS (the ledger, the quarantine) returns that record only: the
 * others of the batch are not thrown back with it, and no work is left half-way (rule 1). In a
 * half-open window, our own tables failing tells the window it proves nothing, and ends this
 * batch: what it hands back waits for the next window, which must not find the queue empty.
 */
export async function returnedOnError(
  deps: ConsumerDeps,
  session: Pick<RecordSession, 'halfOpen' | 'pause'>,
  record: SourceRecord,
  handle: () => Promise<RecordOutcome>,
): Promise<RecordOutcome> {
  try {
    return await handle();
  } catch (error) {
    deps.logger.error('record returned to the queue: a write it needed failed', {
      event: 'record-error',
      messageId: record.messageId,
      error: error as Error,
    });
    if (session.halfOpen && isOwnTableUnavailable(error)) {
      await reportOwnFailure(deps);
      session.pause('outage');
    }
    return { kind: 'returned', why: (error as Error).name ?? 'error' };
  }
}

/**
 * Our own attempts or control table refused a step of a record (the start, a crash's context, a
 * write of the work): a shared dependency down (rule 7), never the message's fault. Each such
 * message is a failure event, so enough of them pause consumption instead of cycling every
 * message toward the backstop; in a half-open window it also vetoes the window.
 */
export async function reportOwnTablesDown(
  deps: ConsumerDeps,
  session: Pick<RecordSession, 'halfOpen' | 'pause' | 'unrecorded' | 'controlNow' | 'lastCompletedAt'>,
  key: string,
  error: unknown,
): Promise<void> {
  deps.logger.error('our own table is unavailable: the record goes back uncharged', {
    event: 'own-table-unavailable',
    error: error as Error,
  });
  const event = { key: failureEventForMessage(key), kind: 'transient' as const };
  if (session.halfOpen) await deps.control.recordProbe('own-failure');
  await reportOutage(deps, session, event);
  // A half-open window our own tables failed proves nothing: the batch stops either way.
  if (session.halfOpen) session.pause('outage');
}

/** Best effort: the record goes back either way; unrecorded, the window may restore too early. */
async function reportOwnFailure(deps: ConsumerDeps): Promise<void> {
  try {
    await deps.control.recordProbe('own-failure');
  } catch (error) {
    deps.logger.warn('an own-table failure of the probe window was not recorded', {
      event: 'probe-unrecorded',
      error: error as Error,
    });
  }
}
