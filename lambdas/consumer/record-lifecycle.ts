/**
 * One record's life (docs/design.md, "The consumer, per record"): record the attempt
 * (begin-attempt.ts), run the user's work, and end the attempt as the core decides. Every
 * decision is the core's; this file only carries them out.
 */

import { classifyWith } from '../core/classify';
import { failureEventForMessage } from '../core/delivery';
import { errorEvidence } from '../core/evidence';
import { decideFailure } from '../core/failure';
import type { LedgerItem } from '../core/types';
import type { LedgerEntry } from '../ports/ledger';
import type { SourceRecord } from '../ports/source';
import { keepLease } from './attempt-lease';
import { beginAttempt } from './begin-attempt';
import type { ConsumerDeps } from './deps';
import { handBackUnlessLastReceive } from './hand-back';
import { onLastReceive } from './last-receive';
import { handBackForOutage, reportOutage } from './outage-step';
import { reportOwnTablesDown } from './own-tables';
import { quarantined } from './quarantine-step';
import { PAUSED, type RecordOutcome, type RecordSession } from './record-outcome';
import { settleWrite } from './settle';
import type { QueueMessage } from './types';
import { workContext } from './work-context';

export type { RecordOutcome, RecordSession } from './record-outcome';

export async function processRecord(
  deps: ConsumerDeps,
  session: RecordSession,
  record: SourceRecord,
  remainingTimeMs: () => number,
): Promise<RecordOutcome> {
  // Paused during this batch (rule 7 or a stop): nothing more is started, but for a record on
  // its last receive, which the backstop would take, past any evidence, if handed back.
  if (session.paused() && !onLastReceive(deps, record)) return PAUSED;
  const item = await beginAttempt(deps, session, record);
  if ('kind' in item) return item;
  const lease = keepLease(deps, item);
  try {
    return await runAttempt(deps, session, record, item, remainingTimeMs);
  } finally {
    lease.stop();
  }
}

/** The attempt begun: the user's work, and the attempt's end as the core decides. */
async function runAttempt(
  deps: ConsumerDeps,
  session: RecordSession,
  record: SourceRecord,
  item: LedgerEntry,
  remainingTimeMs: () => number,
): Promise<RecordOutcome> {
  const message: QueueMessage = {
    messageId: record.messageId,
    key: item.key,
    body: record.body,
    attributes: record.attributes as unknown as Record<string, string | undefined>,
    messageAttributes: record.messageAttributes,
    attempt: item.attempts,
    ...(record.kafka === undefined ? {} : { kafka: record.kafka }),
  };
  const work = workContext(deps, item, remainingTimeMs);
  try {
    await deps.processor.process(message, work.ctx);
  } catch (error) {
    // The item as the ledger now holds it: a quarantine's evidence names the last stage (rule 3)
    // and the declared call (rule 8).
    const stage = work.lastStage();
    const external = work.lastExternal();
    const current = {
      ...item,
      ...(stage === undefined ? {} : { stage }),
      ...(external === undefined ? {} : { external }),
    };
    const ownFailure = work.ownTableFailure();
    // After a keyless call may have gone through, a person decides whoever failed (rule 8).
    if (ownFailure !== undefined && !work.madeUnrepeatableCall())
      return endOnOwnTables(deps, session, record, item, ownFailure, remainingTimeMs);
    return endWithError(deps, session, record, current, error, work.madeUnrepeatableCall(), remainingTimeMs);
  }
  return complete(deps, session, item, remainingTimeMs);
}

/**
 * The work succeeded. If its completion cannot be written, the success is kept in the control
 * table, so the redelivery completes the item instead of charging a crash or redoing the work.
 */
async function complete(
  deps: ConsumerDeps,
  session: RecordSession,
  item: LedgerEntry,
  remainingTimeMs: () => number,
): Promise<RecordOutcome> {
  try {
    await settleWrite(deps, remainingTimeMs, () =>
      deps.ledger.complete(item.key, item.attemptId, deps.now()),
    );
  } catch (error) {
    deps.logger.error('completion not recorded: keeping the success for the redelivery', {
      event: 'completion-lost',
      messageKey: item.key,
      error: error as Error,
    });
    const expiresAt = Math.floor(deps.now().getTime() / 1000) + deps.config.ledgerRetentionDays * 86_400;
    await settleWrite(deps, remainingTimeMs, () =>
      deps.control.recordLostCompletion({ key: item.key, attemptId: item.attemptId, expiresAt }),
    );
    return { kind: 'returned', why: 'completion-lost' };
  }
  session.shares.record('completed');
  if (session.probing) await deps.control.recordProbe('success');
  return { kind: 'completed' };
}

/**
 * Our own table refused a write of the work (a stage, a call's record): the attempt ends
 * uncharged and the message goes back, as after a refused start (rule 7). Whatever the user's code
 * made of our error, their classifier never sees it: it is not the message's.
 */
async function endOnOwnTables(
  deps: ConsumerDeps,
  session: RecordSession,
  record: SourceRecord,
  item: LedgerEntry,
  error: unknown,
  remainingTimeMs: () => number,
): Promise<RecordOutcome> {
  try {
    await reportOwnTablesDown(deps, session, item.key, error);
  } finally {
    // Settled uncharged, its next delivery is a fresh attempt, not this one taken for a crash.
    await settleWrite(deps, remainingTimeMs, () =>
      deps.ledger.recordFailure(item.key, item.attemptId, { counters: item, now: deps.now() }),
    );
  }
  return handBackUnlessLastReceive(deps, session, record, item, async () => ({
    kind: 'returned',
    why: (error as Error).name,
  }));
}

/** Rule 9: a caught error ends the attempt as the core decides. */
async function endWithError(
  deps: ConsumerDeps,
  session: RecordSession,
  record: SourceRecord,
  item: LedgerItem,
  error: unknown,
  madeUnrepeatableCall: boolean,
  remainingTimeMs: () => number,
): Promise<RecordOutcome> {
  // After a keyless call may have gone through, retrying would repeat it: a person decides.
  const errorClass = madeUnrepeatableCall ? 'outcome-unknown' : classifyWith(deps.processor.classify, error);
  const evidence = errorEvidence(error, errorClass);
  const decision = decideFailure(item, errorClass, deps.config.policy, deps.random());
  const failureEvent = { key: failureEventForMessage(item.key), kind: 'transient' as const };
  if (decision.kind === 'outcome-unknown') {
    // Rule 7 too: a dependency hanging after requests pauses consumption; this message still
    // goes to a person, because its call may have happened.
    await reportOutage(deps, session, failureEvent);
    return quarantined(deps, session, record, { ...item, lastError: evidence }, 'outcome-unknown', 0, {
      error: evidence,
    });
  }
  const settleFailure = (counters: LedgerItem, failedProbe = false) =>
    settleWrite(deps, remainingTimeMs, () =>
      deps.ledger.recordFailure(item.key, item.attemptId, {
        counters,
        lastError: evidence,
        now: deps.now(),
        ...(failedProbe ? { failedProbe } : {}),
      }),
    );
  if (decision.failureEvent) {
    // A half-open probe failing on a healthy message counts against the dependency (with no
    // success in the window the breaker reopens), and the message must not spend its budget on
    // the same outage.
    const handedBack = await handBackForOutage(deps, session, record, {
      event: failureEvent,
      item: { ...item, lastError: evidence },
      errorClass,
      failedProbeHandsBack: true,
      settle: (failedProbe) => settleFailure(item, failedProbe),
    });
    if (handedBack !== undefined) return handedBack;
  }
  if (decision.kind === 'quarantine') {
    // The item keeps its charges; the quarantine adds this decision's (the record shows both).
    const counted = { ...item, ...decision.counters, charged: item.charged };
    const outcome = await quarantined(deps, session, record, counted, decision.reason, decision.charge, {
      error: evidence,
    });
    // The quarantine stopped (rule 11): end this attempt without a charge, so its next delivery
    // is a fresh attempt, not a crash of a live environment.
    if (outcome.kind === 'returned') await settleFailure(item);
    return outcome;
  }
  await settleFailure({ ...item, ...decision.counters });
  return handBackUnlessLastReceive(deps, session, record, { ...item, lastError: evidence }, async () => {
    await deps.queue.delay(record.receiptHandle, decision.delaySeconds);
    return { kind: 'retry', delaySeconds: decision.delaySeconds };
  });
}
