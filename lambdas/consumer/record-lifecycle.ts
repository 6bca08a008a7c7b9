/**
 * One record's life (docs/design.md, "The consumer, per record"): record the attempt, let the
 * core decide what a refused start means, run the user's work, and end the attempt as the core
 * decides. Every decision is the core's; this file only carries them out.
 */
import type { SQSRecord } from 'aws-lambda';
import { MESSAGE_KEY_ATTRIBUTE } from '../../contract/message-attributes';
import { isPoisonSuspect } from '../core/breaker';
import { classifyWith } from '../core/classify';
import { decideDelivery, failureEventForMessage } from '../core/delivery';
import { errorEvidence } from '../core/evidence';
import { decideFailure } from '../core/failure';
import { messageKey } from '../core/message-key';
import type { LedgerItem } from '../core/types';
import type { ConsumerDeps } from './deps';
import { reportFailureEvent } from './outage-watch';
import { quarantineMessage } from './quarantine-step';
import type { ShareWindow } from './share-window';
import type { QueueMessage } from './types';
import { workContext } from './work-context';

export type RecordOutcome =
  | { readonly kind: 'completed' }
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'quarantined'; readonly quarantineId: string }
  | { readonly kind: 'retry'; readonly delaySeconds: number }
  /** Not worked on, or stopped: the message goes back to the queue untouched. */
  | { readonly kind: 'returned'; readonly why: string };

/** What one invocation knows about the control state and shares between its records. */
export interface BatchSession {
  readonly shares: ShareWindow;
  /** The breaker is half-open: this batch is the probe; its outcomes are reported. */
  readonly probing: boolean;
  readonly isolationActive: boolean;
  /** Called when this environment changed the control state (pause, isolation). */
  readonly controlChanged: () => void;
  /** Rule 6 started here: the rest of this batch runs one record at a time. */
  readonly isolationStarted: () => void;
}

export async function processRecord(
  deps: ConsumerDeps,
  session: BatchSession,
  record: SQSRecord,
  remainingTimeMs: () => number,
): Promise<RecordOutcome> {
  const key = keyOf(deps, record);
  const item = await beginAttempt(deps, session, record, key);
  if ('kind' in item) return item;

  const message: QueueMessage = {
    messageId: record.messageId,
    key,
    body: record.body,
    attributes: record.attributes as unknown as Record<string, string | undefined>,
    messageAttributes: record.messageAttributes,
    attempt: item.attempts,
  };
  const work = workContext(deps, item, remainingTimeMs);
  try {
    await deps.processor.process(message, work.ctx);
  } catch (error) {
    // The item as the ledger now holds it: a quarantine's evidence names the declared call (rule 8).
    const external = work.lastExternal();
    const current = external === undefined ? item : { ...item, external };
    return endWithError(deps, session, record, current, error, work.madeUnrepeatableCall());
  }
  await deps.ledger.complete(key, item.attemptId, deps.now());
  session.shares.record('completed');
  if (session.probing) await deps.control.recordProbe('success');
  return { kind: 'completed' };
}

function keyOf(deps: ConsumerDeps, record: SQSRecord): string {
  const replayOfKey = record.messageAttributes[MESSAGE_KEY_ATTRIBUTE]?.stringValue;
  const result = messageKey({ ...record, replayOfKey }, deps.config.messageKeyPath);
  if (result.ok) return result.key;
  // Bad input never loses a message: fall back to the messageId and say why.
  deps.logger.warn('message key not found; using the messageId', {
    event: 'message-key-fallback',
    messageId: record.messageId,
    why: result.reason,
  });
  return record.messageId;
}

/** Rule 1, then what a refused start means. Returns the started item or the record's outcome. */
async function beginAttempt(
  deps: ConsumerDeps,
  session: BatchSession,
  record: SQSRecord,
  key: string,
): Promise<LedgerItem | RecordOutcome> {
  const now = deps.now();
  const attempt = {
    key,
    attemptId: deps.newId(),
    envId: deps.envId,
    messageId: record.messageId,
    now,
    expiresAt: Math.floor(now.getTime() / 1000) + deps.config.ledgerRetentionDays * 86_400,
  };
  const started = await deps.ledger.start(attempt);
  if (started.started) return started.item;

  const previous = started.previous;
  let decision = decideDelivery(previous, undefined, deps.config.policy, now.getTime());
  if (decision.kind === 'need-crash-context') {
    const deadEnv = decision.envId;
    const inFlight = await deps.control.crashInFlight(
      deadEnv,
      async () => (await deps.ledger.inFlightKeysOf(deadEnv)).length,
      attempt.expiresAt,
    );
    decision = decideDelivery(previous, { inFlight }, deps.config.policy, now.getTime());
  }
  switch (decision.kind) {
    case 'need-crash-context':
      throw new Error('the core asked for the crash context twice');
    case 'duplicate':
      return { kind: 'duplicate' };
    case 'busy':
      // Another delivery's attempt may still be running: come back once it must be over.
      await deps.queue.delay(record.receiptHandle, decision.retryInSeconds);
      return { kind: 'retry', delaySeconds: decision.retryInSeconds };
    case 'outcome-unknown':
      return quarantined(deps, session, record, previous, 'outcome-unknown', 0);
    case 'quarantine':
    case 'proceed': {
      if (decision.crash !== 'none' && decision.failureEvent) {
        const paused = await reportFailureEvent(deps, { key: decision.failureEvent, kind: 'crash' });
        if (session.probing && !isPoisonSuspect(previous, 'crash')) await deps.control.recordProbe('failure');
        if (paused) {
          session.controlChanged();
          // An outage, not poison: settle the crashed attempt without charging it.
          await deps.ledger.recordFailure(key, previous.attemptId, { counters: previous, now });
          return { kind: 'returned', why: 'paused' };
        }
      }
      if (decision.kind === 'quarantine') {
        return quarantined(deps, session, record, previous, decision.reason, decision.charge);
      }
      // Rule 6: an unattributable crash starts a trial; a crash during one starts the count again.
      if (decision.startIsolation || (session.isolationActive && decision.crash === 'attributable')) {
        await deps.control.startIsolation({ now, messages: deps.config.policy.isolationTrialMessages });
        session.isolationStarted();
      }
      const restarted = await deps.ledger.restartAfterCrash({
        ...attempt,
        previousAttemptId: previous.attemptId,
        charge: decision.charge,
      });
      // Another delivery of the same key settled it first: let that one work.
      return restarted.started ? restarted.item : { kind: 'returned', why: 'attempt-race' };
    }
  }
}

/** Rule 9: a caught error ends the attempt as the core decides. */
async function endWithError(
  deps: ConsumerDeps,
  session: BatchSession,
  record: SQSRecord,
  item: LedgerItem,
  error: unknown,
  madeUnrepeatableCall: boolean,
): Promise<RecordOutcome> {
  // After a non-idempotent call went through, retrying would repeat it: a person decides.
  const errorClass = madeUnrepeatableCall ? 'outcome-unknown' : classifyWith(deps.processor.classify, error);
  const evidence = errorEvidence(error, errorClass);
  const decision = decideFailure(item, errorClass, deps.config.policy, deps.random());
  if (decision.kind === 'outcome-unknown') {
    return quarantined(
      deps,
      session,
      record,
      { ...item, lastError: evidence },
      'outcome-unknown',
      0,
      evidence,
    );
  }
  if (decision.failureEvent) {
    const paused = await reportFailureEvent(deps, {
      key: failureEventForMessage(item.key),
      kind: 'transient',
    });
    if (session.probing && !isPoisonSuspect(item, errorClass)) await deps.control.recordProbe('failure');
    if (paused) {
      session.controlChanged();
      // Rule 7: during an outage nothing is charged and nothing is quarantined.
      await deps.ledger.recordFailure(item.key, item.attemptId, {
        counters: item,
        lastError: evidence,
        now: deps.now(),
      });
      return { kind: 'returned', why: 'paused' };
    }
  }
  if (decision.kind === 'quarantine') {
    // The item keeps its charges; the quarantine adds this decision's (the record shows both).
    const counted = { ...item, ...decision.counters, charged: item.charged };
    const outcome = await quarantined(
      deps,
      session,
      record,
      counted,
      decision.reason,
      decision.charge,
      evidence,
    );
    if (outcome.kind === 'returned') {
      // The quarantine stopped (rule 11): end this attempt without a charge, so its next
      // delivery is a fresh attempt, not a crash of a live environment.
      await deps.ledger.recordFailure(item.key, item.attemptId, {
        counters: item,
        lastError: evidence,
        now: deps.now(),
      });
    }
    return outcome;
  }
  await deps.ledger.recordFailure(item.key, item.attemptId, {
    counters: decision.counters,
    lastError: evidence,
    now: deps.now(),
  });
  await deps.queue.delay(record.receiptHandle, decision.delaySeconds);
  return { kind: 'retry', delaySeconds: decision.delaySeconds };
}

async function quarantined(
  deps: ConsumerDeps,
  session: BatchSession,
  record: SQSRecord,
  item: LedgerItem,
  reason: Parameters<typeof quarantineMessage>[2]['reason'],
  charge: number,
  error?: Parameters<typeof quarantineMessage>[2]['error'],
): Promise<RecordOutcome> {
  const outcome = await quarantineMessage(deps, session.shares, { record, item, reason, charge, error });
  if (outcome.kind === 'stopped') {
    session.controlChanged();
    return { kind: 'returned', why: outcome.why };
  }
  return { kind: 'quarantined', quarantineId: outcome.quarantineId };
}
