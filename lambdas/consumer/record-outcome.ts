/**
 * What one record's life ends in, what it shares with the rest of its batch, the quarantine
 * step as every path of the record calls it, and how a record goes back to the queue.
 */
import type { SQSRecord } from 'aws-lambda';
import { isOwnTableUnavailable } from '../adapters/errors';
import { failureEventForMessage } from '../core/delivery';
import type { LedgerItem } from '../core/types';
import type { ConsumerDeps } from './deps';
import { onLastReceive } from './last-receive';
import { reportFailureEvent } from './outage-watch';
import { type QuarantineRequest, quarantineMessage } from './quarantine-step';
import type { ShareWindow } from './share-window';
import type { UnrecordedFailures } from './unrecorded-failures';

export type RecordOutcome =
  | { readonly kind: 'completed' }
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'quarantined'; readonly quarantineId: string }
  | { readonly kind: 'retry'; readonly delaySeconds: number }
  /** Not worked on, or stopped: the message goes back to the queue untouched. */
  | { readonly kind: 'returned'; readonly why: string };

/** What one invocation knows about the control state and shares between its records. */
export interface RecordSession {
  readonly shares: ShareWindow;
  /** Failure events this environment could not record: still its evidence of an outage. */
  readonly unrecorded: UnrecordedFailures;
  /** The breaker is half-open: this batch is the probe; its outcomes are reported. */
  readonly probing: boolean;
  /** The breaker is half-open, probing or not: a record our own tables fail is reported. */
  readonly halfOpen: boolean;
  /** An isolation trial runs: at the batch's start, or since a crash this batch discovered. */
  readonly isolationActive: () => boolean;
  /** Consumption paused during this batch: no further record may start. */
  readonly paused: () => boolean;
  /** This environment paused consumption: for an outage (rule 7) or a stop (rule 11). */
  readonly pause: (why: 'outage' | 'stop') => void;
  /** Rule 6 started here: the rest of this batch runs one record at a time. */
  readonly isolationStarted: () => void;
}

export async function quarantined(
  deps: ConsumerDeps,
  session: RecordSession,
  record: SQSRecord,
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

/**
 * Hands a settled record back to the queue (for the probe, or for a retry) unless this is its
 * last receive before the backstop (core/receive-limit.ts): then it is quarantined, uncharged
 * (outside rule 11b's share, quarantine-step.ts).
 */
export async function handBackUnlessLastReceive(
  deps: ConsumerDeps,
  session: RecordSession,
  record: SQSRecord,
  item: LedgerItem,
  handBack: () => Promise<RecordOutcome>,
): Promise<RecordOutcome> {
  if (!onLastReceive(deps, record)) return handBack();
  return quarantined(deps, session, record, item, 'receive-limit', 0);
}

/** Returned for the probe: an outage interrupted the attempt (rule 7). */
export const PAUSED: RecordOutcome = { kind: 'returned', why: 'paused' };

/** Outcomes after which the message stays in the queue: the batch response hands it back. */
export function staysInQueue(outcome: RecordOutcome): boolean {
  return outcome.kind === 'retry' || outcome.kind === 'returned';
}

/**
 * One record's failure to reach AWS (the ledger, the quarantine) returns that record only: the
 * others of the batch are not thrown back with it, and no work is left half-way (rule 1). In a
 * half-open window, our own tables failing tells the window it proves nothing, and ends this
 * batch: what it hands back waits for the next window, which must not find the queue empty.
 */
export async function returnedOnError(
  deps: ConsumerDeps,
  session: Pick<RecordSession, 'halfOpen' | 'pause'>,
  record: SQSRecord,
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
  session: Pick<RecordSession, 'halfOpen' | 'pause' | 'unrecorded'>,
  key: string,
  error: unknown,
): Promise<void> {
  deps.logger.error('our own table is unavailable: the record goes back uncharged', {
    event: 'own-table-unavailable',
    error: error as Error,
  });
  const event = { key: failureEventForMessage(key), kind: 'transient' as const };
  if (session.halfOpen) await deps.control.recordProbe('own-failure');
  if ((await reportFailureEvent(deps, session.unrecorded, event)) || session.halfOpen)
    session.pause('outage');
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

/** A record handed back becomes visible again after `seconds`, not a visibility timeout later. */
export async function returnAfter(deps: ConsumerDeps, record: SQSRecord, seconds: number): Promise<void> {
  await deps.queue.delay(record.receiptHandle, seconds).catch((error: unknown) => {
    // Best effort: the record then waits out its visibility timeout; nothing is lost.
    deps.logger.warn('record handed back keeps its visibility timeout', {
      event: 'return-after-failed',
      messageId: record.messageId,
      error: error as Error,
    });
  });
}
