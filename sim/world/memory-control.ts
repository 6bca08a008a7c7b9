/**
 * The control table in memory, with the conditions of lambdas/adapters/control-state.ts: one
 * breaker item tripped by a conditional write (one winner per epoch), a stop request before each
 * stop trip, probe counters only while half-open, the isolation trial's count-down, failure
 * events and first-discoverer crash counts. A garbled breaker item is kept as its attributes and
 * read by the adapter's own mapping. Of the operator partition it keeps the answer to the
 * current episode (on `breaker`, as a new epoch's answer item starts empty), the stops lifted
 * and the replay freeze.
 */
import {
  BREAKER_ATTRIBUTES as A,
  BREAKER_STATE,
  type BreakerAction,
  CONSUMER_PARTITIONS,
  stopRequestSortKey,
} from '../../contract/control';
import { type Item, ItemReader } from '../../lambdas/adapters/attribute-values';
import { readBreaker } from '../../lambdas/adapters/control-items';
import { lostCompletionSortKey } from '../../lambdas/adapters/control-state';
import type { BreakerRecord, ProbeResult } from '../../lambdas/core/breaker';
import { type ActiveTrial, type IsolationTrial, NO_TRIAL } from '../../lambdas/core/isolation';
import { countsTowardOutage, type FailureEvent } from '../../lambdas/core/outage';
import type { ControlPort } from '../../lambdas/ports/consumer-ports';
import type { ControlSnapshot } from '../../lambdas/ports/control';
import { ControlStateUnavailableError } from '../../lambdas/ports/errors';
import { checkKey } from './dynamodb-limits';

export interface StoredBreaker {
  readonly record: BreakerRecord;
  readonly probeSuccesses: number;
  readonly probeFailures: number;
  /** Absent: none (the state machine sets it to 0 at each window; older tests leave it out). */
  readonly probeRepeatFailures?: number;
  /** Absent: none, as `probeRepeatFailures`. */
  readonly probeOwnFailures?: number;
  /** `pq resume` / `pq hold`: the answer item of this epoch (`operator`/`answer#<epoch>`). */
  readonly operatorAction?: BreakerAction;
}

export class MemoryControl implements ControlPort {
  breaker: StoredBreaker | undefined;
  /**
   * The breaker item as a person or a bug garbled it (corruptBreaker): while set it is the item,
   * and `breaker` is unused.
   */
  garbledBreaker: Item | undefined;
  isolation: IsolationTrial | undefined;
  replayFrozen = false;
  /** Stop requests by sort key (`<ISO time>#<reason>`): added by stop trips, never removed. */
  readonly stopRequests = new Set<string>();
  /** The newest stop request an operator's resume lifted (`operator`/`stops-lifted`). */
  stopsLiftedThrough: string | undefined;
  /** Failure events by sort key (`<ISO time>#<eventId>`), as the table's `failure` partition holds them. */
  readonly failures = new Map<string, FailureEvent>();
  readonly crashes = new Map<string, number>();
  /** Lost completions by sort key (control-state.ts `lostCompletionSortKey`), as the table holds them. */
  readonly lostCompletions = new Map<string, string>();
  /** Crashes that (re)started the trial already: the `trialStarted` mark on their crash items. */
  private readonly trialCauses = new Set<string>();
  /** Trials (re)started, for the campaign's count: calls that found theirs started do not count. */
  trialsStarted = 0;

  constructor(private readonly firstCooldownSeconds: number) {}

  /**
   * Only an item no conditional write admits (a state that is neither closed nor half-open, and
   * no `stop` of false), so that the writes below fail on it as they fail on the table.
   */
  corruptBreaker(item: Item): void {
    const admits: readonly string[] = [BREAKER_STATE.closed, BREAKER_STATE.halfOpen];
    const admitted = admits.includes(item[A.state]?.S ?? '') || item[A.stop]?.BOOL === false;
    if (admitted) throw new Error('MemoryControl models only garbled breaker items no write admits');
    this.breaker = undefined;
    this.garbledBreaker = item;
  }

  async snapshot(): Promise<ControlSnapshot> {
    const garbled = this.garbledBreaker;
    return {
      breaker:
        garbled === undefined
          ? this.breaker && breakerAsRead(this.breaker)
          : readBreaker(garbled, this.firstCooldownSeconds),
      isolation: this.isolation && structuredClone(this.isolation),
      replayFrozen: this.replayFrozen,
    };
  }

  /** A put keyed by time and event id: a retried write of the same event is still one event. */
  async recordFailureEvent(event: {
    readonly key: string;
    readonly kind: 'transient' | 'crash';
    readonly at: Date;
    readonly eventId: string;
  }): Promise<void> {
    const sortKey = `${event.at.toISOString()}#${event.eventId}`;
    keyed('recordFailureEvent', 'failure', sortKey);
    this.failures.set(sortKey, { key: event.key, kind: event.kind, at: event.at.getTime() });
  }

  /**
   * A key-condition query, newest first (time, then event id, descending), one event at a time
   * until `distinctKeysEnough` distinct keys were read, as the adapter does a page at a time.
   */
  async failuresSince(since: Date, distinctKeysEnough: number, lastPassAt?: number): Promise<FailureEvent[]> {
    const from = since.toISOString();
    const newestFirst = [...this.failures.entries()]
      .filter(([sortKey]) => sortKey >= from)
      .sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0))
      .map(([, event]) => ({ ...event }));
    const keys = new Set<string>();
    const read: FailureEvent[] = [];
    for (const event of newestFirst) {
      if (keys.size >= distinctKeysEnough) break;
      read.push(event);
      if (countsTowardOutage(event, lastPassAt)) keys.add(event.key);
    }
    return read;
  }

  async crashInFlight(envId: string, countIfFirst: () => Promise<number>): Promise<number> {
    const counted = await countIfFirst();
    keyed('crashInFlight', 'crash', envId);
    const fixed = this.crashes.get(envId);
    if (fixed !== undefined) return fixed;
    this.crashes.set(envId, counted);
    return counted;
  }

  async recordLostCompletion(lost: { readonly key: string; readonly attemptId: string }): Promise<void> {
    this.lostCompletions.set(
      keyed('recordLostCompletion', 'lost-completion', lostCompletionSortKey(lost.key)),
      lost.attemptId,
    );
  }

  async lostCompletion(key: string): Promise<string | undefined> {
    return this.lostCompletions.get(keyed('lostCompletion', 'lost-completion', lostCompletionSortKey(key)));
  }

  async tripBreaker(trip: {
    readonly reason: string;
    readonly now: Date;
    readonly stop: boolean;
  }): Promise<{ readonly tripped: boolean; readonly epoch: number }> {
    if (trip.stop)
      this.stopRequests.add(
        keyed('requestStop', CONSUMER_PARTITIONS.stop, stopRequestSortKey(trip.now, trip.reason)),
      );
    // The condition fails on a garbled item, and the loser learns its epoch if that can be read.
    const garbled = this.garbledBreaker;
    if (garbled !== undefined)
      return { tripped: false, epoch: new ItemReader(garbled, 'breaker').counter(A.epoch) };
    const current = this.breaker?.record;
    const admits =
      current === undefined ||
      current.state === BREAKER_STATE.closed ||
      (trip.stop && current.stop === false);
    if (!admits) return { tripped: false, epoch: current.epoch };
    const epoch = (current?.epoch ?? 0) + 1;
    this.breaker = {
      record: {
        state: BREAKER_STATE.open,
        reason: trip.reason,
        epoch,
        openedAt: trip.now.getTime(),
        cooldownSeconds: current?.cooldownSeconds ?? this.firstCooldownSeconds,
        stop: trip.stop,
      },
      probeSuccesses: this.breaker?.probeSuccesses ?? 0,
      probeFailures: this.breaker?.probeFailures ?? 0,
    };
    return { tripped: true, epoch };
  }

  async recordProbe(result: ProbeResult): Promise<{ readonly counted: boolean }> {
    const breaker = this.breaker;
    if (this.garbledBreaker !== undefined || breaker?.record.state !== BREAKER_STATE.halfOpen)
      return { counted: false };
    if (result === 'success') this.breaker = { ...breaker, probeSuccesses: breaker.probeSuccesses + 1 };
    else {
      const repeated = result === 'repeated-failure' ? 1 : 0;
      const own = result === 'own-failure' ? 1 : 0;
      this.breaker = {
        ...breaker,
        probeFailures: breaker.probeFailures + 1,
        probeRepeatFailures: (breaker.probeRepeatFailures ?? 0) + repeated,
        probeOwnFailures: (breaker.probeOwnFailures ?? 0) + own,
      };
    }
    return { counted: true };
  }

  async startIsolation(start: {
    readonly now: Date;
    readonly messages: number;
    readonly cause: string;
    readonly expiresAt: number;
    readonly reason?: string;
  }): Promise<IsolationTrial> {
    // As ControlState: once per crash, whatever happened since; else the trial as it stands.
    keyed('startIsolation', 'crash', start.cause);
    if (this.trialCauses.has(start.cause)) return structuredClone(this.isolation ?? NO_TRIAL);
    this.trialCauses.add(start.cause);
    this.trialsStarted += 1;
    const lastPassAt = this.isolation?.lastPassAt;
    const trial: ActiveTrial = {
      active: true,
      remaining: start.messages,
      startedAt: start.now.getTime(),
      reason: start.reason ?? 'unattributable-crash',
      // As ControlState's update: the last pass outlives a restart.
      ...(lastPassAt === undefined ? {} : { lastPassAt }),
    };
    this.isolation = trial;
    return trial;
  }

  /** The newest stop request no resume lifted: while one stands, the pause enables nothing. */
  stopInForce(): string | undefined {
    const newest = [...this.stopRequests].sort().at(-1);
    const lifted = this.stopsLiftedThrough;
    return newest !== undefined && (lifted === undefined || newest > lifted) ? newest : undefined;
  }

  /** `pq resume` lifts every stop request made so far (OperatorControl.setOperatorAction). */
  liftStops(): void {
    const newest = [...this.stopRequests].sort().at(-1);
    if (newest !== undefined && (this.stopsLiftedThrough === undefined || newest > this.stopsLiftedThrough))
      this.stopsLiftedThrough = newest;
  }

  async isolationMessagePassed(now: Date): Promise<IsolationTrial> {
    keyed('isolationMessagePassed', 'isolation', 'state');
    const trial = this.isolation;
    if (trial === undefined || !trial.active) return trial ?? NO_TRIAL;
    const lastPassAt = now.getTime();
    this.isolation =
      trial.remaining > 1
        ? { ...trial, remaining: trial.remaining - 1, lastPassAt }
        : { ...NO_TRIAL, lastPassAt };
    return structuredClone(this.isolation);
  }
}

/** The sort key of a request, refused as DynamoDB refuses a key over its limits. */
function keyed(operation: string, pk: string, sk: string): string {
  checkKey(ControlStateUnavailableError, `Control table control: ${operation}`, { pk, sk });
  return sk;
}

/** As control-items.ts reads the item: a half-open breaker carries its window's probe counts. */
function breakerAsRead(breaker: StoredBreaker): BreakerRecord {
  const record = structuredClone(breaker.record);
  const { probeSuccesses, probeFailures, probeRepeatFailures = 0 } = breaker;
  return record.state === BREAKER_STATE.halfOpen
    ? { ...record, probeSuccesses, probeFailures, probeRepeatFailures }
    : record;
}
