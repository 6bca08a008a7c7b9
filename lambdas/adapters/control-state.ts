/**
 * The control table (docs/design.md, "Control table"): the breaker, the isolation trial, the
 * failure window, crash counts and the replay freeze. Every transition several execution
 * environments may race on is one conditional write, so exactly one of them wins.
 */
import { createHash } from 'node:crypto';
import {
  BatchGetItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  BREAKER_ATTRIBUTES as A,
  BREAKER_STATE,
  CONSUMER_PARTITIONS as P,
  stopRequestSortKey,
} from '../../contract/control';
import type { BreakerReading, OpenBreaker, ProbeResult } from '../core/breaker';
import { type ActiveTrial, type IsolationTrial, NO_TRIAL } from '../core/isolation';
import type { FailureEvent } from '../core/outage';
import type { AuditEntry } from '../core/quarantine-record';
import { defaultPolicy, type Policy } from '../core/types';
import type { ControlSnapshot } from '../ports/control';
import { ControlStateUnavailableError } from '../ports/errors';
import { BOOL, type Item, ItemReader, M, N, S } from './attribute-values';
import {
  APPEND_AUDIT,
  AUDIT_INTACT,
  auditProblem,
  auditValues,
  type ConditionalUpdate,
  guarded,
  namesIn,
  putIf,
  updateIf,
} from './conditional-writes';
import {
  BREAKER_KEY,
  BREAKER_READ_ATTRIBUTES,
  FREEZE_KEY,
  ISOLATION_KEY,
  readBreaker,
  toIsolation,
} from './control-items';
import { auditEntryAttribute } from './quarantine-item';
import { describeSdkError } from './sdk-errors';

/** The breaker item as stored, and as read: what an operator's reset is conditioned on. */
export interface BreakerItem {
  readonly reading: BreakerReading;
  readonly attributes: Item;
}

export interface ReplayFreeze {
  readonly frozen: boolean;
  readonly who: string;
  /** ISO-8601. */
  readonly when: string;
  readonly why: string;
}

/** The first cool-down, written when the breaker item is created by a trip. */
type FirstCooldown = Pick<Policy, 'breakerCooldownSeconds'>;

/** BatchGetItem may leave keys unprocessed under load; after this many rounds the read fails. */
const BATCH_ROUNDS = 5;

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

export class ControlState {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly timings: FirstCooldown = defaultPolicy(),
  ) {}

  /** Breaker, isolation trial and freeze in one BatchGetItem (strongly consistent). */
  async snapshot(): Promise<ControlSnapshot> {
    let keys: Item[] = [BREAKER_KEY, ISOLATION_KEY, FREEZE_KEY];
    const items: Item[] = [];
    for (let round = 0; keys.length > 0; round++) {
      if (round === BATCH_ROUNDS) {
        throw new ControlStateUnavailableError(
          `Control table ${this.tableName}: snapshot left keys unprocessed`,
        );
      }
      if (round > 0) await sleep(25 * 2 ** round);
      const request = { RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } } };
      const result = await this.guard('snapshot', () => this.client.send(new BatchGetItemCommand(request)));
      items.push(...(result.Responses?.[this.tableName] ?? []));
      keys = result.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
    }
    const find = (key: Item) => items.find((item) => item.pk?.S === key.pk?.S && item.sk?.S === key.sk?.S);
    const breaker = find(BREAKER_KEY);
    const isolation = find(ISOLATION_KEY);
    const freeze = find(FREEZE_KEY);
    return {
      breaker: breaker && readBreaker(breaker, this.timings.breakerCooldownSeconds),
      isolation: isolation && toIsolation(isolation),
      replayFrozen: freeze !== undefined && new ItemReader(freeze, 'replay freeze').boolean('frozen'),
    };
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
    await this.put('recordFailureEvent', item);
  }

  /**
   * Failure events at or after `since`, newest first (sort keys start with ISO times, so this
   * is a key condition), one small page at a time until `distinctKeysEnough` distinct keys were
   * read: a verdict they settle needs no older event, and every environment that fails during an
   * outage reads the window, so a read of the whole window would grow with its square.
   */
  async failuresSince(since: Date, distinctKeysEnough: number): Promise<FailureEvent[]> {
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
      const page = await this.guard('failuresSince', () => this.client.send(query));
      for (const item of page.Items ?? []) {
        const read = new ItemReader(item, 'failure event');
        events.push({ key: read.string('key'), at: read.number('at') });
        keys.add(read.string('key'));
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
    const outcome = await this.guard('crashInFlight', () =>
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
    await this.put('recordLostCompletion', {
      pk: S(P.lostCompletion),
      sk: S(lostCompletionSortKey(lost.key)),
      attemptId: S(lost.attemptId),
      expiresAt: N(lost.expiresAt),
    });
  }

  async lostCompletion(key: string): Promise<string | undefined> {
    const result = await this.guard('lostCompletion', () =>
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
    const outcome = await this.update('tripBreaker', BREAKER_KEY, {
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
   * Rule 11: a stop request, in force until an operator's resume lifts it. An UpdateItem, which
   * creates it, so that an operator's reset (whose role holds no PutItem) requests one as well.
   */
  async requestStop(reason: string, at: Date): Promise<void> {
    await this.guard('requestStop', () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { pk: S(P.stop), sk: S(stopRequestSortKey(at, reason)) },
          UpdateExpression: 'SET #reason = :reason',
          ExpressionAttributeNames: namesIn('#reason'),
          ExpressionAttributeValues: { ':reason': S(reason) },
        }),
      ),
    );
  }

  /**
   * Rule 7: the half-open probe's result, as the pause state machine reads it (it owns the
   * breaker's transitions, because closing means restoring the mapping): one ADD to
   * `probeSuccesses` or `probeFailures` (and `probeRepeatFailures` for a repeated failure), only
   * while the breaker is half-open.
   */
  async recordProbe(result: ProbeResult): Promise<{ readonly counted: boolean }> {
    const outcome = await this.update('recordProbe', BREAKER_KEY, {
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
    const claimed = await this.update(
      'startIsolation',
      { pk: S(P.crash), sk: S(start.cause) },
      {
        update: 'SET #trialStarted = :true, #expiresAt = if_not_exists(#expiresAt, :expiresAt)',
        condition: 'attribute_not_exists(#trialStarted)',
        values: { ':true': BOOL(true), ':expiresAt': N(start.expiresAt) },
      },
    );
    if (!claimed.ok) return (await this.snapshot()).isolation ?? NO_TRIAL;
    const trial: ActiveTrial = {
      active: true,
      remaining: start.messages,
      startedAt: start.now.getTime(),
      reason: start.reason ?? 'unattributable-crash',
    };
    await this.put('startIsolation', {
      ...ISOLATION_KEY,
      active: BOOL(true),
      remaining: N(trial.remaining),
      startedAt: N(trial.startedAt),
      reason: S(trial.reason),
      cause: S(start.cause),
    });
    return trial;
  }

  /** One message passed the trial without a crash: count down; the last one ends the trial. */
  async isolationMessagePassed(): Promise<IsolationTrial> {
    const values = { ':true': BOOL(true), ':one': N(1) };
    const counted = await this.update('isolationMessagePassed', ISOLATION_KEY, {
      update: 'SET #remaining = #remaining - :one',
      condition: HAS_MORE_TO_PASS,
      values,
    });
    if (counted.ok) return toIsolation(counted.item);
    if (counted.old === undefined || !toIsolation(counted.old).active) return NO_TRIAL;
    const ended = await this.update('isolationMessagePassed', ISOLATION_KEY, {
      update: 'SET #active = :false, #remaining = :zero',
      condition: PASSES_LAST,
      values: { ...values, ':false': BOOL(false), ':zero': N(0) },
    });
    // Not ended by this call: another environment ended it, or a crash restarted it. Either stands.
    const after = ended.ok ? ended.item : ended.old;
    return after === undefined ? NO_TRIAL : toIsolation(after);
  }

  /** The breaker item, strongly consistent; undefined when the breaker never opened. */
  async breakerItem(): Promise<BreakerItem | undefined> {
    const result = await this.guard('breakerItem', () =>
      this.client.send(
        new GetItemCommand({ TableName: this.tableName, Key: BREAKER_KEY, ConsistentRead: true }),
      ),
    );
    const attributes = result.Item;
    if (attributes === undefined) return undefined;
    return { reading: readBreaker(attributes, this.timings.breakerCooldownSeconds), attributes };
  }

  /**
   * An operator's repair of an unreadable breaker item (`pq reset-breaker`): it becomes
   * `repaired`, with the audit entry, only while every attribute a reading depends on is as
   * `read` had it, so a breaker a consumer or the state machine rewrote since is left alone. The
   * old episode's probe counts go (its answers are its own epoch's); what the pause remembered
   * of the mapping stays, for the resume to restore. A repaired stop is requested, as a trip's.
   */
  async resetUnreadableBreaker(
    read: BreakerItem,
    repaired: OpenBreaker,
    entry: AuditEntry,
  ): Promise<{ readonly reset: boolean }> {
    const unchanged = BREAKER_READ_ATTRIBUTES.map((name) =>
      read.attributes[name] === undefined ? `attribute_not_exists(#${name})` : `#${name} = :was_${name}`,
    );
    const was = Object.fromEntries(
      BREAKER_READ_ATTRIBUTES.filter((name) => read.attributes[name] !== undefined).map((name) => [
        `:was_${name}`,
        read.attributes[name],
      ]),
    );
    const outcome = await this.update('resetUnreadableBreaker', BREAKER_KEY, {
      update:
        `SET #${A.state} = :open, #${A.reason} = :reason, #${A.epoch} = :epoch, #${A.openedAt} = :openedAt, ` +
        `#${A.stop} = :stop, #${A.cooldownSeconds} = :cooldown, ${APPEND_AUDIT} ` +
        `REMOVE #${A.probeSuccesses}, #${A.probeFailures}, #${A.probeRepeatFailures}, #${A.halfOpenAt}`,
      condition: ['attribute_exists(#pk)', ...unchanged, AUDIT_INTACT].join(' AND '),
      values: {
        ...was,
        ':open': S(repaired.state),
        ':reason': S(repaired.reason),
        ':epoch': N(repaired.epoch),
        ':openedAt': N(repaired.openedAt),
        ':stop': BOOL(repaired.stop),
        ':cooldown': N(repaired.cooldownSeconds),
        ...auditValues(auditEntryAttribute(entry)),
      },
    });
    if (outcome.ok && repaired.stop) await this.requestStop(repaired.reason, new Date(repaired.openedAt));
    return { reset: outcome.ok };
  }

  /** Rule 11c: an operator freezes (or thaws) all replay. */
  async setReplayFreeze(freeze: {
    readonly frozen: boolean;
    readonly who: string;
    readonly why: string;
    readonly now: Date;
  }): Promise<ReplayFreeze> {
    const record = {
      frozen: freeze.frozen,
      who: freeze.who,
      when: freeze.now.toISOString(),
      why: freeze.why,
    };
    // The latest state on top, every change kept in `audit` (rule 4: every action is recorded).
    const entry = M({
      who: S(record.who),
      when: S(record.when),
      what: S(record.frozen ? 'freeze' : 'unfreeze'),
      why: S(record.why),
    });
    const outcome = await this.update('setReplayFreeze', FREEZE_KEY, {
      update: `SET #frozen = :frozen, #who = :who, #when = :when, #why = :why, ${APPEND_AUDIT}`,
      condition: AUDIT_INTACT,
      values: {
        ':frozen': BOOL(record.frozen),
        ':who': S(record.who),
        ':when': S(record.when),
        ':why': S(record.why),
        ...auditValues(entry),
      },
    });
    if (!outcome.ok)
      throw new ControlStateUnavailableError(
        `Control table ${this.tableName}: replay not ${record.frozen ? 'frozen' : 'unfrozen'}: the freeze item's ${auditProblem(outcome.old ?? {}) ?? 'audit is not intact'}`,
      );
    return record;
  }

  private update(operation: string, key: Item, parts: Omit<ConditionalUpdate, 'tableName' | 'key'>) {
    return this.guard(operation, () => updateIf(this.client, { tableName: this.tableName, key, ...parts }));
  }

  private async put(operation: string, item: Item): Promise<void> {
    await this.guard(operation, () =>
      this.client.send(new PutItemCommand({ TableName: this.tableName, Item: item })),
    );
  }

  private guard<T>(operation: string, call: () => Promise<T>): Promise<T> {
    return guarded(
      call,
      (error) =>
        new ControlStateUnavailableError(
          `Control table ${this.tableName}: ${operation} failed: ${describeSdkError(error)}`,
          {
            cause: error,
          },
        ),
    );
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
