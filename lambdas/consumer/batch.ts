/**
 * One invocation: read the control state (cached), order the records, run them at the allowed
 * concurrency, and answer with the records that stay. What is not completed, duplicate or
 * quarantined goes back to the source (its adapter in lambdas/sources says how); nothing is dropped.
 */

import type { Context } from 'aws-lambda';
import { BREAKER_STATE } from '../../contract/control';
import {
  RECORD_LOG_EVENT,
  RECORD_PROCESSED_MESSAGE,
  SUSPECTS_STAGGERED_LOG_EVENT,
  TIME_GUARD_CUT_LOG_EVENT,
} from '../../contract/log-events';
import {
  type BreakerRecord,
  type HalfOpenBreaker,
  holdingBreaker,
  nextWindowSeconds,
  type OpenBreaker,
  probesTheWindow,
  restartPauseTimings,
  returnAfterPauseSeconds,
} from '../core/breaker';
import { effectiveConcurrency, type IsolationTrial, NO_TRIAL } from '../core/isolation';
import { besideAnotherLastReceiveEvidence, receiveCountOf } from '../core/receive-limit';
import { type LedgerGlance, planSuspects, type SuspectPlan, suspectOrder } from '../core/suspects';
import { leavesTimeFor, timeMarginMs } from '../core/time-guard';
import type { SourceRecord } from '../ports/source';
import { waitedForLease } from './attempt-lease';
import { keyOfRecord } from './begin-attempt';
import type { ControlCache } from './control-cache';
import { countOutcome } from './counting';
import type { ConsumerDeps } from './deps';
import { returnAfter } from './hand-back';
import { onLastReceive } from './last-receive';
import { keepPauseAlive } from './outage-watch';
import { returnedOnError } from './own-tables';
import { processRecord, type RecordOutcome, type RecordSession } from './record-lifecycle';
import { staysInQueue } from './record-outcome';
import type { ShareWindow } from './share-window';
import { holdWhileUnreadable } from './unreadable-breaker';
import type { UnrecordedFailures } from './unrecorded-failures';
import { quarantineUnrun } from './unrun-quarantine';

export interface BatchState {
  readonly cache: ControlCache;
  readonly shares: ShareWindow;
  readonly unrecorded: UnrecordedFailures;
  /** The longest a record has taken in this execution environment, in ms (the time guard). */
  longestRecordMs: number;
  /** When this environment last checked that an open breaker's pause runs (epoch ms). */
  pauseCheckedAt: number;
  /** When a record last completed in this environment (epoch ms): a crash before it was no outage (rule 7). */
  lastCompletedAt?: number;
}

/** Runs one record; `leaveRoom`: only if the invocation keeps time for one more after it. */
type Run = (record: SourceRecord, leaveRoom?: boolean) => Promise<RecordOutcome>;

const NOT_STARTED: RecordOutcome = { kind: 'returned', why: 'not started' };
/** Outcomes after which the message leaves the queue. */
const FINISHED = new Set<RecordOutcome['kind']>(['completed', 'duplicate', 'quarantined']);
/** Outcomes that end a message's attempt without a crash: each one counts toward ending a trial. */
const PASSED_WITHOUT_CRASH = new Set<RecordOutcome['kind']>(['completed', 'quarantined', 'retry']);

export async function handleBatch(
  deps: ConsumerDeps,
  state: BatchState,
  delivered: readonly SourceRecord[],
  context: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<readonly SourceRecord[]> {
  const { breaker, isolation } = await state.cache.get();
  if (breaker?.state === 'unreadable') return holdWhileUnreadable(deps, state, breaker, delivered);
  state.shares.sawBreaker(breaker);
  const { held, records } = await holdWhilePaused(deps, state, breaker, delivered);
  if (records.length === 0) return held;
  const batch = openBatch(deps, state, breaker, isolation, context);
  const outcomes = await runRecords(deps, state, batch, records, context);
  if (batch.pausedFor() === 'outage') await handBackForTheProbe(deps, breaker, records, outcomes);
  return [
    ...held,
    ...records.filter((record) => staysInQueue(outcomes.get(record.messageId) ?? NOT_STARTED)),
  ];
}

/** What the records of one batch share while they run. */
interface OpenBatch {
  readonly session: RecordSession;
  /** How many records may run at once: drops to one when this batch starts a trial (rule 6). */
  readonly concurrency: () => number;
  readonly pausedFor: () => 'outage' | 'stop' | undefined;
}

/**
 * Paused (the mapping is being disabled): touch nothing, charge nothing; and make sure the pause
 * is really being driven, or the queue would stop here for good. A record on its last receive is
 * worked on all the same: handed back, the backstop would take it, past any evidence; a failure
 * then quarantines it (hand-back.ts).
 */
async function holdWhilePaused(
  deps: ConsumerDeps,
  state: BatchState,
  breaker: BreakerRecord | undefined,
  delivered: readonly SourceRecord[],
): Promise<{ readonly held: readonly SourceRecord[]; readonly records: readonly SourceRecord[] }> {
  const holding = holdingBreaker(breaker);
  if (holding === undefined) return { held: [], records: delivered };
  await checkPauseAlive(deps, state, holding);
  const wait = returnAfterPauseSeconds(holding, deps.now().getTime(), deps.config.breakerTimings);
  const held = delivered.filter((record) => !onLastReceive(deps, record));
  if (wait !== undefined) await Promise.all(held.map((record) => returnAfter(deps, record, wait)));
  return { held, records: delivered.filter((record) => onLastReceive(deps, record)) };
}

function openBatch(
  deps: ConsumerDeps,
  state: BatchState,
  breaker: BreakerRecord | undefined,
  isolation: IsolationTrial | undefined,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
): OpenBatch {
  let concurrency = effectiveConcurrency(isolation ?? NO_TRIAL, deps.config.inProcessConcurrency);
  let paused: 'outage' | 'stop' | undefined;
  let isolationActive = isolation?.active === true;
  const session: RecordSession = {
    shares: state.shares,
    unrecorded: state.unrecorded,
    lastCompletedAt: () => state.lastCompletedAt,
    probing: probesTheWindow(breaker),
    halfOpen: breaker?.state === BREAKER_STATE.halfOpen,
    isolationActive: () => isolationActive,
    paused: () => paused !== undefined,
    controlNow: () => state.cache.refresh(),
    pause: (why) => {
      // A stop outranks an outage: nothing may come back before a person has looked.
      paused = paused === 'stop' ? 'stop' : why;
      // An outage pause follows a failure's fresh read, which kept the breaker only if it showed
      // it open: that is still what the table holds (an outage trips only a closed breaker), and
      // at 1,000 environments a second read would be one per failing environment (docs/scale.md).
      if (why === 'stop') state.cache.invalidate();
    },
    isolationStarted: () => {
      concurrency = 1;
      isolationActive = true;
      state.cache.invalidate();
    },
    waitForLease: (until, messageId) =>
      waitedForLease(deps, { until, messageId }, context, state.longestRecordMs),
  };
  return { session, concurrency: () => concurrency, pausedFor: () => paused };
}

/** Runs every record in the order the rules ask for; returns each record's outcome. */
async function runRecords(
  deps: ConsumerDeps,
  state: BatchState,
  batch: OpenBatch,
  records: readonly SourceRecord[],
  context: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<Map<string, RecordOutcome>> {
  const outcomes = new Map<string, RecordOutcome>();
  const setAside = await setAsideBesideLastReceive(deps, batch.session, records);
  for (const [record, outcome] of setAside) outcomes.set(record.messageId, outcome);
  if (deps.config.ordered) {
    const run = recordRunner(deps, state, batch, records, context, outcomes);
    // Every record in SQS order: one set aside already has its outcome, and if it stays in the
    // queue it holds the rest of its group like any other.
    await runFifo(
      records,
      async (record) => setAside.get(record) ?? run(record),
      (record, seconds) => holdBack(deps, record, seconds),
    );
    return outcomes;
  }
  const { fresh, suspects } = splitSuspects(records.filter((record) => !setAside.has(record)));
  // A record on its last receive goes first, alone: a crash of another record would hand it
  // back, and SQS would move it to the backstop, past any evidence.
  const last = suspects.filter((record) => onLastReceive(deps, record));
  // Records whose latest attempt crashed go one at a time, after the rest, so the next crash
  // points at one message (rule 6) and cannot take other work down (rule 10), the least suspect
  // first, so a poison message cannot starve the rest of its batch; and before anything here
  // can crash, those behind the first are staggered, so that a crash sends them back apart
  // (core/suspects.ts planSuspects).
  const plan = await planRedelivered(
    deps,
    suspects.filter((record) => !last.includes(record)),
  );
  await stagger(deps, plan.stagger);
  const staggered = new Set(plan.stagger.map(({ record }) => record));
  const run = recordRunner(deps, state, batch, records, context, outcomes, staggered);
  await runPool(last, () => 1, run);
  // The pool leaves room for the first record that runs alone: cut there by the time guard on
  // every delivery, behind a steady flow of fresh work, it would never start at all.
  const roomForOne = plan.alone.length > 0;
  await runPool([...plan.pool, ...fresh], batch.concurrency, (record) => run(record, roomForOne));
  await runPool(plan.alone, () => 1, run);
  return outcomes;
}

/**
 * One record's run within the batch: the time guard, the record's life, its log and metrics.
 * `staggered` records keep the visibility they were given when the time guard cuts them.
 */
function recordRunner(
  deps: ConsumerDeps,
  state: BatchState,
  batch: OpenBatch,
  records: readonly SourceRecord[],
  context: Pick<Context, 'getRemainingTimeInMillis'>,
  outcomes: Map<string, RecordOutcome>,
  staggered: ReadonlySet<SourceRecord> = new Set(),
): Run {
  const { session } = batch;
  const timeoutSeconds = deps.config.policy.attemptTimeoutSeconds;
  let started = 0;
  let cut = 0;
  // A batch holding redelivered records may crash again, which would hand back everything in
  // it, finished or not: there, each finished record is acknowledged at once, so work done is
  // never received again and again until the backstop takes it.
  const crashProne = !deps.config.ordered && splitSuspects(records).suspects.length > 0;
  return async (record, leaveRoom = false) => {
    // Room for one more record after this one: its time comes off what this one may use.
    const room = leaveRoom ? state.longestRecordMs + timeMarginMs(timeoutSeconds) : 0;
    const remaining = context.getRemainingTimeInMillis() - room;
    if (!leavesTimeFor(remaining, state.longestRecordMs, timeoutSeconds, started === 0 && !leaveRoom)) {
      // Not enough time to finish it: back to the queue at once, uncharged, for the next
      // invocation; a staggered one when it was staggered to, apart from the others.
      if (!staggered.has(record)) await returnAfter(deps, record, 0);
      if (cut++ === 0) warnOfTheCut(deps, records.length, state.longestRecordMs);
      outcomes.set(record.messageId, { kind: 'returned', why: 'time-guard' });
      return { kind: 'returned', why: 'time-guard' };
    }
    started += 1;
    const startedAt = deps.now().getTime();
    const { result, calls } = await deps.meter.measure(async () => {
      const outcome = await returnedOnError(deps, session, record, () =>
        processRecord(deps, session, record, () => context.getRemainingTimeInMillis()),
      );
      if (session.isolationActive() && PASSED_WITHOUT_CRASH.has(outcome.kind)) {
        await deps.control.isolationMessagePassed(deps.now());
      }
      return outcome;
    });
    state.longestRecordMs = Math.max(state.longestRecordMs, deps.now().getTime() - startedAt);
    if (result.kind === 'completed') state.lastCompletedAt = deps.now().getTime();
    outcomes.set(record.messageId, result);
    if (crashProne && FINISHED.has(result.kind)) await acknowledgeNow(deps, record);
    // A healthy message's line is DEBUG (issue 24): at the default level it writes only its
    // attempt's count (counting.ts), which comes before the work so that a crash cannot erase it.
    const level = result.kind === 'completed' ? 'debug' : 'info';
    deps.logger[level](RECORD_PROCESSED_MESSAGE, {
      event: RECORD_LOG_EVENT,
      messageId: record.messageId,
      outcome: result,
      calls,
    });
    countOutcome(deps.metrics, result);
    return result;
  };
}

/** Once per invocation: records went back unrun, each a receive spent toward the backstop. */
function warnOfTheCut(deps: ConsumerDeps, batchSize: number, longestRecordMs: number): void {
  deps.logger.warn('records handed back unrun: no time left in the invocation for them', {
    event: TIME_GUARD_CUT_LOG_EVENT,
    batchSize,
    longestRecordMs,
    timeoutSeconds: deps.config.policy.attemptTimeoutSeconds,
    hint: 'each costs a receive toward the backstop: a smaller batch or a longer timeout fits the batch',
  });
}

/** Records behind a crash suspect: invisible as long as a crash would keep them, each a little longer. */
async function stagger(deps: ConsumerDeps, staggered: SuspectPlan<SourceRecord>['stagger']): Promise<void> {
  if (staggered.length === 0) return;
  await Promise.all(staggered.map(({ record, seconds }) => returnAfter(deps, record, seconds)));
  deps.logger.info('records behind a crash suspect staggered', {
    event: SUSPECTS_STAGGERED_LOG_EVENT,
    messages: staggered.map(({ record, seconds }) => ({ messageId: record.messageId, seconds })),
  });
}

/**
 * A held-back FIFO record comes back when its group's blocker does, not a visibility timeout
 * later. If that fails, the record only waits out its visibility timeout: nothing is lost.
 */
async function holdBack(deps: ConsumerDeps, record: SourceRecord, seconds: number): Promise<void> {
  await deps.queue.delay(record.receiptHandle, seconds).catch((error: unknown) => {
    deps.logger.warn('held-back FIFO record keeps its visibility timeout', {
      event: 'fifo-hold-back-failed',
      messageId: record.messageId,
      error: error as Error,
    });
  });
}

/**
 * This batch paused for an outage: what it hands back is what the next probe needs. A stop
 * waits for a person: its records keep their visibility timeout.
 */
async function handBackForTheProbe(
  deps: ConsumerDeps,
  breaker: BreakerRecord | undefined,
  records: readonly SourceRecord[],
  outcomes: ReadonlyMap<string, RecordOutcome>,
): Promise<void> {
  const wait = handBackSeconds(deps, breaker);
  const returned = records.filter(
    (record) => (outcomes.get(record.messageId) ?? NOT_STARTED).kind === 'returned',
  );
  await Promise.all(returned.map((record) => returnAfter(deps, record, wait)));
}

/**
 * Of the records on their last receive, one runs; a crash of it would hand the others back and
 * SQS would move them to the backstop, past any evidence. So the others are quarantined first,
 * without running (receive-limit, uncharged) and acknowledged at once; `pq replay` brings them
 * back. The one that runs is the least suspect (FIFO: the first, to keep its group's order).
 */
async function setAsideBesideLastReceive(
  deps: ConsumerDeps,
  session: RecordSession,
  records: readonly SourceRecord[],
): Promise<Map<SourceRecord, RecordOutcome>> {
  const setAside = new Map<SourceRecord, RecordOutcome>();
  const onLast = records.filter((record) => onLastReceive(deps, record));
  if (onLast.length < 2) return setAside;
  const [runs, ...beside] = deps.config.ordered ? onLast : await orderSuspects(deps, onLast);
  const evidence = besideAnotherLastReceiveEvidence(runs.messageId);
  for (const record of beside) {
    const outcome = await returnedOnError(deps, session, record, () =>
      quarantineUnrun(deps, session, record, evidence),
    );
    if (FINISHED.has(outcome.kind)) await acknowledgeNow(deps, record);
    setAside.set(record, outcome);
  }
  return setAside;
}

/**
 * When a record this batch handed back for an outage comes again: after the first cool-down
 * when the batch tripped the breaker, in the next window when it was the probe.
 */
function handBackSeconds(deps: ConsumerDeps, breaker: BreakerRecord | undefined): number {
  return breaker?.state === BREAKER_STATE.halfOpen
    ? nextWindowSeconds(breaker.cooldownSeconds, deps.config.breakerTimings)
    : deps.config.policy.breakerCooldownSeconds;
}

/** At most once per control-cache period per environment: a batch while paused is rare anyway. */
async function checkPauseAlive(
  deps: ConsumerDeps,
  state: BatchState,
  breaker: OpenBreaker | HalfOpenBreaker,
): Promise<void> {
  const now = deps.now().getTime();
  if (now - state.pauseCheckedAt < deps.config.controlCacheSeconds * 1000) return;
  state.pauseCheckedAt = now;
  try {
    await keepPauseAlive(deps, breaker, restartPauseTimings(breaker, now, deps.config.breakerTimings));
  } catch (error) {
    // The records go back either way; the next check tries again.
    deps.logger.error('the pause execution could not be checked or restarted', {
      event: 'pause-unchecked',
      epoch: breaker.epoch,
      error: error as Error,
    });
  }
}

async function acknowledgeNow(deps: ConsumerDeps, record: SourceRecord): Promise<void> {
  await deps.queue.acknowledge(record.receiptHandle).catch((error: unknown) => {
    // Best effort: the batch response still acknowledges it if the invocation returns.
    deps.logger.warn('finished record left to the batch response', {
      event: 'acknowledge-failed',
      messageId: record.messageId,
      error: error as Error,
    });
  });
}

/** Redelivered records in suspect order (one at a time, least suspect first). */
async function orderSuspects(
  deps: ConsumerDeps,
  suspects: readonly SourceRecord[],
): Promise<readonly SourceRecord[]> {
  const glances = await glanceAt(deps, suspects);
  return glances === undefined ? suspects : suspectOrder(suspects, keyOfIn(deps), glances);
}

/** Which redelivered records run with the fresh ones, which alone, and which are staggered. */
async function planRedelivered(
  deps: ConsumerDeps,
  suspects: readonly SourceRecord[],
): Promise<SuspectPlan<SourceRecord>> {
  const glances = await glanceAt(deps, suspects);
  // Unread (one record, or the ledger unavailable): each may have crashed, so each runs alone.
  return glances === undefined
    ? { pool: [], alone: suspects, stagger: [] }
    : planSuspects(suspects, { keyOf: keyOfIn(deps), receivesOf }, glances, deps.config.policy);
}

/**
 * One eventually consistent read for the batch's redelivered records, only when there are two
 * or more (one runs whatever the ledger says); undefined when the ledger could not be read.
 */
async function glanceAt(
  deps: ConsumerDeps,
  suspects: readonly SourceRecord[],
): Promise<ReadonlyMap<string, LedgerGlance> | undefined> {
  if (suspects.length < 2) return undefined;
  try {
    return await deps.ledger.glance(suspects.map(keyOfIn(deps)));
  } catch (error) {
    // Only the order is lost: each record still goes through its own start write.
    deps.logger.warn('redelivered records run in SQS order: the ledger could not be read', {
      event: 'suspect-order-unread',
      error: error as Error,
    });
    return undefined;
  }
}

function keyOfIn(deps: ConsumerDeps): (record: SourceRecord) => string {
  return (record) => keyOfRecord(record, deps.config.messageKeyPath).key;
}

function receivesOf(record: SourceRecord): number {
  return receiveCountOf(record.attributes);
}

function splitSuspects(records: readonly SourceRecord[]) {
  const delivered = (record: SourceRecord) => receivesOf(record) > 1;
  return { fresh: records.filter((record) => !delivered(record)), suspects: records.filter(delivered) };
}

/** Runs records with at most `limit()` at once; the limit may drop while the pool runs. */
async function runPool(records: readonly SourceRecord[], limit: () => number, run: Run): Promise<void> {
  let next = 0;
  const worker = async (slot: number) => {
    while (next < records.length && slot < limit()) {
      const record = records[next++];
      await run(record);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit(), records.length) }, (_, slot) => worker(slot)));
}

/**
 * An ordered source (SQS FIFO, Kafka): records in order, one at a time. After a record of a
 * group (a message group, a topic-partition) is not finished, the rest of that group is returned
 * unprocessed, as Lambda itself would, to keep the group's order.
 */
async function runFifo(
  records: readonly SourceRecord[],
  run: Run,
  holdBack: (record: SourceRecord, seconds: number) => Promise<void>,
): Promise<void> {
  const blockedFor = new Map<string, number>();
  for (const record of records) {
    const group = record.orderGroup ?? '';
    const delay = blockedFor.get(group);
    if (delay !== undefined) {
      await holdBack(record, delay);
      continue;
    }
    const outcome = await run(record);
    if (outcome.kind === 'retry') blockedFor.set(group, outcome.delaySeconds);
    if (outcome.kind === 'returned') blockedFor.set(group, 0);
  }
}
