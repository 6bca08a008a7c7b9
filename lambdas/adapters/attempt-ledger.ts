/**
 * The attempts table (docs/design.md, "Attempts table"): one conditional write per transition,
 * so the ledger, not SQS, knows how often a message was tried. Domain `key` <-> table `pk`.
 */
import {
  type AttributeValue,
  BatchGetItemCommand,
  type DynamoDBClient,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { LEDGER_STATE, type LedgerState } from '../../contract/ledger';
import type { LedgerGlance } from '../core/suspects';
import type { ExternalRecord, QuarantineIntent } from '../core/types';
import { LedgerUnavailableError, StaleAttemptError } from '../ports/errors';
import type {
  FailureRecord,
  LedgerEntry,
  QuarantineMark,
  RestartInput,
  StartInput,
  StartResult,
} from '../ports/ledger';
import {
  BOOL,
  evidenceToAttribute,
  externalToAttribute,
  type Item,
  ItemReader,
  intentToAttribute,
  N,
  S,
} from './attribute-values';
import { guarded, namesIn } from './conditional-writes';
import { describeEntry } from './ledger-item';
import {
  COMPLETED,
  IN_FLIGHT,
  IS_ATTEMPT,
  IS_NEW,
  IS_OPEN,
  LedgerTable,
  type Outcome,
  READY,
} from './ledger-table';

// Timeline of one item:
//   (absent) --start--> in-flight --complete--> completed
//                       in-flight --recordFailure--> ready --start--> in-flight ...
//                       in-flight | ready --beginQuarantine--> (same state, quarantining) --markQuarantined--> quarantined
//                       in-flight | ready --markQuarantined--> quarantined --resetForReplay--> ready
//   (absent) --createForReplay--> ready (a key-collision record's message, replayed under its own key)
//                       in-flight --(crash: nothing is written)--> in-flight --restartAfterCrash--> in-flight
// Every write after the start names its attempt, so a stale attempt cannot overwrite a newer one.
/**
 * A retry may start: below the limit (which may have been lowered), no call that must not repeat
 * and no quarantine begun (the next delivery finishes that instead).
 */
const IS_READY =
  '(#state = :ready AND #charged < :limit AND attribute_not_exists(#unrepeatable) AND attribute_not_exists(#quarantining))';
const NOT_QUARANTINING = 'attribute_not_exists(#quarantining)';
const NOT_AFTER_A_CRASH = 'attribute_not_exists(#lastAttemptCrashed)';
const IS_REPLAY_OF = '#replayOf = :replayOf';
/** Not reset for a replay, ever: a replay's generation admits only that replay (core/delivery.ts). */
const NO_REPLAY = 'attribute_not_exists(#replayOf)';
const IS_IN_FLIGHT = '#state = :inFlight';
const IS_PREVIOUS_ATTEMPT = '#attemptId = :previousAttemptId';

/** What starting an attempt sets; shared by `start` and `restartAfterCrash`. */
const BEGIN_ATTEMPT =
  '#state = :inFlight, #attemptId = :attemptId, #envId = :envId, #messageId = :messageId, ' +
  '#stage = :started, #lastAttemptAt = :now, #firstAttemptAt = if_not_exists(#firstAttemptAt, :now), ' +
  '#expiresAt = :expiresAt, #bodyDigest = :bodyDigest';
/** A first start (or an item written before these counters existed) gets them at 0. */
const COUNTER_DEFAULTS =
  '#charged = if_not_exists(#charged, :zero), #transientFailures = if_not_exists(#transientFailures, :zero), ' +
  '#unknownFailures = if_not_exists(#unknownFailures, :zero), #generation = if_not_exists(#generation, :zero)';

/** The consumer's side of the attempts table; the operator's is operator-ledger.ts. */
export class AttemptLedger {
  private readonly table: LedgerTable;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.table = new LedgerTable(client, tableName);
  }

  /**
   * The last quarantine step before the acknowledgement. The TTL is removed: a quarantined key
   * must stay known (rule 13 duplicates, a later replay) for as long as its record is open.
   */
  markQuarantined(key: string, mark: QuarantineMark): Promise<LedgerEntry> {
    return this.table.markQuarantined(key, mark);
  }

  /** Rule 1: the one write before the work. Fails closed: any error but the condition throws. */
  async start(input: StartInput): Promise<StartResult> {
    const { replayOf } = input;
    // A replay's start names it among the replays the item ran, so a redelivery of it after a
    // later reset is a duplicate (core/delivery.ts `replayAlreadyStarted`).
    const added = replayOf === undefined ? '' : ', #replaysStarted :replaysStarted';
    const outcome = await this.table.update('start', input.key, {
      update: `SET ${beginAttempt(input)}, ${COUNTER_DEFAULTS} REMOVE ${cleared(input)} ADD #attempts :one${added}`,
      condition: startCondition(input),
      values: {
        ...beginValues(input),
        ':ready': READY,
        ':zero': N(0),
        ':limit': N(input.attemptLimit),
        ...(replayOf === undefined
          ? {}
          : { ':replayOf': S(replayOf), ':replaysStarted': { SS: [replayOf] } }),
      },
    });
    // Without `replayOf` the condition admits a new key, so a refusal always has an item.
    if (!outcome.ok && outcome.previous === undefined) return { started: false, previous: undefined };
    return startResult('start', input.key, outcome);
  }

  /** Settles a crashed attempt (charging it or not) and starts the next one, in one write. */
  async restartAfterCrash(input: RestartInput): Promise<StartResult> {
    const outcome = await this.table.update('restartAfterCrash', input.key, {
      update: `SET ${beginAttempt(input)} REMOVE ${cleared(input)} ADD #attempts :one, #charged :charge, #crashes :alone`,
      condition: `${IS_IN_FLIGHT} AND ${IS_PREVIOUS_ATTEMPT} AND ${NOT_QUARANTINING}`,
      values: {
        ...beginValues(input),
        ':previousAttemptId': S(input.previousAttemptId),
        ':charge': N(input.charge),
        ':alone': N(input.crashedAlone ? 1 : 0),
      },
    });
    return startResult('restartAfterCrash', input.key, outcome);
  }

  /** The attempt in flight is alive for a while yet (LedgerItem.aliveUntil). */
  async renewLease(key: string, attemptId: string, aliveUntil: Date): Promise<LedgerEntry> {
    return this.whileInFlight('renewLease', key, attemptId, 'SET #aliveUntil = :aliveUntil', {
      ':aliveUntil': S(aliveUntil.toISOString()),
    });
  }

  /** `ctx.stage(name)`: the last durable stage of the attempt in flight. */
  async recordStage(key: string, attemptId: string, stage: string): Promise<LedgerEntry> {
    return this.whileInFlight('recordStage', key, attemptId, 'SET #stage = :stage', { ':stage': S(stage) });
  }

  /**
   * `ctx.external(...)`: `pending` before the outside call, `done` or `not-sent` after (rule 8),
   * and in the same write the attempt's sticky `unrepeatable` call (or its removal, once every
   * keyless call of the attempt was proven unsent).
   */
  async recordExternal(
    key: string,
    attemptId: string,
    external: ExternalRecord,
    unrepeatable?: ExternalRecord,
  ): Promise<LedgerEntry> {
    const sticky = unrepeatable === undefined ? ' REMOVE #unrepeatable' : ', #unrepeatable = :unrepeatable';
    return this.whileInFlight('recordExternal', key, attemptId, `SET #external = :external${sticky}`, {
      ':external': externalToAttribute(external),
      ...(unrepeatable === undefined ? {} : { ':unrepeatable': externalToAttribute(unrepeatable) }),
    });
  }

  /** The second and last write of a healthy message. A retry of a write that landed is a success. */
  async complete(key: string, attemptId: string, now: Date): Promise<LedgerEntry> {
    return this.whileInFlight(
      'complete',
      key,
      attemptId,
      'SET #state = :completed, #lastEndedAt = :now REMOVE #envId',
      { ':completed': COMPLETED, ':now': S(now.toISOString()) },
      (current) => current.state === LEDGER_STATE.completed && current.attemptId === attemptId,
    );
  }

  /**
   * A caught error with a retry ahead (or a crash settled during an outage, `crashed`): the
   * counters the core decided, `ready`. Without `lastError` the previous evidence stays.
   */
  async recordFailure(key: string, attemptId: string, failure: FailureRecord): Promise<LedgerEntry> {
    const { counters, lastError, crashed, failedProbe } = failure;
    return this.whileInFlight(
      'recordFailure',
      key,
      attemptId,
      'SET #state = :ready, #charged = :charged, #transientFailures = :transient, #unknownFailures = :unknown, ' +
        `#lastEndedAt = :now${lastError ? ', #lastError = :lastError' : ''}` +
        `${crashed === true ? ', #lastAttemptCrashed = :true' : ''} REMOVE #envId` +
        addOne(crashed === true && '#crashes', failedProbe === true && '#failedProbes'),
      {
        ':ready': READY,
        ':charged': N(counters.charged),
        ':transient': N(counters.transientFailures),
        ':unknown': N(counters.unknownFailures),
        ':now': S(failure.now.toISOString()),
        ...(lastError ? { ':lastError': evidenceToAttribute(lastError) } : {}),
        ...(crashed === true ? { ':true': BOOL(true) } : {}),
        ...(crashed === true || failedProbe === true ? { ':one': N(1) } : {}),
      },
      (current) => current.state === LEDGER_STATE.ready && current.attemptId === attemptId,
    );
  }

  /**
   * The first quarantine step, before any content is written: the decision, durable, so that a
   * delivery after a crash or a failed step finishes this quarantine under the same id instead
   * of running the message again. A retry after the write landed is a success.
   */
  async beginQuarantine(key: string, attemptId: string, intent: QuarantineIntent): Promise<LedgerEntry> {
    const outcome = await this.table.update('beginQuarantine', key, {
      update: 'SET #quarantining = :intent',
      condition: `${IS_ATTEMPT} AND ${IS_OPEN}`,
      values: {
        ':intent': intentToAttribute(intent),
        ':attemptId': S(attemptId),
        ':inFlight': IN_FLIGHT,
        ':ready': READY,
      },
    });
    if (outcome.ok) return outcome.item;
    const current = outcome.previous;
    if (current !== undefined && quarantinesAs(current, intent.id)) return current;
    throw new StaleAttemptError(
      `beginQuarantine refused for key ${JSON.stringify(key)}: ${describeEntry(current)}`,
      current,
    );
  }

  /** Keys the execution environment had in flight (the sparse byEnv index; eventually consistent). */
  async inFlightKeysOf(envId: string): Promise<string[]> {
    const keys: string[] = [];
    let startKey: Item | undefined;
    do {
      const page = await guarded(
        () =>
          this.client.send(
            new QueryCommand({
              TableName: this.tableName,
              IndexName: 'byEnv',
              KeyConditionExpression: '#envId = :envId',
              ProjectionExpression: '#pk',
              ExpressionAttributeNames: namesIn('#envId #pk'),
              ExpressionAttributeValues: { ':envId': S(envId) },
              ExclusiveStartKey: startKey,
            }),
          ),
        (error) => this.table.unavailable('inFlightKeysOf', error),
      );
      for (const item of page.Items ?? []) keys.push(new ItemReader(item, 'byEnv entry').string('pk'));
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined);
    return keys;
  }

  /**
   * State and charges of up to 100 keys in one eventually consistent read, to order redelivered
   * records (core/suspects.ts). Keys DynamoDB leaves unprocessed are left out: the order is a
   * preference, not a rule, and a retry would cost more than it saves.
   */
  async glance(keys: readonly string[]): Promise<ReadonlyMap<string, LedgerGlance>> {
    const unique = [...new Set(keys)].slice(0, 100);
    const result = await guarded(
      () =>
        this.client.send(
          new BatchGetItemCommand({
            RequestItems: {
              [this.tableName]: {
                Keys: unique.map((key) => ({ pk: S(key) })),
                ProjectionExpression: '#pk, #state, #attempts, #charged, #lastAttemptCrashed',
                ExpressionAttributeNames: namesIn('#pk #state #attempts #charged #lastAttemptCrashed'),
              },
            },
          }),
        ),
      (error) => this.table.unavailable('glance', error),
    );
    const glances = new Map<string, LedgerGlance>();
    for (const item of result.Responses?.[this.tableName] ?? []) {
      const read = new ItemReader(item, 'attempts table item');
      const state = read.string('state') as LedgerState;
      glances.set(read.string('pk'), {
        state,
        attempts: read.counter('attempts'),
        charged: read.counter('charged'),
        crashed: state === LEDGER_STATE.inFlight || item.lastAttemptCrashed?.BOOL === true,
      });
    }
    return glances;
  }

  /** A write conditioned on `attemptId` still being the attempt in flight. */
  private async whileInFlight(
    operation: string,
    key: string,
    attemptId: string,
    update: string,
    values: Record<string, AttributeValue>,
    alreadyDone: (current: LedgerEntry) => boolean = () => false,
  ): Promise<LedgerEntry> {
    const outcome = await this.table.update(operation, key, {
      update,
      condition: `${IS_ATTEMPT} AND ${IS_IN_FLIGHT}`,
      values: { ...values, ':attemptId': S(attemptId), ':inFlight': IN_FLIGHT },
    });
    if (outcome.ok) return outcome.item;
    if (outcome.previous !== undefined && alreadyDone(outcome.previous)) return outcome.previous;
    throw new StaleAttemptError(
      `${operation} refused for key ${JSON.stringify(key)}: attempt ${attemptId} is not in flight (${describeEntry(outcome.previous)})`,
      outcome.previous,
    );
  }
}

/** What a start sets: the attempt, and its lease when it has one. */
function beginAttempt(input: StartInput): string {
  return input.aliveUntil === undefined ? BEGIN_ATTEMPT : `${BEGIN_ATTEMPT}, #aliveUntil = :aliveUntil`;
}

/** What a start removes: the previous attempt's call and crash mark, and its lease if this one has none. */
function cleared(input: StartInput): string {
  return input.aliveUntil === undefined
    ? '#external, #lastAttemptCrashed, #aliveUntil'
    : '#external, #lastAttemptCrashed';
}

function beginValues(input: StartInput): Record<string, AttributeValue> {
  return {
    ...(input.aliveUntil === undefined ? {} : { ':aliveUntil': S(input.aliveUntil.toISOString()) }),
    ':inFlight': IN_FLIGHT,
    ':attemptId': S(input.attemptId),
    ':envId': S(input.envId),
    ':messageId': S(input.messageId),
    ':bodyDigest': S(input.bodyDigest),
    ':started': S('started'),
    ':now': S(input.now.toISOString()),
    ':expiresAt': N(input.expiresAt),
    ':one': N(1),
  };
}

/** The item already carries this quarantine: begun under its id, or finished. */
export function quarantinesAs(item: LedgerEntry, quarantineId: string): boolean {
  return item.state === LEDGER_STATE.quarantined
    ? item.quarantineId === quarantineId
    : item.quarantining?.id === quarantineId;
}

/**
 * A new key or a retry (`IS_READY`), and on the last receive no crash behind it; a retry of an
 * item reset for a replay only by that replay.
 */
function startCondition(input: StartInput): string {
  const ready = input.lastReceive === true ? `(${IS_READY} AND ${NOT_AFTER_A_CRASH})` : IS_READY;
  return input.replayOf === undefined
    ? `${IS_NEW} OR (${ready} AND ${NO_REPLAY})`
    : `${ready} AND ${IS_REPLAY_OF}`;
}

function startResult(operation: string, key: string, outcome: Outcome): StartResult {
  if (outcome.ok) return { started: true, item: outcome.item };
  // The crashed attempt's item vanished (TTL): nothing left to decide on.
  if (outcome.previous === undefined) {
    throw new LedgerUnavailableError(
      `${operation} for key ${JSON.stringify(key)}: condition failed on no item`,
    );
  }
  return { started: false, previous: outcome.previous };
}

/** ` ADD #a :one, #b :one` for the counters named (false: not this time), or nothing. */
function addOne(...counters: (string | false)[]): string {
  const named = counters.filter((counter): counter is string => counter !== false);
  return named.length === 0 ? '' : ` ADD ${named.map((counter) => `${counter} :one`).join(', ')}`;
}
