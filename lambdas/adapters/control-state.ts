/**
 * The control table (docs/design.md, "Control table"): the breaker, the isolation trial, the
 * failure window, crash counts and the replay freeze. Every transition several execution
 * environments may race on is one conditional write, so exactly one of them wins.
 */
import { createHash } from 'node:crypto';
import { type DynamoDBClient, GetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { BREAKER_ATTRIBUTES as A, BREAKER_STATE, CONSUMER_PARTITIONS as P } from '../../contract/control';
import type { ProbeResult } from '../core/breaker';
import { type IsolationTrial, NO_TRIAL } from '../core/isolation';
import type { FailureEvent } from '../core/outage';
import { countsTowardOutage } from '../core/outage';
import { defaultPolicy } from '../core/types';
import type { ControlSnapshot } from '../ports/control';
import { BOOL, type Item, ItemReader, N, S } from './attribute-values';
import { namesIn, putIf } from './conditional-writes';
import { BREAKER_KEY, ISOLATION_KEY, toIsolation } from './control-items';
import { ControlTable, type FirstCooldown } from './control-table';

/** DynamoDB's limit on a sort key, in UTF-8 bytes; a message key may be twice as long. */
const SORT_KEY_MAX_BYTES = 1024;

/**
 * A message key as the sort key of its `lost-completion` item: as it is when it fits, else its
 * sha256 (a key of 1025-2048 bytes would be refused).
 */
export function lostCompletionSortKey(key: string): string {
  return Buffer.byteLength(key, 'utf8') <= SORT_KEY_MAX_BYTES
    ? key
    : `sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

/** Failure events (about 150 bytes each) per page of the window: one read unit a page. */
export const FAILURE_EVENTS_PER_PAGE = 20;

// Breaker timeline: (absent) | closed --trip (consumer)--> open --(state machine, after the
// cool-down)--> half-open --(state machine, from the probe counters)--> closed | open. A stop
// trip escalates a breaker that is not stopped to a new episode. Each trip adds 1 to `epoch`,
// which names the pause execution.
const IS_ABSENT = 'attribute_not_exists(#pk)';
const IS_CLOSED = `#${A.state} = :closed`;
const IS_NOT_STOPPED = `#${A.stop} = :false`;
const IS_HALF_OPEN = `#${A.state} = :halfOpen`;
/** What each probe result adds to the breaker item (`:one` is 1). */
const PROBE_COUNTERS: Record<ProbeResult, string> = {
  success: `#${A.probeSuccesses} :one`,
  failure: `#${A.probeFailures} :one`,
  'repeated-failure': `#${A.probeFailures} :one, #${A.probeRepeatFailures} :one`,
  'own-failure': `#${A.probeFailures} :one, #${A.probeOwnFailures} :one`,
};
// Isolation timeline: startIsolation -> active, remaining n --passed--> n - 1 ... 1 --passed--> idle.
const HAS_MORE_TO_PASS = '#active = :true AND #remaining > :one';
const PASSES_LAST = '#active = :true AND #remaining <= :one';

/** The consumer's side of the control table; the operator's is operator-control-state.ts. */
export class ControlState {
  private readonly table: ControlTable;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly timings: FirstCooldown = defaultPolicy(),
  ) {
    this.table = new ControlTable(client, tableName, timings);
  }

  /** Breaker, isolation trial and freeze in one BatchGetItem (strongly consistent). */
  snapshot(): Promise<ControlSnapshot> {
    return this.table.snapshot();
  }

  /** Rule 11: a stop request, in force until an operator's resume lifts it. */
  requestStop(reason: string, at: Date): Promise<void> {
    return this.table.requestStop(reason, at);
  }

  /** Rule 7: one failure event (a transient error or a crash), kept for the window by TTL. */
  async recordFailureEvent(event: {
    readonly key: string;
    readonly kind: 'transient' | 'crash';
    readonly at: Date;
    readonly eventId: string;
    readonly expiresAt: number;
  }): Promise<void> {
    const item = {
      pk: S(P.failure),
      sk: S(`${event.at.toISOString()}#${event.eventId}`),
      key: S(event.key),
      kind: S(event.kind),
      at: N(event.at.getTime()),
      expiresAt: N(event.expiresAt),
    };
    await this.table.put('recordFailureEvent', item);
  }

  /**
   * Failure events at or after `since`, newest first (sort keys start with ISO times, so this
   * is a key condition), one small page at a time until `distinctKeysEnough` distinct keys were
   * read: a verdict they settle needs no older event, and every environment that fails during an
   * outage reads the window, so a read of the whole window would grow with its square. Only keys
   * of events that count (core/outage.ts `countsTowardOutage`, given the trial's `lastPassAt`)
   * make a page enough.
   */
  async failuresSince(since: Date, distinctKeysEnough: number, lastPassAt?: number): Promise<FailureEvent[]> {
    const events: FailureEvent[] = [];
    const keys = new Set<string>();
    let startKey: Item | undefined;
    do {
      const query = new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: '#pk = :pk AND #sk >= :since',
        ExpressionAttributeNames: namesIn('#pk #sk'),
        ExpressionAttributeValues: { ':pk': S(P.failure), ':since': S(since.toISOString()) },
        ConsistentRead: true,
        ScanIndexForward: false,
        Limit: FAILURE_EVENTS_PER_PAGE,
        ExclusiveStartKey: startKey,
      });
      const page = await this.table.guard('failuresSince', () => this.client.send(query));
      for (const item of page.Items ?? []) {
        const read = new ItemReader(item, 'failure event');
        const kind = read.optionalString('kind') === 'crash' ? 'crash' : 'transient';
        const event = { key: read.string('key'), at: read.number('at'), kind } as const;
        events.push(event);
        if (countsTowardOutage(event, lastPassAt)) keys.add(event.key);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined && keys.size < distinctKeysEnough);
    return events;
  }

  /**
   * How many messages the dead environment had in flight, fixed by its first discoverer: each
   * discoverer counts (before it settles its own message), only the first count is written, and
   * the others get it back from the failed condition (ALL_OLD), without another read.
   */
  async crashInFlight(
    envId: string,
    countIfFirst: () => Promise<number>,
    expiresAt: number,
  ): Promise<number> {
    const counted = await countIfFirst();
    const item = { pk: S(P.crash), sk: S(envId), inFlight: N(counted), expiresAt: N(expiresAt) };
    const outcome = await this.table.guard('crashInFlight', () =>
      putIf(this.client, { tableName: this.tableName, item, condition: IS_ABSENT }),
    );
    return outcome.ok ? counted : new ItemReader(outcome.old ?? {}, `crash ${envId}`).number('inFlight');
  }

  /** Rule 10: the work of `attemptId` succeeded, its completion write did not land. */
  async recordLostCompletion(lost: {
    readonly key: string;
    readonly attemptId: string;
    readonly expiresAt: number;
  }): Promise<void> {
    await this.table.put('recordLostCompletion', {
      pk: S(P.lostCompletion),
      sk: S(lostCompletionSortKey(lost.key)),
      attemptId: S(lost.attemptId),
      expiresAt: N(lost.expiresAt),
    });
  }

  async lostCompletion(key: string): Promise<string | undefined> {
    const result = await this.table.guard('lostCompletion', () =>
      this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: { pk: S(P.lostCompletion), sk: S(lostCompletionSortKey(key)) },
          ConsistentRead: true,
        }),
      ),
    );
    return result.Item === undefined
      ? undefined
      : new ItemReader(result.Item, 'lost completion').string('attemptId');
  }

  /**
   * Opens the breaker; among concurrent callers exactly one gets `tripped: true` and the new
   * epoch. A stop is requested first, on an item of its own: the breaker item is ours to
   * rewrite, so `stop` on it could be written away; the request can only be lifted by an
   * operator (docs/design.md, "Control table"), and the pause machine restores nothing while
   * one is in force. Requested before the trip, so no stop is ever without its request.
   */
  async tripBreaker(trip: {
    readonly reason: string;
    readonly now: Date;
    readonly stop: boolean;
  }): Promise<{ readonly tripped: boolean; readonly epoch: number }> {
    if (trip.stop) await this.requestStop(trip.reason, trip.now);
    const outcome = await this.table.update('tripBreaker', BREAKER_KEY, {
      update:
        `SET #${A.state} = :open, #${A.reason} = :reason, #${A.openedAt} = :now, #${A.stop} = :stop, ` +
        `#${A.cooldownSeconds} = if_not_exists(#${A.cooldownSeconds}, :cooldown) ADD #${A.epoch} :one`,
      condition: trip.stop
        ? `${IS_ABSENT} OR ${IS_CLOSED} OR ${IS_NOT_STOPPED}`
        : `${IS_ABSENT} OR ${IS_CLOSED}`,
      values: {
        ':open': S(BREAKER_STATE.open),
        ':closed': S(BREAKER_STATE.closed),
        ':reason': S(trip.reason),
        ':now': N(trip.now.getTime()),
        ':stop': BOOL(trip.stop),
        ':cooldown': N(this.timings.breakerCooldownSeconds),
        ':one': N(1),
        ...(trip.stop ? { ':false': BOOL(false) } : {}),
      },
    });
    const item = outcome.ok ? outcome.item : outcome.old;
    return {
      tripped: outcome.ok,
      epoch: item === undefined ? 0 : new ItemReader(item, 'breaker').counter(A.epoch),
    };
  }

  /**
   * Rule 7: the half-open probe's result, as the pause state machine reads it (it owns the
   * breaker's transitions, because closing means restoring the mapping): one ADD to
   * `probeSuccesses` or `probeFailures` (and `probeRepeatFailures` for a repeated failure), only
   * while the breaker is half-open.
   */
  async recordProbe(result: ProbeResult): Promise<{ readonly counted: boolean }> {
    const outcome = await this.table.update('recordProbe', BREAKER_KEY, {
      update: `ADD ${PROBE_COUNTERS[result]}`,
      condition: IS_HALF_OPEN,
      values: { ':one': N(1), ':halfOpen': S(BREAKER_STATE.halfOpen) },
    });
    return { counted: outcome.ok };
  }

  /**
   * Rule 6: one message at a time until `messages` pass without a crash; a restart resets the
   * count, once per crash: a second call with the latest trial's cause leaves it as it is, even
   * once that trial has ended (the crash's other messages coming back later are served).
   */
  async startIsolation(start: {
    readonly now: Date;
    readonly messages: number;
    readonly cause: string;
    readonly expiresAt: number;
    readonly reason?: string;
  }): Promise<IsolationTrial> {
    // The crash's own item records that it (re)started the trial: one winner per crash, however
    // many of its messages come back and whatever other crashes happened in between.
    const claimed = await this.table.update(
      'startIsolation',
      { pk: S(P.crash), sk: S(start.cause) },
      {
        update: 'SET #trialStarted = :true, #expiresAt = if_not_exists(#expiresAt, :expiresAt)',
        condition: 'attribute_not_exists(#trialStarted)',
        values: { ':true': BOOL(true), ':expiresAt': N(start.expiresAt) },
      },
    );
    if (!claimed.ok) return (await this.snapshot()).isolation ?? NO_TRIAL;
    // An update, not a put: the trial's last pass (rule 7's crashes, core/outage.ts) outlives a restart.
    const started = await this.table.set(
      'startIsolation',
      ISOLATION_KEY,
      'SET #active = :true, #remaining = :remaining, #startedAt = :startedAt, #reason = :reason, #cause = :cause',
      {
        ':true': BOOL(true),
        ':remaining': N(start.messages),
        ':startedAt': N(start.now.getTime()),
        ':reason': S(start.reason ?? 'unattributable-crash'),
        ':cause': S(start.cause),
      },
    );
    return toIsolation(started);
  }

  /**
   * One message passed the trial without a crash: count down; the last one ends the trial. When
   * it passed is kept, so that a crash before it no longer counts toward rule 7 (core/outage.ts).
   */
  async isolationMessagePassed(now: Date): Promise<IsolationTrial> {
    const values = { ':true': BOOL(true), ':one': N(1), ':now': N(now.getTime()) };
    const counted = await this.table.update('isolationMessagePassed', ISOLATION_KEY, {
      update: 'SET #remaining = #remaining - :one, #lastPassAt = :now',
      condition: HAS_MORE_TO_PASS,
      values,
    });
    if (counted.ok) return toIsolation(counted.item);
    if (counted.old === undefined) return NO_TRIAL;
    if (!toIsolation(counted.old).active) return toIsolation(counted.old);
    const ended = await this.table.update('isolationMessagePassed', ISOLATION_KEY, {
      update: 'SET #active = :false, #remaining = :zero, #lastPassAt = :now',
      condition: PASSES_LAST,
      values: { ...values, ':false': BOOL(false), ':zero': N(0) },
    });
    // Not ended by this call: another environment ended it, or a crash restarted it. Either stands.
    const after = ended.ok ? ended.item : ended.old;
    return after === undefined ? NO_TRIAL : toIsolation(after);
  }
}
