/**
 * A breaker item nobody can read (core/breaker.ts `UnreadableBreaker`): the consumer cannot tell
 * whether it may consume, so it fails closed, as for a stop. It starts no work, writes the log
 * line the BreakerUnreadable alarm counts, and hands every record back for the longest cool-down.
 * A record on its last receive, which the backstop would take past any evidence and any `pq`, is
 * quarantined instead (receive-limit, uncharged), without running.
 */
import { BREAKER_UNREADABLE_LOG_EVENT } from '../../contract/log-events';
import { type UnreadableBreaker, unreadableBreakerEvidence, unreadableHoldSeconds } from '../core/breaker';
import type { SourceRecord } from '../ports/source';
import type { ConsumerDeps } from './deps';
import { returnAfter } from './hand-back';
import { onLastReceive } from './last-receive';
import { returnedOnError } from './own-tables';
import { type RecordSession, staysInQueue } from './record-outcome';
import { quarantineUnrun } from './unrun-quarantine';

/** What an execution environment keeps between its batches, that a stopped batch still uses. */
type EnvironmentMemory = Pick<RecordSession, 'shares' | 'unrecorded'>;

export async function holdWhileUnreadable(
  deps: ConsumerDeps,
  memory: EnvironmentMemory,
  breaker: UnreadableBreaker,
  records: readonly SourceRecord[],
): Promise<readonly SourceRecord[]> {
  deps.logger.error('the breaker item cannot be read: nothing runs until an operator resets it', {
    event: BREAKER_UNREADABLE_LOG_EVENT,
    problem: breaker.problem,
    // The alarm's dimension: each pipeline's alarm counts its own queue's lines only.
    sourceQueue: deps.config.sourceQueueArn,
  });
  const held = records.filter((record) => !onLastReceive(deps, record));
  const wait = unreadableHoldSeconds(deps.config.breakerTimings);
  await Promise.all(held.map((record) => returnAfter(deps, record, wait)));
  const session = stoppedSession(deps, memory);
  const handedBack = [...held];
  for (const record of records.filter((candidate) => onLastReceive(deps, candidate))) {
    const outcome = await returnedOnError(deps, session, record, () =>
      quarantineUnrun(deps, session, record, unreadableBreakerEvidence(breaker)),
    );
    if (staysInQueue(outcome)) handedBack.push(record);
  }
  return handedBack;
}

/** Nothing runs in this batch: no probe, no trial, and a stop changes nothing. */
function stoppedSession(deps: ConsumerDeps, { shares, unrecorded }: EnvironmentMemory): RecordSession {
  return {
    shares,
    unrecorded,
    // Nothing completes here; a stop reports no failure event anyway.
    lastCompletedAt: () => undefined,
    controlNow: () => deps.control.snapshot(),
    probing: false,
    halfOpen: false,
    isolationActive: () => false,
    paused: () => true,
    pause: () => undefined,
    isolationStarted: () => undefined,
    // No attempt starts here: nothing waits for one.
    waitForLease: async () => false,
  };
}
