/**
 * Quarantining a record without running it (receive-limit, uncharged): where running it could
 * not be allowed and handing it back would let the backstop take it, past any evidence.
 */

import type { ErrorEvidence } from '../core/types';
import type { SourceRecord } from '../ports/source';
import { beginAttempt } from './begin-attempt';
import type { ConsumerDeps } from './deps';
import { quarantined } from './quarantine-step';
import type { RecordOutcome, RecordSession } from './record-outcome';

/**
 * The attempt is still recorded first (rule 1) and its delivery decided as any other (a duplicate
 * is acknowledged, a begun quarantine finished); a record that would run is quarantined instead,
 * with `error` as its evidence and outside rule 11b's share: it says nothing of poison.
 */
export async function quarantineUnrun(
  deps: ConsumerDeps,
  session: RecordSession,
  record: SourceRecord,
  error: ErrorEvidence,
): Promise<RecordOutcome> {
  const item = await beginAttempt(deps, session, record);
  if ('kind' in item) return item;
  const evidence = { ...item, lastError: error };
  const outcome = await quarantined(deps, session, record, evidence, 'receive-limit', 0, { error });
  // The quarantine stopped (rule 11a): end the attempt uncharged, so it is not taken for a crash.
  if (outcome.kind === 'returned')
    await deps.ledger.recordFailure(item.key, item.attemptId, { counters: item, now: deps.now() });
  return outcome;
}
