/**
 * A breaker item nobody can read (core/breaker.ts `UnreadableBreaker`): the consumer cannot tell
 * whether it may consume, so it fails closed, as for a stop. It starts no work, writes the log
 * line the BreakerUnreadable alarm counts, and hands every record back for the longest cool-down.
 * A record on its last receive, which the backstop would take past any evidence and any `pq`, is
 * quarantined instead (receive-limit, uncharged), without running.
 */
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { BREAKER_UNREADABLE_LOG_EVENT } from '../../contract/log-events';
import { type UnreadableBreaker, unreadableBreakerEvidence, unreadableHoldSeconds } from '../core/breaker';
import { beginAttempt } from './begin-attempt';
import type { ConsumerDeps } from './deps';
import {
  onLastReceive,
  quarantined,
  type RecordOutcome,
  type RecordSession,
  returnAfter,
  returnedOnError,
  staysInQueue,
} from './record-outcome';
import type { ShareWindow } from './share-window';

export async function holdWhileUnreadable(
  deps: ConsumerDeps,
  shares: ShareWindow,
  breaker: UnreadableBreaker,
  records: readonly SQSRecord[],
): Promise<SQSBatchResponse> {
  deps.logger.error('the breaker item cannot be read: nothing runs until an operator resets it', {
    event: BREAKER_UNREADABLE_LOG_EVENT,
    problem: breaker.problem,
    // The alarm's dimension: each pipeline's alarm counts its own queue's lines only.
    sourceQueue: deps.config.sourceQueueArn,
  });
  const held = records.filter((record) => !onLastReceive(deps, record));
  const wait = unreadableHoldSeconds(deps.config.breakerTimings);
  await Promise.all(held.map((record) => returnAfter(deps, record, wait)));
  const session = stoppedSession(shares);
  const handedBack = [...held];
  for (const record of records.filter((candidate) => onLastReceive(deps, candidate))) {
    const outcome = await returnedOnError(deps, record, () =>
      quarantineUnrun(deps, session, record, breaker),
    );
    if (staysInQueue(outcome)) handedBack.push(record);
  }
  return { batchItemFailures: handedBack.map(({ messageId }) => ({ itemIdentifier: messageId })) };
}

/**
 * The attempt is still recorded first (rule 1) and its delivery decided as any other (a duplicate
 * is acknowledged, a begun quarantine finished); a record that would run is quarantined instead,
 * with the breaker's problem as its evidence and outside rule 11b's share: it says nothing of poison.
 */
async function quarantineUnrun(
  deps: ConsumerDeps,
  session: RecordSession,
  record: SQSRecord,
  breaker: UnreadableBreaker,
): Promise<RecordOutcome> {
  const item = await beginAttempt(deps, session, record);
  if ('kind' in item) return item;
  const error = unreadableBreakerEvidence(breaker);
  const evidence = { ...item, lastError: error };
  const outcome = await quarantined(deps, session, record, evidence, 'receive-limit', 0, { error });
  // The quarantine stopped (rule 11a): end the attempt uncharged, so it is not taken for a crash.
  if (outcome.kind === 'returned')
    await deps.ledger.recordFailure(item.key, item.attemptId, { counters: item, now: deps.now() });
  return outcome;
}

/** Nothing runs in this batch: no probe, no trial, and a stop changes nothing. */
function stoppedSession(shares: ShareWindow): RecordSession {
  return {
    shares,
    probing: false,
    isolationActive: () => false,
    paused: () => true,
    pause: () => undefined,
    isolationStarted: () => undefined,
  };
}
