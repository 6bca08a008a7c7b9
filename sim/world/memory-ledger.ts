/**
 * The attempts table in memory, with the conditions of lambdas/adapters/attempt-ledger.ts
 * applied as DynamoDB applies them: each write checks its condition against the committed item
 * and changes it in one step (per-item atomicity), returns ALL_NEW on success and the item as it
 * was (ALL_OLD) on a refusal. test/integration/ports-contract-*.test.ts runs the same cases against
 * this class and the real adapter over the local AWS.
 */
import { LEDGER_STATE } from '../../contract/ledger';
import { quarantinesAs } from '../../lambdas/adapters/attempt-ledger';
import type { LedgerGlance } from '../../lambdas/core/suspects';
import type { ExternalRecord, QuarantineIntent } from '../../lambdas/core/types';
import type { LedgerPort } from '../../lambdas/ports/consumer-ports';
import {
  LedgerStateMismatchError,
  LedgerUnavailableError,
  StaleAttemptError,
} from '../../lambdas/ports/errors';
import type {
  FailureRecord,
  LedgerEntry,
  QuarantineMark,
  RestartInput,
  StartInput,
  StartResult,
} from '../../lambdas/ports/ledger';
import { checkItemSize, checkKey } from './dynamodb-limits';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type Stored = Mutable<LedgerEntry> & { expiresAt?: number };

export class MemoryLedger implements LedgerPort {
  private readonly items = new Map<string, Stored>();

  /** The item as a strongly consistent read sees it. */
  get(key: string): LedgerEntry | undefined {
    const item = this.items.get(key);
    return item && copy(item);
  }

  all(): LedgerEntry[] {
    return [...this.items.values()].map(copy);
  }

  async start(input: StartInput): Promise<StartResult> {
    keyed('start', input.key);
    const current = this.items.get(input.key);
    const admitted =
      current === undefined
        ? input.replayOf === undefined
        : admitsRetry(current, input) && current.replayOf === input.replayOf;
    if (!admitted) {
      // As AttemptLedger: a replay start on no item fails its condition with nothing to return.
      return { started: false, previous: current && copy(current) };
    }
    const next: Stored = {
      key: input.key,
      charged: 0,
      transientFailures: 0,
      unknownFailures: 0,
      generation: 0,
      ...current,
      ...begin(input, current),
      attempts: (current?.attempts ?? 0) + 1,
    };
    if (input.replayOf !== undefined)
      next.replaysStarted = withReplay(current?.replaysStarted, input.replayOf);
    delete next.external;
    delete next.lastAttemptCrashed;
    if (input.aliveUntil === undefined) delete next.aliveUntil;
    return { started: true, item: this.put('start', next) };
  }

  async restartAfterCrash(input: RestartInput): Promise<StartResult> {
    keyed('restartAfterCrash', input.key);
    const current = this.items.get(input.key);
    if (current === undefined) throw conditionFailedOnNoItem('restartAfterCrash', input.key);
    const restartable =
      current.state === LEDGER_STATE.inFlight &&
      current.attemptId === input.previousAttemptId &&
      current.quarantining === undefined;
    if (!restartable) {
      return { started: false, previous: copy(current) };
    }
    const next: Stored = {
      ...current,
      ...begin(input, current),
      attempts: current.attempts + 1,
      charged: current.charged + input.charge,
      crashes: (current.crashes ?? 0) + (input.crashedAlone ? 1 : 0),
    };
    delete next.external;
    delete next.lastAttemptCrashed;
    if (input.aliveUntil === undefined) delete next.aliveUntil;
    return { started: true, item: this.put('restartAfterCrash', next) };
  }

  async renewLease(key: string, attemptId: string, aliveUntil: Date): Promise<LedgerEntry> {
    return this.whileInFlight('renewLease', key, attemptId, (item) => {
      item.aliveUntil = aliveUntil.toISOString();
    });
  }

  async recordStage(key: string, attemptId: string, stage: string): Promise<LedgerEntry> {
    return this.whileInFlight('recordStage', key, attemptId, (item) => {
      item.stage = stage;
    });
  }

  async recordExternal(
    key: string,
    attemptId: string,
    external: ExternalRecord,
    unrepeatable?: ExternalRecord,
  ): Promise<LedgerEntry> {
    return this.whileInFlight('recordExternal', key, attemptId, (item) => {
      item.external = storedExternal(external);
      if (unrepeatable === undefined) delete item.unrepeatable;
      else item.unrepeatable = storedExternal(unrepeatable);
    });
  }

  async complete(key: string, attemptId: string, now: Date): Promise<LedgerEntry> {
    return this.whileInFlight(
      'complete',
      key,
      attemptId,
      (item) => {
        item.state = LEDGER_STATE.completed;
        item.lastEndedAt = now.toISOString();
        delete item.envId;
      },
      (current) => current.state === LEDGER_STATE.completed && current.attemptId === attemptId,
    );
  }

  async recordFailure(key: string, attemptId: string, failure: FailureRecord): Promise<LedgerEntry> {
    return this.whileInFlight(
      'recordFailure',
      key,
      attemptId,
      (item) => {
        item.state = LEDGER_STATE.ready;
        item.charged = failure.counters.charged;
        item.transientFailures = failure.counters.transientFailures;
        item.unknownFailures = failure.counters.unknownFailures;
        item.lastEndedAt = failure.now.toISOString();
        if (failure.lastError) item.lastError = { ...failure.lastError };
        if (failure.crashed === true) {
          item.lastAttemptCrashed = true;
          item.crashes = (item.crashes ?? 0) + 1;
        }
        if (failure.failedProbe === true) item.failedProbes = (item.failedProbes ?? 0) + 1;
        delete item.envId;
      },
      (current) => current.state === LEDGER_STATE.ready && current.attemptId === attemptId,
    );
  }

  async beginQuarantine(key: string, attemptId: string, intent: QuarantineIntent): Promise<LedgerEntry> {
    keyed('beginQuarantine', key);
    const current = this.items.get(key);
    if (current !== undefined && isOpen(current) && current.attemptId === attemptId) {
      return this.put('beginQuarantine', {
        ...structuredClone(current),
        quarantining: structuredClone(intent),
      });
    }
    if (current !== undefined && quarantinesAs(current, intent.id)) return copy(current);
    throw new StaleAttemptError(
      `beginQuarantine refused for key ${JSON.stringify(key)}: ${describe(current)}`,
      current && copy(current),
    );
  }

  async markQuarantined(key: string, mark: QuarantineMark): Promise<LedgerEntry> {
    keyed('markQuarantined', key);
    const current = this.items.get(key);
    if (
      current !== undefined &&
      isOpen(current) &&
      (mark.attemptId === undefined || current.attemptId === mark.attemptId)
    ) {
      current.state = LEDGER_STATE.quarantined;
      current.quarantineId = mark.quarantineId;
      current.lastEndedAt = mark.now.toISOString();
      current.charged += mark.charge ?? 0;
      delete current.envId;
      delete current.expiresAt;
      delete current.quarantining;
      return copy(current);
    }
    if (current?.state === LEDGER_STATE.quarantined && current.quarantineId === mark.quarantineId)
      return copy(current);
    const message = `markQuarantined refused for key ${JSON.stringify(key)}: ${describe(current)}`;
    const previous = current && copy(current);
    throw mark.attemptId === undefined
      ? new LedgerStateMismatchError(message, previous)
      : new StaleAttemptError(message, previous);
  }

  async inFlightKeysOf(envId: string): Promise<string[]> {
    return [...this.items.values()].filter((item) => item.envId === envId).map((item) => item.key);
  }

  async glance(keys: readonly string[]): Promise<ReadonlyMap<string, LedgerGlance>> {
    for (const key of keys) keyed('glance', key);
    const glances = new Map<string, LedgerGlance>();
    for (const key of keys) {
      const item = this.items.get(key);
      if (item !== undefined)
        glances.set(key, {
          state: item.state,
          attempts: item.attempts,
          charged: item.charged,
          crashed: item.state === LEDGER_STATE.inFlight || item.lastAttemptCrashed === true,
        });
    }
    return glances;
  }

  /** Operator side, before a replay: a fresh budget (as AttemptLedger.resetForReplay). */
  async resetForReplay(
    key: string,
    reset: {
      readonly expectedState: typeof LEDGER_STATE.quarantined;
      readonly quarantineId?: string;
      readonly now: Date;
    },
  ): Promise<LedgerEntry> {
    keyed('resetForReplay', key);
    const current = this.items.get(key);
    const matches =
      current?.state === LEDGER_STATE.quarantined &&
      (reset.quarantineId === undefined || current.quarantineId === reset.quarantineId);
    if (current === undefined || !matches) {
      throw new LedgerStateMismatchError(
        `resetForReplay refused for key ${JSON.stringify(key)}: found ${describe(current)}`,
        current && copy(current),
      );
    }
    Object.assign(current, {
      state: LEDGER_STATE.ready,
      charged: 0,
      transientFailures: 0,
      unknownFailures: 0,
      replayedAt: reset.now.toISOString(),
      generation: current.generation + 1,
      ...(reset.quarantineId === undefined ? {} : { replayOf: reset.quarantineId }),
    });
    delete current.external;
    delete current.unrepeatable;
    delete current.quarantineId;
    delete current.crashes;
    delete current.envId;
    delete current.failedProbes;
    return copy(current);
  }

  /** Operator side, a `done` answer: the state machine's MarkLedgerCompleted, unconditional. */
  async completeByOperator(key: string, now: Date): Promise<void> {
    const current = this.items.get(key);
    if (current === undefined) return;
    current.state = LEDGER_STATE.completed;
    current.lastEndedAt = now.toISOString();
    delete current.envId;
  }

  /** Writes the item whole, refused as DynamoDB refuses an item over 400 KB. */
  private put(operation: string, next: Stored): LedgerEntry {
    checkItemSize(LedgerUnavailableError, `Attempts table attempts: ${operation}`, next);
    this.items.set(next.key, next);
    return copy(next);
  }

  private whileInFlight(
    operation: string,
    key: string,
    attemptId: string,
    change: (item: Stored) => void,
    alreadyDone: (current: LedgerEntry) => boolean = () => false,
  ): LedgerEntry {
    keyed(operation, key);
    const current = this.items.get(key);
    if (current?.state === LEDGER_STATE.inFlight && current.attemptId === attemptId) {
      const next = structuredClone(current);
      change(next);
      return this.put(operation, next);
    }
    if (current !== undefined && alreadyDone(current)) return copy(current);
    throw new StaleAttemptError(
      `${operation} refused for key ${JSON.stringify(key)}: attempt ${attemptId} is not in flight (${describe(current)})`,
      current && copy(current),
    );
  }
}

/** A request naming `key`, refused as DynamoDB refuses a partition key over its limit. */
function keyed(operation: string, key: string): void {
  checkKey(LedgerUnavailableError, `Attempts table attempts: ${operation}`, { pk: key });
}

/** AttemptLedger's `startResult` when a condition failed on no item: nothing left to decide on. */
function conditionFailedOnNoItem(operation: string, key: string): LedgerUnavailableError {
  return new LedgerUnavailableError(
    `${operation} for key ${JSON.stringify(key)}: condition failed on no item`,
  );
}

/** An external record as the item's map holds it: DynamoDB keeps no attribute for an absent key. */
function storedExternal(external: ExternalRecord): ExternalRecord {
  const { name, status, at, idempotencyKey } = external;
  return { name, status, ...(idempotencyKey === undefined ? {} : { idempotencyKey }), at };
}

/**
 * The start write's condition on an existing item: a retry below the limit, no unrepeatable
 * call, no quarantine begun.
 */
function admitsRetry(current: Stored, input: StartInput): boolean {
  return (
    current.state === LEDGER_STATE.ready &&
    current.charged < input.attemptLimit &&
    current.unrepeatable === undefined &&
    current.quarantining === undefined &&
    !(input.lastReceive === true && current.lastAttemptCrashed === true)
  );
}

/** DynamoDB's `ADD` to a string set, read back sorted as the adapter reads it. */
function withReplay(started: readonly string[] | undefined, replayOf: string): string[] {
  return [...new Set([...(started ?? []), replayOf])].sort();
}

function isOpen(item: Stored): boolean {
  return item.state === LEDGER_STATE.inFlight || item.state === LEDGER_STATE.ready;
}

function begin(
  input: StartInput,
  current: Stored | undefined,
): Pick<
  Stored,
  | 'state'
  | 'attemptId'
  | 'envId'
  | 'messageId'
  | 'stage'
  | 'lastAttemptAt'
  | 'firstAttemptAt'
  | 'expiresAt'
  | 'bodyDigest'
  | 'aliveUntil'
> {
  return {
    state: LEDGER_STATE.inFlight,
    attemptId: input.attemptId,
    envId: input.envId,
    messageId: input.messageId,
    stage: 'started',
    lastAttemptAt: input.now.toISOString(),
    firstAttemptAt: current?.firstAttemptAt ?? input.now.toISOString(),
    expiresAt: input.expiresAt,
    bodyDigest: input.bodyDigest,
    ...(input.aliveUntil === undefined ? {} : { aliveUntil: input.aliveUntil.toISOString() }),
  };
}

function copy(item: Stored): LedgerEntry {
  const { expiresAt: _ttl, ...entry } = structuredClone(item);
  return entry;
}

function describe(item: LedgerEntry | undefined): string {
  return item === undefined ? 'no item' : `state ${item.state}, attempt ${item.attemptId}`;
}
