/**
 * Rule 1 and what a refused start means (docs/design.md, "The consumer, per record", step 2):
 * the key a record is worked on under, the start write, and, when the ledger refuses it, the
 * core's decision carried out. Returns the started item or the record's outcome.
 */

import { MESSAGE_KEY_ATTRIBUTE, REPLAY_OF_ATTRIBUTE } from '../../contract/message-attributes';
import { type DeliveryDecision, decideDelivery, replayAlreadyStarted } from '../core/delivery';
import { bodyDigest, collisionQuarantineId } from '../core/ids';
import { type RecordKey, recordKey } from '../core/message-key';
import type { LedgerItem } from '../core/types';
import { isOwnTableUnavailable } from '../ports/errors';
import type { LedgerEntry, StartInput } from '../ports/ledger';
import { exactBody, type SourceRecord } from '../ports/source';
import { firstLease } from './attempt-lease';
import type { ConsumerDeps } from './deps';
import { onLastReceive } from './last-receive';
import { handBackForOutage, reportOutage } from './outage-step';
import { reportOwnTablesDown } from './own-tables';
import { quarantined } from './quarantine-step';
import type { RecordOutcome, RecordSession } from './record-outcome';

/** Under which key a record is worked on; `replayOf` when it claims to be an operator's replay. */
interface Identity {
  readonly key: string;
  readonly replayOf?: string;
}

export async function beginAttempt(
  deps: ConsumerDeps,
  session: RecordSession,
  record: SourceRecord,
  identity: Identity = identify(deps, record),
  mayWait = true,
): Promise<LedgerEntry | RecordOutcome> {
  const now = deps.now();
  const attempt: StartInput = {
    key: identity.key,
    attemptId: deps.newId(),
    envId: deps.envId,
    messageId: record.messageId,
    bodyDigest: bodyDigest(exactBody(record).body),
    attemptLimit: deps.config.policy.attemptLimit,
    lastReceive: onLastReceive(deps, record),
    now,
    expiresAt: Math.floor(now.getTime() / 1000) + deps.config.ledgerRetentionDays * 86_400,
    ...firstLease(deps, now),
    ...(identity.replayOf === undefined ? {} : { replayOf: identity.replayOf }),
  };
  const started = await reportingOwnTables(deps, session, attempt.key, () => deps.ledger.start(attempt));
  if ('kind' in started) return started;
  if (started.started) return started.item;

  const previous = started.previous;
  if (identity.replayOf !== undefined && previous?.replayOf !== identity.replayOf) {
    // The item ran this replay before a later one reset it: this is that replay delivered again.
    if (replayAlreadyStarted(previous, identity.replayOf)) return { kind: 'duplicate' };
    // Not the item an operator reset for this replay: a producer's attributes, not a replay.
    deps.logger.warn('replay attributes ignored: no such replay is pending; using the messageId', {
      event: 'message-key-fallback',
      messageId: record.messageId,
      why: 'pq-message-key does not name an item reset for this replay',
    });
    return beginAttempt(deps, session, record, { key: record.messageId });
  }
  if (previous === undefined) throw new Error('the ledger refused a start on no item that was no replay');
  const delivered = {
    messageId: record.messageId,
    bodyDigest: attempt.bodyDigest,
    lastReceive: onLastReceive(deps, record),
    replayOf: identity.replayOf,
  };
  let decision = decideDelivery(previous, undefined, deps.config.policy, now.getTime(), delivered);
  if (decision.kind === 'need-crash-context') {
    const { envId } = decision;
    const crash = await reportingOwnTables(deps, session, attempt.key, () =>
      crashContext(deps, envId, previous.key, attempt.expiresAt),
    );
    if ('kind' in crash) return crash;
    decision = decideDelivery(previous, crash, deps.config.policy, now.getTime(), delivered);
  }
  // Kafka delivers a failed batch again at once: a crashed attempt's lease is waited out here,
  // once, so the crash holds the partition for its own invocation alone (core/lease.ts).
  if (decision.kind === 'busy' && mayWait && (await session.waitForLease(decision.until, record.messageId))) {
    return beginAttempt(deps, session, record, identity, false);
  }
  return carryOut(deps, session, record, attempt, previous, decision);
}

async function carryOut(
  deps: ConsumerDeps,
  session: RecordSession,
  record: SourceRecord,
  attempt: StartInput,
  previous: LedgerEntry,
  decision: DeliveryDecision,
): Promise<LedgerEntry | RecordOutcome> {
  const { now } = attempt;
  switch (decision.kind) {
    case 'need-crash-context':
      throw new Error('the core asked for the crash context twice');
    case 'duplicate':
      return { kind: 'duplicate' };
    case 'lost-completion':
      await deps.ledger.complete(previous.key, previous.attemptId, now);
      return { kind: 'duplicate' };
    case 'key-collision':
      return quarantined(deps, session, record, collidingItem(record, previous, now), 'key-collision', 0, {
        id: collisionQuarantineId(previous.key, record.messageId),
        markLedger: false,
      });
    case 'finish-quarantine': {
      const { id, reason, charge, error } = decision.quarantine;
      return quarantined(deps, session, record, previous, reason, charge, {
        id,
        ...(error === undefined ? {} : { error }),
      });
    }
    case 'busy':
      // Another delivery's attempt may still be running: come back once it must be over.
      await deps.queue.delay(record.receiptHandle, decision.retryInSeconds);
      return { kind: 'retry', delaySeconds: decision.retryInSeconds };
    case 'outcome-unknown':
      // A person checks the outside system whatever happens; the event may also reveal an outage.
      await reportOutage(deps, session, { key: decision.failureEvent, kind: 'transient' });
      return quarantined(deps, session, record, previous, 'outcome-unknown', 0);
    case 'quarantine':
    case 'proceed': {
      if (decision.crash !== 'none' && decision.failureEvent) {
        const handedBack = await handBackForOutage(deps, session, record, {
          event: { key: decision.failureEvent, kind: 'crash' },
          item: previous,
          errorClass: 'crash',
          failedProbeHandsBack: false,
          // An outage, not poison: the crashed attempt is settled without a charge.
          settle: (failedProbe) =>
            deps.ledger.recordFailure(previous.key, previous.attemptId, {
              counters: previous,
              crashed: true,
              now,
              ...(failedProbe ? { failedProbe: true } : {}),
            }),
        });
        if (handedBack !== undefined) return handedBack;
      }
      if (decision.kind === 'quarantine') {
        return quarantined(deps, session, record, previous, decision.reason, decision.charge);
      }
      // Rule 6: a crash starts a trial, or starts its count again, once per crash however many of
      // its messages come back. An ordered source (SQS FIFO, Kafka) runs its records one at a time
      // already: there a trial would change nothing but cost a write per message (issue 38).
      if (decision.startIsolation && !deps.config.ordered) {
        await deps.control.startIsolation({
          now,
          messages: deps.config.policy.isolationTrialMessages,
          cause: previous.envId ?? previous.attemptId,
          expiresAt: attempt.expiresAt,
        });
        session.isolationStarted();
      }
      const restarted = await deps.ledger.restartAfterCrash({
        ...attempt,
        previousAttemptId: previous.attemptId,
        charge: decision.charge,
        crashedAlone: decision.crash === 'attributable',
      });
      // Another delivery of the same key settled it first: let that one work.
      return restarted.started ? restarted.item : { kind: 'returned', why: 'attempt-race' };
    }
  }
}

/**
 * A step of ours before the work (the start write, fail closed; the crash context's reads): our
 * own tables refusing it returns the record, reported as own-tables.ts `reportOwnTablesDown`.
 */
async function reportingOwnTables<T extends object>(
  deps: ConsumerDeps,
  session: RecordSession,
  key: string,
  step: () => Promise<T>,
): Promise<T | RecordOutcome> {
  try {
    return await step();
  } catch (error) {
    if (!isOwnTableUnavailable(error)) throw error;
    await reportOwnTablesDown(deps, session, key, error);
    return { kind: 'returned', why: (error as Error).name };
  }
}

/** Rules 5, 6 and 10: who else the dead environment held, and whether the work had finished. */
async function crashContext(deps: ConsumerDeps, deadEnv: string, key: string, expiresAt: number) {
  const inFlight = await deps.control.crashInFlight(
    deadEnv,
    async () => (await deps.ledger.inFlightKeysOf(deadEnv)).length,
    expiresAt,
  );
  const completedAttemptId = await deps.control.lostCompletion(key);
  return completedAttemptId === undefined ? { inFlight } : { inFlight, completedAttemptId };
}

/** The key a record is worked on under (core/message-key.ts `recordKey`), from the SQS record. */
export function keyOfRecord(record: SourceRecord, keyPath: string | undefined): RecordKey {
  return recordKey(
    {
      messageId: record.messageId,
      body: record.body,
      replay: {
        messageKey: record.messageAttributes[MESSAGE_KEY_ATTRIBUTE]?.stringValue,
        replayOf: record.messageAttributes[REPLAY_OF_ATTRIBUTE]?.stringValue,
      },
    },
    keyPath,
  );
}

function identify(deps: ConsumerDeps, record: SourceRecord): Identity {
  const { key, replayOf, fallback } = keyOfRecord(record, deps.config.messageKeyPath);
  if (fallback !== undefined) {
    // Bad input never loses a message: it is worked on under its messageId, and we say why.
    deps.logger.warn('message key not usable; using the messageId', {
      event: 'message-key-fallback',
      messageId: record.messageId,
      why: fallback,
    });
  }
  return replayOf === undefined ? { key } : { key, replayOf };
}

/** The evidence of a message that never got an attempt of its own: it carries another's key. */
function collidingItem(record: SourceRecord, previous: LedgerItem, now: Date): LedgerItem {
  const at = now.toISOString();
  return {
    key: previous.key,
    state: previous.state,
    attempts: 0,
    charged: 0,
    transientFailures: 0,
    unknownFailures: 0,
    generation: previous.generation,
    attemptId: 'none',
    messageId: record.messageId,
    stage: 'not-started',
    firstAttemptAt: at,
    lastAttemptAt: at,
  };
}
