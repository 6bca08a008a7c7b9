/**
 * The consumer's ports (lambdas/consumer/ports.ts) as a contract, written once and run twice:
 * against the in-memory world that drives the fast orchestration tests (test/world) and against
 * the real adapters over the local AWS. The world is worth its speed only while it keeps the
 * services' semantics (conditional writes that return the item as it was, create-once objects,
 * idempotent execution names, receipt handles), so every case must pass on both. Where moto itself
 * departs from AWS's documented behaviour, the case runs there as `it.fails` (see `departures`):
 * the departure stays visible, and the day moto is fixed the case says so.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LedgerEntry, RestartInput, StartInput } from '../../lambdas/adapters/attempt-ledger';
import {
  ControlStateUnavailableError,
  LedgerStateMismatchError,
  LedgerUnavailableError,
  QuarantineWriteError,
  SourceQueueError,
  StaleAttemptError,
} from '../../lambdas/adapters/errors';
import { quarantineObjectKeys } from '../../lambdas/adapters/quarantine-writer';
import { NO_TRIAL } from '../../lambdas/core/isolation';
import type { NewQuarantineRecord } from '../../lambdas/core/quarantine-record';
import { defaultPolicy, type ErrorEvidence, type ExternalRecord } from '../../lambdas/core/types';
import { motoWorld } from './support/ports-moto';
import { type Departure, memoryWorld, type PortsUnderTest } from './support/ports-worlds';

/** TTL of the crash items the trial marks (epoch seconds). */
const EXPIRES_AT = 1_900_000_000;

const T0 = new Date('2030-01-02T03:04:05.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const iso = (seconds: number) => at(seconds).toISOString();
const EXPIRES = 1_900_000_000;
const COOLDOWN = defaultPolicy().breakerCooldownSeconds;
const EVIDENCE: ErrorEvidence = {
  class: 'transient',
  name: 'TimeoutError',
  message: 'upstream timed out – ü',
  stackHead: 'at call (/var/task/index.js:1:2)',
};
/** A keyless outside call that may have happened: it must not be repeated (rule 8). */
const PENDING_SHIP: ExternalRecord = { name: 'ship', status: 'pending', at: iso(5) };

function newKey(what: string): string {
  return `${what}-${randomUUID()}`;
}

function startOf(key: string, attemptId: string, overrides: Partial<StartInput> = {}): StartInput {
  return {
    key,
    attemptId,
    envId: 'env-a',
    messageId: 'm-1',
    bodyDigest: 'digest-1',
    attemptLimit: 3,
    now: T0,
    expiresAt: EXPIRES,
    ...overrides,
  };
}

function restartOf(key: string, previousAttemptId: string, attemptId: string, charge: number): RestartInput {
  return { ...startOf(key, attemptId, { envId: 'env-b', now: at(60) }), previousAttemptId, charge };
}

/** The item a first start writes; `overrides` for what a case changed since. */
function begun(key: string, attemptId: string, overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    key,
    state: 'in-flight',
    attempts: 1,
    charged: 0,
    transientFailures: 0,
    unknownFailures: 0,
    generation: 0,
    attemptId,
    envId: 'env-a',
    messageId: 'm-1',
    stage: 'started',
    bodyDigest: 'digest-1',
    firstAttemptAt: T0.toISOString(),
    lastAttemptAt: T0.toISOString(),
    ...overrides,
  };
}

/** An attempt that ended: no execution environment holds it any more. */
function ended(entry: LedgerEntry, overrides: Partial<LedgerEntry>): LedgerEntry {
  const { envId: _gone, ...rest } = entry;
  return { ...rest, ...overrides };
}

/** What `call` rejected with; undefined if it resolved. */
function rejectionOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
}

/** Awaits a refusal and checks its exact class; returns it for the item it carries. */
async function refusal<E extends Error>(call: Promise<unknown>, type: abstract new (...args: never[]) => E) {
  const error = await rejectionOf(call);
  expect(error).toBeInstanceOf(type);
  return error as E;
}

function newRecord(id: string, overrides: Partial<NewQuarantineRecord> = {}): NewQuarantineRecord {
  return {
    id,
    status: 'open',
    reason: 'crash-limit',
    cause: 'unidentified',
    messageKey: `key-${id}`,
    messageId: 'm-1',
    generation: 0,
    attemptsStarted: 3,
    attemptsCharged: 3,
    stage: 'parsed',
    errorSignature: 'crash:parsed',
    firstAttemptAt: iso(0),
    lastAttemptAt: iso(300),
    createdAt: iso(360),
    sourceQueueArn: 'arn:aws:sqs:us-east-1:000000000000:source',
    ...quarantineObjectKeys(id),
    bodyBytes: 12,
    ...overrides,
  };
}

describe.each([memoryWorld(), motoWorld()])('$name', (world) => {
  let ports: PortsUnderTest;
  beforeAll(() => world.setUp());
  afterAll(() => world.tearDown());
  beforeEach(async () => {
    ports = await world.fresh();
  });
  /** A case this implementation is known to break (with the reason in `departures`) must fail. */
  const contract = (departure: Departure) => (world.departures[departure] === undefined ? it : it.fails);

  describe('LedgerPort: starting an attempt', () => {
    it('issue 22 defect 9: given keys of 2048 and 2049 bytes, then the first starts and the second is refused as DynamoDB does', async () => {
      // Act: the ledger's partition key is the message key.
      const longest = await ports.ledger.start(startOf('k'.repeat(2048), 'a1'));
      const error = await refusal(
        ports.ledger.start(startOf('k'.repeat(2049), 'a1')),
        LedgerUnavailableError,
      );

      // Assess
      expect(longest.started).toBe(true);
      expect((error.cause as Error).name).toBe('ValidationException');
    });

    it('given a new key, when an attempt starts, then it is in flight with one attempt and zero counters', async () => {
      // Prepare
      const key = newKey('fresh');

      // Act
      const result = await ports.ledger.start(startOf(key, 'a1'));

      // Assess
      expect(result).toStrictEqual({ started: true, item: begun(key, 'a1') });
    });

    it('given an attempt in flight, when another start comes, then it is refused with the item as it was', async () => {
      // Prepare
      const key = newKey('busy');
      await ports.ledger.start(startOf(key, 'a1'));

      // Act
      const result = await ports.ledger.start(startOf(key, 'a2', { envId: 'env-b', now: at(60) }));

      // Assess: `previous` is what decideDelivery reads to tell a duplicate from a crash.
      expect(result).toStrictEqual({ started: false, previous: begun(key, 'a1') });
    });

    it('given a ready item below the limit, when a start comes, then the next attempt keeps the counters and the evidence', async () => {
      // Prepare
      const key = newKey('retry');
      await ports.ledger.start(startOf(key, 'a1'));
      const counters = { charged: 1, transientFailures: 1, unknownFailures: 0 };
      const ready = await ports.ledger.recordFailure(key, 'a1', {
        counters,
        lastError: EVIDENCE,
        now: at(10),
      });

      // Act
      const result = await ports.ledger.start(
        startOf(key, 'a2', { envId: 'env-b', messageId: 'm-2', now: at(60) }),
      );

      // Assess
      expect(ready).toStrictEqual(
        ended(begun(key, 'a1'), { state: 'ready', ...counters, lastError: EVIDENCE, lastEndedAt: iso(10) }),
      );
      expect(result).toStrictEqual({
        started: true,
        item: begun(key, 'a2', {
          envId: 'env-b',
          messageId: 'm-2',
          attempts: 2,
          ...counters,
          lastError: EVIDENCE,
          lastEndedAt: iso(10),
          lastAttemptAt: iso(60),
        }),
      });
    });

    it('given a ready item charged 2, when the limit was lowered to 2, then the start is refused', async () => {
      // Prepare
      const key = newKey('lowered');
      await ports.ledger.start(startOf(key, 'a1'));
      const counters = { charged: 2, transientFailures: 0, unknownFailures: 2 };
      const ready = await ports.ledger.recordFailure(key, 'a1', { counters, now: at(10) });

      // Act
      const result = await ports.ledger.start(startOf(key, 'a2', { attemptLimit: 2, now: at(60) }));

      // Assess
      expect(result).toStrictEqual({ started: false, previous: ready });
      expect(ready).toMatchObject({ state: 'ready', charged: 2 });
    });

    it('given a ready item with an unrepeatable call, when a start comes below the limit, then it is refused', async () => {
      // Prepare
      const key = newKey('unrepeatable');
      await ports.ledger.start(startOf(key, 'a1'));
      await ports.ledger.recordExternal(key, 'a1', PENDING_SHIP, PENDING_SHIP);
      const counters = { charged: 1, transientFailures: 0, unknownFailures: 1 };
      const ready = await ports.ledger.recordFailure(key, 'a1', { counters, now: at(10) });

      // Act
      const result = await ports.ledger.start(startOf(key, 'a2', { now: at(60) }));

      // Assess
      expect(ready).toStrictEqual(
        ended(begun(key, 'a1'), {
          state: 'ready',
          ...counters,
          external: PENDING_SHIP,
          unrepeatable: PENDING_SHIP,
          lastEndedAt: iso(10),
        }),
      );
      expect(result).toStrictEqual({ started: false, previous: ready });
    });
    it('given a completed or quarantined item, when a redelivery starts, then it is refused with the item as it is', async () => {
      // Prepare
      const done = newKey('done');
      await ports.ledger.start(startOf(done, 'a1'));
      const completed = await ports.ledger.complete(done, 'a1', at(10));
      const held = newKey('held');
      await ports.ledger.start(startOf(held, 'a1'));
      const quarantined = await ports.ledger.markQuarantined(held, { quarantineId: 'q1', now: at(10) });

      // Act
      const duplicate = await ports.ledger.start(startOf(done, 'a2', { now: at(60) }));
      const afterQuarantine = await ports.ledger.start(startOf(held, 'a2', { now: at(60) }));

      // Assess
      expect(duplicate).toStrictEqual({ started: false, previous: completed });
      expect(afterQuarantine).toStrictEqual({ started: false, previous: quarantined });
    });
  });

  describe('LedgerPort: replay starts', () => {
    /** Quarantined by `q1`, then reset by the operator for its replay. */
    async function resetForReplayOf(key: string) {
      await ports.ledger.start(startOf(key, 'a1'));
      await ports.ledger.markQuarantined(key, {
        attemptId: 'a1',
        quarantineId: 'q1',
        charge: 1,
        now: at(10),
      });
      return ports.ledger.resetForReplay(key, {
        expectedState: 'quarantined',
        quarantineId: 'q1',
        now: at(20),
      });
    }

    it('given an item reset for the replay of q1, when that replay starts, then it is admitted in the new generation', async () => {
      // Prepare
      const key = newKey('replay');
      const reset = await resetForReplayOf(key);

      // Act
      const result = await ports.ledger.start(startOf(key, 'a2', { replayOf: 'q1', now: at(30) }));

      // Assess: a fresh budget, the attempt count kept as history.
      const replayed = { generation: 1, replayOf: 'q1', replayedAt: iso(20), lastEndedAt: iso(10) };
      expect(reset).toStrictEqual(ended(begun(key, 'a1'), { state: 'ready', ...replayed }));
      expect(result).toStrictEqual({
        started: true,
        item: begun(key, 'a2', { attempts: 2, ...replayed, lastAttemptAt: iso(30) }),
      });
    });

    it('given an item reset for the replay of q1, when a replay of another quarantine starts, then it is refused', async () => {
      // Prepare
      const key = newKey('borrowed');
      const reset = await resetForReplayOf(key);

      // Act
      const result = await ports.ledger.start(startOf(key, 'a2', { replayOf: 'q-other', now: at(30) }));

      // Assess
      expect(result).toStrictEqual({ started: false, previous: reset });
    });

    it('given an item reset for replay, when a plain redelivery starts, then it is admitted: the mark guards replay starts only', async () => {
      // Prepare
      const key = newKey('plain-after-reset');
      await resetForReplayOf(key);

      // Act
      const result = await ports.ledger.start(startOf(key, 'a2', { now: at(30) }));

      // Assess
      expect(result).toMatchObject({
        started: true,
        item: { attemptId: 'a2', generation: 1, replayOf: 'q1' },
      });
    });

    it('given a ready item never reset, when a replay start comes, then it is refused', async () => {
      // Prepare
      const key = newKey('not-reset');
      await ports.ledger.start(startOf(key, 'a1'));
      const counters = { charged: 1, transientFailures: 1, unknownFailures: 0 };
      const ready = await ports.ledger.recordFailure(key, 'a1', { counters, now: at(10) });

      // Act
      const result = await ports.ledger.start(startOf(key, 'a2', { replayOf: 'q1', now: at(30) }));

      // Assess
      expect(result).toStrictEqual({ started: false, previous: ready });
    });

    it('given no item, when a replay start comes, then it is refused with no item: nobody reset it for a replay', async () => {
      // Act
      const refused = await ports.ledger.start(startOf(newKey('gone'), 'a1', { replayOf: 'q1' }));

      // Assess
      expect(refused).toStrictEqual({ started: false, previous: undefined });
    });

    it('given a quarantined item, when the reset names another quarantine or the item is in flight, then LedgerStateMismatchError carries the item', async () => {
      // Prepare
      const quarantined = newKey('quarantined');
      await ports.ledger.start(startOf(quarantined, 'a1'));
      const mark = await ports.ledger.markQuarantined(quarantined, { quarantineId: 'q1', now: at(10) });
      const busy = newKey('busy');
      const inFlight = await ports.ledger.start(startOf(busy, 'b1'));

      // Act
      const wrongId = await refusal(
        ports.ledger.resetForReplay(quarantined, {
          expectedState: 'quarantined',
          quarantineId: 'q2',
          now: at(20),
        }),
        LedgerStateMismatchError,
      );
      const notQuarantined = await refusal(
        ports.ledger.resetForReplay(busy, { expectedState: 'quarantined', now: at(20) }),
        LedgerStateMismatchError,
      );

      // Assess
      expect(wrongId.current).toStrictEqual(mark);
      expect(notQuarantined.current).toStrictEqual(inFlight.started && inFlight.item);
    });
  });

  describe('LedgerPort: restart after a crash', () => {
    it('given a crashed attempt with a pending unrepeatable call, when restarted with a charge, then the charge is added, external removed and unrepeatable kept', async () => {
      // Prepare
      const key = newKey('crashed');
      await ports.ledger.start(startOf(key, 'a1'));
      await ports.ledger.recordStage(key, 'a1', 'shipping');
      await ports.ledger.recordExternal(key, 'a1', PENDING_SHIP, PENDING_SHIP);

      // Act
      const result = await ports.ledger.restartAfterCrash(restartOf(key, 'a1', 'a2', 1));

      // Assess
      expect(result).toStrictEqual({
        started: true,
        item: begun(key, 'a2', {
          envId: 'env-b',
          attempts: 2,
          charged: 1,
          crashes: 1,
          unrepeatable: PENDING_SHIP,
          lastAttemptAt: iso(60),
        }),
      });
    });

    it('given a crash not attributable to the message, when restarted with charge 0, then nothing is charged', async () => {
      // Prepare
      const key = newKey('innocent');
      await ports.ledger.start(startOf(key, 'a1'));

      // Act
      const result = await ports.ledger.restartAfterCrash(restartOf(key, 'a1', 'a2', 0));

      // Assess
      expect(result).toMatchObject({
        started: true,
        item: { attempts: 2, charged: 0, crashes: 1, attemptId: 'a2' },
      });
    });

    it('given the crashed attempt was already restarted elsewhere, when a second restart names it, then it is refused with the item as it is', async () => {
      // Prepare
      const key = newKey('raced');
      await ports.ledger.start(startOf(key, 'a1'));
      const first = await ports.ledger.restartAfterCrash(restartOf(key, 'a1', 'a2', 1));

      // Act
      const second = await ports.ledger.restartAfterCrash(restartOf(key, 'a1', 'a3', 1));

      // Assess
      expect(second).toStrictEqual({ started: false, previous: first.started && first.item });
    });

    it('given no item (gone by TTL), when a restart comes, then LedgerUnavailableError', async () => {
      // Act
      const refused = ports.ledger.restartAfterCrash(restartOf(newKey('ttl'), 'a1', 'a2', 1));

      // Assess
      await refusal(refused, LedgerUnavailableError);
    });
  });

  describe('LedgerPort: writes of the attempt in flight', () => {
    it('given an attempt in flight, when it records a stage and a keyed call, then both are durable', async () => {
      // Prepare
      const key = newKey('stages');
      await ports.ledger.start(startOf(key, 'a1'));
      const charge: ExternalRecord = { name: 'charge', status: 'done', idempotencyKey: 'k-1', at: iso(7) };

      // Act
      const staged = await ports.ledger.recordStage(key, 'a1', 'parsed');
      const called = await ports.ledger.recordExternal(key, 'a1', charge);

      // Assess
      expect(staged).toStrictEqual(begun(key, 'a1', { stage: 'parsed' }));
      expect(called).toStrictEqual(begun(key, 'a1', { stage: 'parsed', external: charge }));
    });

    it('issue 19: given a stage that would take the item past 400 KB, then the write is refused as DynamoDB does and the item keeps its stage', async () => {
      // Prepare: DynamoDB's item limit is 400 KB, names and values together.
      const key = newKey('item-size');
      await ports.ledger.start(startOf(key, 'a1'));
      const fits = await ports.ledger.recordStage(key, 'a1', 's'.repeat(399_000));

      // Act
      const error = await refusal(
        ports.ledger.recordStage(key, 'a1', 's'.repeat(410_000)),
        LedgerUnavailableError,
      );

      // Assess
      expect(fits.stage).toHaveLength(399_000);
      expect((error.cause as Error).name).toBe('ValidationException');
      expect((await ports.ledger.recordStage(key, 'a1', 'parsed')).stage).toBe('parsed');
    });

    it('given a call recorded with an absent idempotency key, when read back, then the key is absent, not undefined', async () => {
      // Prepare: DynamoDB keeps no attribute for it, so the item read back has no such key.
      const key = newKey('keyless');
      await ports.ledger.start(startOf(key, 'a1'));
      const ship: ExternalRecord = { name: 'ship', status: 'done', idempotencyKey: undefined, at: iso(7) };

      // Act
      const called = await ports.ledger.recordExternal(key, 'a1', ship, ship);

      // Assess
      const stored: ExternalRecord = { name: 'ship', status: 'done', at: iso(7) };
      expect(called).toStrictEqual(begun(key, 'a1', { external: stored, unrepeatable: stored }));
    });

    it('given a keyless call, when recorded with unrepeatable and later without, then the sticky mark is set and then removed', async () => {
      // Prepare
      const key = newKey('sticky');
      await ports.ledger.start(startOf(key, 'a1'));
      const notSent: ExternalRecord = { ...PENDING_SHIP, status: 'not-sent', at: iso(8) };

      // Act
      const pending = await ports.ledger.recordExternal(key, 'a1', PENDING_SHIP, PENDING_SHIP);
      const proven = await ports.ledger.recordExternal(key, 'a1', notSent);

      // Assess
      expect(pending).toStrictEqual(begun(key, 'a1', { external: PENDING_SHIP, unrepeatable: PENDING_SHIP }));
      expect(proven).toStrictEqual(begun(key, 'a1', { external: notSent }));
    });

    it('given a newer attempt in flight, when the older one writes, then StaleAttemptError carries the current item', async () => {
      // Prepare
      const key = newKey('stale');
      await ports.ledger.start(startOf(key, 'a1'));
      const restarted = await ports.ledger.restartAfterCrash(restartOf(key, 'a1', 'a2', 1));
      const current = restarted.started && restarted.item;
      const counters = { charged: 1, transientFailures: 1, unknownFailures: 0 };

      // Act
      const writes = [
        () => ports.ledger.recordStage(key, 'a1', 'late'),
        () => ports.ledger.recordExternal(key, 'a1', PENDING_SHIP, PENDING_SHIP),
        () => ports.ledger.complete(key, 'a1', at(90)),
        () => ports.ledger.recordFailure(key, 'a1', { counters, now: at(90) }),
      ];

      // Assess
      for (const write of writes)
        expect((await refusal(write(), StaleAttemptError)).current).toStrictEqual(current);
    });

    it('given no item, when a stage is recorded, then StaleAttemptError with no current item', async () => {
      // Act
      const error = await refusal(
        ports.ledger.recordStage(newKey('none'), 'a1', 'parsed'),
        StaleAttemptError,
      );

      // Assess
      expect(error.current).toBeUndefined();
    });
  });

  describe('LedgerPort: ending an attempt', () => {
    it('given an attempt in flight, when it completes and the write is retried, then both return the completed item', async () => {
      // Prepare
      const key = newKey('complete');
      await ports.ledger.start(startOf(key, 'a1'));

      // Act
      const completed = await ports.ledger.complete(key, 'a1', at(30));
      const retried = await ports.ledger.complete(key, 'a1', at(31));

      // Assess
      const expected = ended(begun(key, 'a1'), { state: 'completed', lastEndedAt: iso(30) });
      expect(completed).toStrictEqual(expected);
      expect(retried).toStrictEqual(expected);
    });

    it('given a completed item, when another attempt completes, then StaleAttemptError', async () => {
      // Prepare
      const key = newKey('completed');
      await ports.ledger.start(startOf(key, 'a1'));
      const completed = await ports.ledger.complete(key, 'a1', at(30));

      // Act
      const error = await refusal(ports.ledger.complete(key, 'a2', at(31)), StaleAttemptError);

      // Assess
      expect(error.current).toStrictEqual(completed);
    });

    it('given a failure recorded, when the write is retried, then the retry changes nothing and returns the item', async () => {
      // Prepare
      const key = newKey('failure');
      await ports.ledger.start(startOf(key, 'a1'));
      const counters = { charged: 1, transientFailures: 1, unknownFailures: 0 };
      const ready = await ports.ledger.recordFailure(key, 'a1', {
        counters,
        lastError: EVIDENCE,
        now: at(10),
      });

      // Act
      const retried = await ports.ledger.recordFailure(key, 'a1', {
        counters: { charged: 2, transientFailures: 2, unknownFailures: 0 },
        now: at(11),
      });

      // Assess
      expect(retried).toStrictEqual(ready);
    });

    it('given evidence from an earlier attempt, when a failure comes without evidence, then the earlier evidence stays', async () => {
      // Prepare
      const key = newKey('evidence');
      await ports.ledger.start(startOf(key, 'a1'));
      const once = { charged: 1, transientFailures: 1, unknownFailures: 0 };
      await ports.ledger.recordFailure(key, 'a1', { counters: once, lastError: EVIDENCE, now: at(10) });
      await ports.ledger.start(startOf(key, 'a2', { now: at(60) }));

      // Act
      const twice = { charged: 2, transientFailures: 2, unknownFailures: 0 };
      const ready = await ports.ledger.recordFailure(key, 'a2', { counters: twice, now: at(70) });

      // Assess
      expect(ready).toMatchObject({ state: 'ready', charged: 2, lastError: EVIDENCE, lastEndedAt: iso(70) });
    });
  });

  describe('LedgerPort: a crash settled in an outage', () => {
    it('given a crashed attempt settled uncharged, when started on the last receive and then not, then only the later start is admitted and clears the mark', async () => {
      // Prepare
      const key = newKey('crashed');
      await ports.ledger.start(startOf(key, 'a1'));
      const counters = { charged: 0, transientFailures: 0, unknownFailures: 0 };

      // Act
      const settled = await ports.ledger.recordFailure(key, 'a1', { counters, crashed: true, now: at(10) });
      const onLast = await ports.ledger.start(startOf(key, 'a2', { lastReceive: true, now: at(20) }));
      const before = await ports.ledger.start(startOf(key, 'a3', { now: at(30) }));

      // Assess
      expect(settled).toMatchObject({ state: 'ready', lastAttemptCrashed: true, crashes: 1 });
      expect(onLast).toStrictEqual({ started: false, previous: settled });
      expect(before.started).toBe(true);
      expect(before.started && before.item.lastAttemptCrashed).toBeUndefined();
    });
  });

  describe('LedgerPort: a failed probe', () => {
    it('given an attempt settled as a failed probe, when started again and later reset for a replay, then the mark stays until the reset', async () => {
      // Prepare
      const key = newKey('probed');
      await ports.ledger.start(startOf(key, 'a1'));
      const counters = { charged: 0, transientFailures: 0, unknownFailures: 0 };

      // Act
      const settled = await ports.ledger.recordFailure(key, 'a1', {
        counters,
        failedProbe: true,
        now: at(10),
      });
      const again = await ports.ledger.start(startOf(key, 'a2', { now: at(20) }));
      await ports.ledger.markQuarantined(key, { attemptId: 'a2', quarantineId: 'q1', now: at(30) });
      const reset = await ports.ledger.resetForReplay(key, { expectedState: 'quarantined', now: at(40) });

      // Assess: a message probed and failed stays one for every later window, until a person replays it.
      expect(settled).toMatchObject({ state: 'ready', failedProbe: true });
      expect(again.started && again.item.failedProbe).toBe(true);
      expect(reset.failedProbe).toBeUndefined();
    });
  });

  describe('LedgerPort: quarantine marks', () => {
    it('given an attempt in flight, when marked with its attempt id and retried, then it is quarantined and charged once', async () => {
      // Prepare
      const key = newKey('mark');
      await ports.ledger.start(startOf(key, 'a1'));
      const mark = { attemptId: 'a1', quarantineId: 'q1', charge: 1, now: at(10) };

      // Act
      const marked = await ports.ledger.markQuarantined(key, mark);
      const retried = await ports.ledger.markQuarantined(key, { ...mark, now: at(11) });

      // Assess
      const expected = ended(begun(key, 'a1'), {
        state: 'quarantined',
        charged: 1,
        quarantineId: 'q1',
        lastEndedAt: iso(10),
      });
      expect(marked).toStrictEqual(expected);
      expect(retried).toStrictEqual(expected);
    });

    it('given a quarantine begun, when retried, started, restarted and marked, then only its mark ends it', async () => {
      // Prepare
      const key = newKey('begin');
      await ports.ledger.start(startOf(key, 'a1'));
      const intent = { id: 'q1', reason: 'permanent-error' as const, charge: 1, error: EVIDENCE };

      // Act
      const begunOnce = await ports.ledger.beginQuarantine(key, 'a1', intent);
      const retried = await ports.ledger.beginQuarantine(key, 'a1', intent);
      const restart = await ports.ledger.restartAfterCrash(restartOf(key, 'a1', 'a2', 1));
      const counters = { charged: 0, transientFailures: 0, unknownFailures: 0 };
      const settled = await ports.ledger.recordFailure(key, 'a1', { counters, now: at(10) });
      const start = await ports.ledger.start(startOf(key, 'a3', { now: at(20) }));
      const stale = await refusal(
        ports.ledger.beginQuarantine(key, 'a0', { ...intent, id: 'q2' }),
        StaleAttemptError,
      );
      const marked = await ports.ledger.markQuarantined(key, {
        attemptId: 'a1',
        quarantineId: 'q1',
        charge: 1,
        now: at(30),
      });
      const retriedAfterMark = await ports.ledger.beginQuarantine(key, 'a1', intent);

      // Assess
      const quarantining = begun(key, 'a1', { quarantining: intent });
      expect(begunOnce).toStrictEqual(quarantining);
      expect(retried).toStrictEqual(quarantining);
      expect(restart).toStrictEqual({ started: false, previous: quarantining });
      expect(settled).toMatchObject({ state: 'ready', quarantining: intent });
      expect(start).toStrictEqual({ started: false, previous: settled });
      expect(stale.current).toStrictEqual(settled);
      expect(marked).toStrictEqual(
        ended(begun(key, 'a1'), {
          state: 'quarantined',
          charged: 1,
          quarantineId: 'q1',
          lastEndedAt: iso(30),
        }),
      );
      expect(retriedAfterMark).toStrictEqual(marked);
    });

    it('given a ready item, when marked without an attempt id, then it is quarantined', async () => {
      // Prepare
      const key = newKey('mark-ready');
      await ports.ledger.start(startOf(key, 'a1'));
      const counters = { charged: 3, transientFailures: 3, unknownFailures: 0 };
      await ports.ledger.recordFailure(key, 'a1', { counters, now: at(10) });

      // Act
      const marked = await ports.ledger.markQuarantined(key, { quarantineId: 'q1', now: at(20) });

      // Assess
      expect(marked).toStrictEqual(
        ended(begun(key, 'a1'), {
          state: 'quarantined',
          ...counters,
          quarantineId: 'q1',
          lastEndedAt: iso(20),
        }),
      );
    });

    it('given an item not open to this mark, when marked, then StaleAttemptError with an attempt id and LedgerStateMismatchError without', async () => {
      // Prepare
      const busy = newKey('busy');
      const started = await ports.ledger.start(startOf(busy, 'a2'));
      const done = newKey('done');
      await ports.ledger.start(startOf(done, 'a1'));
      const completed = await ports.ledger.complete(done, 'a1', at(10));
      const held = newKey('held');
      await ports.ledger.start(startOf(held, 'a1'));
      const quarantined = await ports.ledger.markQuarantined(held, { quarantineId: 'q1', now: at(10) });
      const mark = (quarantineId: string, attemptId?: string) => ({ attemptId, quarantineId, now: at(20) });

      // Act
      const olderAttempt = await refusal(
        ports.ledger.markQuarantined(busy, mark('q9', 'a1')),
        StaleAttemptError,
      );
      const notOpen = await refusal(ports.ledger.markQuarantined(done, mark('q9')), LedgerStateMismatchError);
      const otherQuarantine = await refusal(
        ports.ledger.markQuarantined(held, mark('q2')),
        LedgerStateMismatchError,
      );
      const otherAsAttempt = await refusal(
        ports.ledger.markQuarantined(held, mark('q2', 'a1')),
        StaleAttemptError,
      );
      const missing = await refusal(
        ports.ledger.markQuarantined(newKey('none'), mark('q9')),
        LedgerStateMismatchError,
      );

      // Assess
      expect(olderAttempt.current).toStrictEqual(started.started && started.item);
      expect(notOpen.current).toStrictEqual(completed);
      expect(otherQuarantine.current).toStrictEqual(quarantined);
      expect(otherAsAttempt.current).toStrictEqual(quarantined);
      expect(missing.current).toBeUndefined();
    });
  });

  describe('LedgerPort: in-flight keys of an environment', () => {
    it('given keys started by two environments, when one asks, then it gets its keys still in flight only', async () => {
      // Prepare
      const [envA, envB] = [newKey('env'), newKey('env')];
      const [k1, k2, k3, k4] = ['k1', 'k2', 'k3', 'k4'].map(newKey);
      await ports.ledger.start(startOf(k1, 'a1', { envId: envA }));
      await ports.ledger.start(startOf(k2, 'a1', { envId: envA }));
      await ports.ledger.start(startOf(k3, 'a1', { envId: envA }));
      await ports.ledger.start(startOf(k4, 'a1', { envId: envB }));
      await ports.ledger.complete(k2, 'a1', at(10));
      const counters = { charged: 1, transientFailures: 1, unknownFailures: 0 };
      await ports.ledger.recordFailure(k3, 'a1', { counters, now: at(10) });

      // Act
      const keys = await ports.ledger.inFlightKeysOf(envA);
      const none = await ports.ledger.inFlightKeysOf(newKey('env'));

      // Assess: the index has no sort key, so no order is promised.
      expect(keys.sort()).toStrictEqual([k1]);
      expect(none).toStrictEqual([]);
    });
  });

  describe('ControlPort: snapshot and failure window', () => {
    it('given an empty control table, when read, then no breaker, no trial, no freeze', async () => {
      // Act
      const snapshot = await ports.control.snapshot();

      // Assess
      expect(snapshot).toStrictEqual({ breaker: undefined, isolation: undefined, replayFrozen: false });
    });

    it('given a tripped breaker, a trial and a freeze, when read, then all three in one snapshot', async () => {
      // Prepare
      await ports.control.tripBreaker({ reason: 'outage', now: T0, stop: false });
      await ports.control.startIsolation({ now: T0, messages: 20, cause: 'env-dead', expiresAt: EXPIRES_AT });
      await ports.arrange.freezeReplay();

      // Act
      const snapshot = await ports.control.snapshot();

      // Assess
      expect(snapshot).toStrictEqual({
        breaker: {
          state: 'open',
          reason: 'outage',
          epoch: 1,
          openedAt: T0.getTime(),
          cooldownSeconds: COOLDOWN,
          stop: false,
        },
        isolation: { active: true, remaining: 20, startedAt: T0.getTime(), reason: 'unattributable-crash' },
        replayFrozen: true,
      });
    });

    it('given failure events around the window start, when read since it, then the events at or after it, newest first', async () => {
      // Prepare: written out of order, as concurrent environments write them.
      const event = (key: string, seconds: number, eventId: string) => ({
        key,
        kind: 'transient' as const,
        at: at(seconds),
        eventId,
        expiresAt: EXPIRES,
      });
      await ports.control.recordFailureEvent(event('k-late', 30, 'e3'));
      await ports.control.recordFailureEvent(event('k-before', -1, 'e0'));
      await ports.control.recordFailureEvent(event('k-second', 0, 'e2'));
      await ports.control.recordFailureEvent(event('k-first', 0, 'e1'));

      // Act
      const events = await ports.control.failuresSince(T0, 10);

      // Assess: time, then event id, descending.
      expect(events).toStrictEqual([
        { key: 'k-late', at: at(30).getTime() },
        { key: 'k-second', at: T0.getTime() },
        { key: 'k-first', at: T0.getTime() },
      ]);
    });

    it('given a window full of one key and, newest, three others, when three distinct keys settle the verdict, then the oldest events are not read', async () => {
      // Prepare: one message failing in a loop, then a shared dependency failing three others.
      const loop = Array.from({ length: 60 }, (_, index) => ({ key: 'k-loop', at: at(index) }));
      const newest = [
        { key: 'k-a', at: at(61) },
        { key: 'k-b', at: at(62) },
        { key: 'k-c', at: at(63) },
      ];
      for (const [index, { key, at: when }] of [...loop, ...newest].entries()) {
        const eventId = `e${String(index).padStart(3, '0')}`;
        await ports.control.recordFailureEvent({
          key,
          kind: 'transient',
          at: when,
          eventId,
          expiresAt: EXPIRES,
        });
      }
      const all = [...loop, ...newest].reverse().map(({ key, at: when }) => ({ key, at: when.getTime() }));

      // Act
      const events = await ports.control.failuresSince(T0, 3);

      // Assess: a newest-first prefix of the window holding the three, not the whole window.
      expect(events.slice(0, 3)).toStrictEqual(all.slice(0, 3));
      expect(events).toStrictEqual(all.slice(0, events.length));
      expect(events.length).toBeLessThan(all.length);
    });

    it('given fewer distinct keys in the window than would settle the verdict, then every event of the window', async () => {
      // Prepare: more events than one page of the adapter's query.
      for (let index = 0; index < 45; index++) {
        const key = index === 0 ? 'k-a' : 'k-loop';
        const eventId = `e${String(index).padStart(3, '0')}`;
        await ports.control.recordFailureEvent({
          key,
          kind: 'transient',
          at: at(index),
          eventId,
          expiresAt: EXPIRES,
        });
      }

      // Act
      const events = await ports.control.failuresSince(T0, 3);

      // Assess
      expect(events).toHaveLength(45);
      expect(events[0]).toStrictEqual({ key: 'k-loop', at: at(44).getTime() });
      expect(events[44]).toStrictEqual({ key: 'k-a', at: T0.getTime() });
    });

    it('given a failure event written, when the write is retried, then it is still one event', async () => {
      // Prepare
      const event = { key: 'k1', kind: 'crash' as const, at: T0, eventId: 'e1', expiresAt: EXPIRES };
      await ports.control.recordFailureEvent(event);

      // Act
      await ports.control.recordFailureEvent(event);

      // Assess
      expect(await ports.control.failuresSince(at(-60), 3)).toStrictEqual([{ key: 'k1', at: T0.getTime() }]);
    });

    it('given a dead environment, when several discoverers count it, then every one counts and all get the first count', async () => {
      // Prepare
      const counted: number[] = [];
      const countOf = (n: number) => async () => {
        counted.push(n);
        return n;
      };

      // Act
      const first = await ports.control.crashInFlight('env-dead', countOf(3), EXPIRES);
      const second = await ports.control.crashInFlight('env-dead', countOf(5), EXPIRES);
      const other = await ports.control.crashInFlight('env-other', countOf(1), EXPIRES);

      // Assess
      expect([first, second, other]).toStrictEqual([3, 3, 1]);
      expect(counted).toStrictEqual([3, 5, 1]);
    });

    it('given lost completions, when asked per key, then the latest lost attempt of that key', async () => {
      // Prepare
      await ports.control.recordLostCompletion({ key: 'k1', attemptId: 'a1', expiresAt: EXPIRES });
      await ports.control.recordLostCompletion({ key: 'k1', attemptId: 'a2', expiresAt: EXPIRES });

      // Act
      const lost = await ports.control.lostCompletion('k1');
      const none = await ports.control.lostCompletion('k2');

      // Assess
      expect([lost, none]).toStrictEqual(['a2', undefined]);
    });

    it('issue 22 defect 9: given a lost completion of a 2048-byte key, then it is kept and found under that key only', async () => {
      // Prepare: the longest key a message may carry (ledger partition key limit), multi-byte.
      const long = 'ü'.repeat(1024);
      const sibling = `${'ü'.repeat(1023)}u`;
      await ports.control.recordLostCompletion({ key: long, attemptId: 'a1', expiresAt: EXPIRES });

      // Act
      const lost = await ports.control.lostCompletion(long);
      const none = await ports.control.lostCompletion(sibling);

      // Assess
      expect([Buffer.byteLength(long), lost, none]).toStrictEqual([2048, 'a1', undefined]);
    });

    it('issue 22 defect 9: given a sort key over 1024 bytes, then the control table refuses it as DynamoDB does', async () => {
      // Act: an environment id is the crash item's sort key.
      const error = await refusal(
        ports.control.crashInFlight('e'.repeat(1025), async () => 1, EXPIRES),
        ControlStateUnavailableError,
      );

      // Assess
      expect((error.cause as Error).name).toBe('ValidationException');
      expect(await ports.control.crashInFlight('e'.repeat(1024), async () => 1, EXPIRES)).toBe(1);
    });
  });

  describe('ControlPort: breaker', () => {
    it('given no breaker, when three environments trip it at once, then exactly one wins epoch 1', async () => {
      // Act
      const trips = await Promise.all(
        [0, 1, 2].map((n) => ports.control.tripBreaker({ reason: 'outage', now: at(n), stop: false })),
      );

      // Assess
      expect(trips.filter((trip) => trip.tripped)).toStrictEqual([{ tripped: true, epoch: 1 }]);
      expect(trips.map((trip) => trip.epoch)).toStrictEqual([1, 1, 1]);
    });

    it('given an automatic pause, when a stop trips, then it escalates once as a new epoch; later trips lose', async () => {
      // Prepare
      await ports.control.tripBreaker({ reason: 'outage', now: T0, stop: false });

      // Act
      const escalated = await ports.control.tripBreaker({
        reason: 'quarantine-unwritable',
        now: at(5),
        stop: true,
      });
      const again = await ports.control.tripBreaker({
        reason: 'quarantine-capacity',
        now: at(6),
        stop: true,
      });
      const automatic = await ports.control.tripBreaker({ reason: 'outage', now: at(7), stop: false });

      // Assess
      expect([escalated, again, automatic]).toStrictEqual([
        { tripped: true, epoch: 2 },
        { tripped: false, epoch: 2 },
        { tripped: false, epoch: 2 },
      ]);
      expect((await ports.control.snapshot()).breaker).toStrictEqual({
        state: 'open',
        reason: 'quarantine-unwritable',
        epoch: 2,
        openedAt: at(5).getTime(),
        cooldownSeconds: COOLDOWN,
        stop: true,
      });
    });

    it('given a breaker the state machine closed, when it trips again, then the next epoch keeps the grown cool-down', async () => {
      // Prepare
      await ports.arrange.putBreaker({ state: 'closed', epoch: 4, cooldownSeconds: 120, stop: false });

      // Act
      const trip = await ports.control.tripBreaker({ reason: 'outage', now: T0, stop: false });

      // Assess
      expect(trip).toStrictEqual({ tripped: true, epoch: 5 });
      expect((await ports.control.snapshot()).breaker).toMatchObject({
        state: 'open',
        epoch: 5,
        cooldownSeconds: 120,
      });
    });

    it('given the breaker open, half-open, then closed, when probes report, then only the half-open ones count', async () => {
      // Prepare
      const noBreaker = await ports.control.recordProbe('success');
      await ports.control.tripBreaker({ reason: 'outage', now: T0, stop: false });
      const whileOpen = await ports.control.recordProbe('success');
      const halfOpen = { reason: 'outage', epoch: 1, openedAt: T0.getTime(), cooldownSeconds: COOLDOWN };
      await ports.arrange.putBreaker({
        state: 'half-open',
        ...halfOpen,
        stop: false,
        probeSuccesses: 0,
        probeFailures: 0,
        probeRepeatFailures: 0,
      });

      // Act
      const success = await ports.control.recordProbe('success');
      const afterSuccess = (await ports.control.snapshot()).breaker;
      const failure = await ports.control.recordProbe('failure');
      const afterFailure = (await ports.control.snapshot()).breaker;
      const repeated = await ports.control.recordProbe('repeated-failure');
      const afterRepeated = (await ports.control.snapshot()).breaker;
      const own = await ports.control.recordProbe('own-failure');
      const counts = await ports.arrange.probeCounts();
      await ports.arrange.putBreaker({ state: 'closed', epoch: 1, cooldownSeconds: COOLDOWN, stop: false });
      const whileClosed = await ports.control.recordProbe('failure');

      // Assess
      expect(
        [noBreaker, whileOpen, success, failure, repeated, own, whileClosed].map((probe) => probe.counted),
      ).toStrictEqual([false, false, true, true, true, true, false]);
      // A repeated failure is a failure of the window too (no silence), counted apart; so is a
      // failure of our own tables, which makes the window prove nothing.
      expect(counts).toStrictEqual({ successes: 1, failures: 3, repeated: 1, own: 1 });
      // Every reader sees the window's counts: they decide whether it still probes, or holds.
      expect([afterSuccess, afterFailure, afterRepeated]).toMatchObject([
        { probeSuccesses: 1, probeFailures: 0, probeRepeatFailures: 0 },
        { probeSuccesses: 1, probeFailures: 1, probeRepeatFailures: 0 },
        { probeSuccesses: 1, probeFailures: 2, probeRepeatFailures: 1 },
      ]);
    });

    it('given a breaker item with a state nobody knows, when read and written, then it reads as unreadable and no write lands', async () => {
      // Prepare: edited by hand (issue 8, defect 5).
      await ports.arrange.putGarbledBreaker({
        pk: { S: 'breaker' },
        sk: { S: 'state' },
        state: { S: 'paused-by-hand' },
        epoch: { N: '4' },
      });

      // Act
      const snapshot = await ports.control.snapshot();
      const trip = await ports.control.tripBreaker({ reason: 'outage', now: T0, stop: true });
      const probe = await ports.control.recordProbe('failure');

      // Assess: the reading says what is wrong; the loser of the trip learns the epoch.
      expect(snapshot.breaker).toStrictEqual({
        state: 'unreadable',
        problem: 'breaker: unknown state "paused-by-hand"',
        epoch: 4,
      });
      expect([trip, probe]).toStrictEqual([{ tripped: false, epoch: 4 }, { counted: false }]);
      expect((await ports.control.snapshot()).breaker).toStrictEqual(snapshot.breaker);
    });
  });

  describe('ControlPort: isolation trial', () => {
    it('given a trial started by one crash, when the same cause starts it again, then it stays; another cause restarts it, and the first never again', async () => {
      // Prepare
      await ports.control.startIsolation({ now: T0, messages: 3, cause: 'env-1', expiresAt: EXPIRES_AT });
      await ports.control.isolationMessagePassed();

      // Act
      const same = await ports.control.startIsolation({
        now: at(60),
        messages: 3,
        cause: 'env-1',
        expiresAt: EXPIRES_AT,
      });
      const other = await ports.control.startIsolation({
        now: at(120),
        messages: 3,
        cause: 'env-2',
        expiresAt: EXPIRES_AT,
        reason: 'why',
      });
      const earlierAgain = await ports.control.startIsolation({
        now: at(180),
        messages: 3,
        cause: 'env-1',
        expiresAt: EXPIRES_AT,
      });

      // Assess: the earlier crash, served before the later one restarted it, restarts nothing.
      expect(earlierAgain).toStrictEqual(other);
      expect(same).toStrictEqual({
        active: true,
        remaining: 2,
        startedAt: T0.getTime(),
        reason: 'unattributable-crash',
      });
      expect(other).toStrictEqual({
        active: true,
        remaining: 3,
        startedAt: at(120).getTime(),
        reason: 'why',
      });
      expect((await ports.control.snapshot()).isolation).toStrictEqual(other);
    });

    it('given a trial of 3, when messages pass, then it counts down and the last one ends it; the same crash cannot start it again', async () => {
      // Prepare
      await ports.control.startIsolation({ now: T0, messages: 3, cause: 'env-1', expiresAt: EXPIRES_AT });

      // Act
      const passed = [];
      for (let n = 0; n < 4; n++) passed.push(await ports.control.isolationMessagePassed());
      const afterLast = (await ports.control.snapshot()).isolation;
      const again = await ports.control.startIsolation({
        now: at(60),
        messages: 3,
        cause: 'env-1',
        expiresAt: EXPIRES_AT,
      });

      // Assess
      const trial = { active: true, startedAt: T0.getTime(), reason: 'unattributable-crash' };
      expect(passed).toStrictEqual([
        { ...trial, remaining: 2 },
        { ...trial, remaining: 1 },
        NO_TRIAL,
        NO_TRIAL,
      ]);
      expect(afterLast).toStrictEqual(NO_TRIAL);
      // The crash's other messages coming back later: that crash was served already.
      expect(again).toStrictEqual(NO_TRIAL);
      expect((await ports.control.snapshot()).isolation).toStrictEqual(NO_TRIAL);
    });

    it('given no trial ever, when a message passes, then there is still no trial', async () => {
      // Act
      const passed = await ports.control.isolationMessagePassed();

      // Assess
      expect(passed).toStrictEqual(NO_TRIAL);
      expect((await ports.control.snapshot()).isolation).toBeUndefined();
    });
  });

  describe('QuarantineStorePort', () => {
    it('given content stored, when put again with other bytes, then the first stays; bodyBytes is the UTF-8 length', async () => {
      // Prepare
      const id = newKey('q');
      const body = 'Grüße 😀';

      // Act
      const first = await ports.quarantine.putContent(id, { body, envelope: { messageId: 'm-1' } });
      const second = await ports.quarantine.putContent(id, { body: 'other', envelope: { messageId: 'm-2' } });

      // Assess: 8 UTF-16 units, 12 bytes.
      expect(first).toStrictEqual({ ...quarantineObjectKeys(id), bodyBytes: 12 });
      expect(second).toStrictEqual({ ...quarantineObjectKeys(id), bodyBytes: 5 });
      expect(await ports.arrange.contentOf(id)).toStrictEqual({ body, envelope: '{"messageId":"m-1"}' });
    });

    it('given a record written, when written again, then created is false and the first record stays', async () => {
      // Prepare
      const id = newKey('q');

      // Act
      const first = await ports.quarantine.putRecord(newRecord(id));
      const second = await ports.quarantine.putRecord(
        newRecord(id, { status: 'awaiting-operator', messageId: 'm-2' }),
      );

      // Assess
      expect([first, second]).toStrictEqual([{ created: true }, { created: false }]);
      expect(await ports.arrange.recordOf(id)).toStrictEqual({ status: 'open', messageId: 'm-1' });
    });

    it('issue 19: given a record whose item would pass 400 KB, then its transaction is refused as DynamoDB refuses it and nothing is written', async () => {
      // Prepare: the record and its count are one TransactWriteItems; each item in it keeps the
      // 400 KB item limit. A record with a stage of 399,000 bytes fits; 410,000 do not.
      const [fits, tooBig] = [newKey('q-fits'), newKey('q-too-big')];
      const fitted = await ports.quarantine.putRecord(newRecord(fits, { stage: 's'.repeat(399_000) }));

      // Act
      const error = await refusal(
        ports.quarantine.putRecord(newRecord(tooBig, { stage: 's'.repeat(410_000) })),
        QuarantineWriteError,
      );

      // Assess
      expect(fitted).toStrictEqual({ created: true });
      expect((error.cause as Error).name).toBe('ValidationException');
      expect(await ports.arrange.recordOf(tooBig)).toBeUndefined();
    });

    it('given open, awaiting and settled records, when counted, then only open and awaiting-operator count', async () => {
      // Prepare
      const empty = await ports.quarantine.openRecordsAtLeast(1);
      const [open, awaiting, resolved, replayed] = ['open', 'awaiting', 'resolved', 'replayed'].map(newKey);
      await ports.quarantine.putRecord(newRecord(open));
      await ports.quarantine.putRecord(newRecord(awaiting, { status: 'awaiting-operator' }));
      await ports.quarantine.putRecord(newRecord(resolved));
      await ports.quarantine.putRecord(newRecord(replayed));
      await ports.arrange.setRecordStatus(resolved, 'resolved');
      await ports.arrange.setRecordStatus(replayed, 'replayed');

      // Act
      const atLeastTwo = await ports.quarantine.openRecordsAtLeast(2);
      const atLeastThree = await ports.quarantine.openRecordsAtLeast(3);

      // Assess
      expect([empty, atLeastTwo, atLeastThree]).toStrictEqual([false, true, false]);
    });

    it('given a record written again (a retried quarantine), then it is counted once', async () => {
      // Prepare
      await ports.quarantine.openRecordsAtLeast(1);
      const id = newKey('q');

      // Act
      await ports.quarantine.putRecord(newRecord(id));
      await ports.quarantine.putRecord(newRecord(id));
      await ports.quarantine.putRecord(newRecord(newKey('q'), { status: 'awaiting-operator' }));

      // Assess
      expect(await ports.arrange.openRecordCount()).toBe(2);
    });

    it('given records leaving open and awaiting-operator, then each is uncounted once, however often it moves on', async () => {
      // Prepare
      const [open, awaiting] = ['open', 'awaiting'].map(newKey);
      await ports.quarantine.putRecord(newRecord(open));
      await ports.quarantine.putRecord(newRecord(awaiting, { status: 'awaiting-operator' }));
      await ports.quarantine.putRecord(newRecord(newKey('stays')));

      // Act
      await ports.arrange.setRecordStatus(open, 'awaiting-operator');
      const between = await ports.arrange.openRecordCount();
      await ports.arrange.setRecordStatus(open, 'resolved');
      await ports.arrange.setRecordStatus(open, 'resolved');
      await ports.arrange.setRecordStatus(awaiting, 'replayed');
      await ports.arrange.setRecordStatus(awaiting, 'resolved');

      // Assess
      expect([between, await ports.arrange.openRecordCount()]).toStrictEqual([3, 1]);
      expect(await ports.quarantine.openRecordsAtLeast(2)).toBe(false);
    });

    it('given no counter (a table from before it), when capacity is asked, then the open records are counted once and counted on from there', async () => {
      // Prepare
      for (const id of ['a', 'b', 'c'].map(newKey)) await ports.quarantine.putRecord(newRecord(id));
      const settled = newKey('settled');
      await ports.quarantine.putRecord(newRecord(settled));
      await ports.arrange.setRecordStatus(settled, 'resolved');
      await ports.arrange.removeOpenRecordCount();

      // Act
      const atLeastThree = await ports.quarantine.openRecordsAtLeast(3);
      const established = await ports.arrange.openRecordCount();
      await ports.quarantine.putRecord(newRecord(newKey('d')));

      // Assess
      expect([atLeastThree, established, await ports.arrange.openRecordCount()]).toStrictEqual([true, 3, 4]);
    });

    it('given no counter, when a record is written first, then the records before it are counted too', async () => {
      // Prepare
      for (const id of ['a', 'b'].map(newKey)) await ports.quarantine.putRecord(newRecord(id));
      await ports.arrange.removeOpenRecordCount();

      // Act
      await ports.quarantine.putRecord(newRecord(newKey('c')));

      // Assess
      expect(await ports.arrange.openRecordCount()).toBe(3);
    });
  });

  describe('OperationsPort', () => {
    it('given an outcome-unknown execution, when started again, then the same input answers as the first; another input or a closed one starts nothing', async () => {
      // Prepare
      const quarantineId = newKey('q');
      const input = { quarantineId, messageKey: 'order-17' };

      // Act
      const first = await ports.operations.startOutcomeUnknown(input);
      const again = await ports.operations.startOutcomeUnknown(input);
      const otherInput = await ports.operations.startOutcomeUnknown({ ...input, messageKey: 'order-18' });
      if (!first.started) throw new Error('the first start did not start');
      await ports.arrange.finishExecution(first.executionArn);
      const afterClose = await ports.operations.startOutcomeUnknown(input);

      // Assess
      expect(first.executionArn).toMatch(new RegExp(`:ou-${quarantineId}$`));
      expect(again).toStrictEqual(first);
      expect([otherInput, afterClose]).toStrictEqual([{ started: false }, { started: false }]);
    });

    it('given a running pause of an epoch, when started again, then one run per epoch whatever the input', async () => {
      // Prepare
      const epoch = 1 + Math.floor(Math.random() * 1_000_000_000);
      const input = { epoch, reason: 'outage', stop: false, cooldownSeconds: 30 };

      // Act
      const first = await ports.operations.startPause(input);
      const again = await ports.operations.startPause(input);
      const otherInput = await ports.operations.startPause({
        ...input,
        reason: 'quarantine-unwritable',
        stop: true,
      });
      const noTimings = await ports.operations.startPause({ epoch, reason: 'outage', stop: false });

      // Assess
      if (!first.started) throw new Error('the first start did not start');
      expect(first.executionArn).toMatch(new RegExp(`:pause-${epoch}$`));
      expect(again).toStrictEqual(first);
      expect([otherInput, noTimings]).toStrictEqual([{ started: false }, { started: false }]);
    });

    it('given the run of an epoch was aborted, when the pause starts again, then the next run drives it, once', async () => {
      // Prepare: an open breaker must always have a run driving it back.
      const epoch = 1 + Math.floor(Math.random() * 1_000_000_000);
      const input = { epoch, reason: 'outage', stop: false };
      const first = await ports.operations.startPause(input);
      if (!first.started) throw new Error('the first start did not start');
      await ports.arrange.finishExecution(first.executionArn);

      // Act
      const next = await ports.operations.startPause(input);
      const again = await ports.operations.startPause(input);
      const otherInput = await ports.operations.startPause({ ...input, stop: true });

      // Assess
      if (!next.started) throw new Error('the next run did not start');
      expect(next.executionArn).toMatch(new RegExp(`:pause-${epoch}-r2$`));
      expect(again).toStrictEqual(next);
      expect(otherInput).toStrictEqual({ started: false });
    });
  });

  describe('SourceQueuePort.delay', () => {
    it('given an in-flight message, when delayed on its latest handle, then it stays hidden; a delay of 0 returns it at once', async () => {
      // Prepare
      await ports.arrange.sendMessage('m');
      const handle = String(await ports.arrange.receive(30));

      // Act
      await ports.queue.delay(handle, 600);
      const hidden = await ports.arrange.receive(30);
      await ports.queue.delay(handle, 0);
      const returned = await ports.arrange.receive(30);

      // Assess
      expect(hidden).toBeUndefined();
      expect(returned).toEqual(expect.any(String));
    });

    it('given delays SQS would refuse, when asked, then they are clamped: too long hides, negative or NaN returns at once', async () => {
      // Prepare
      await ports.arrange.sendMessage('m');
      const first = String(await ports.arrange.receive(30));

      // Act
      await ports.queue.delay(first, 99_999);
      const hidden = await ports.arrange.receive(30);
      await ports.queue.delay(first, -5);
      const second = String(await ports.arrange.receive(30));
      await ports.queue.delay(second, Number.NaN);
      const third = await ports.arrange.receive(30);

      // Assess
      expect(hidden).toBeUndefined();
      expect(third).toEqual(expect.any(String));
    });

    it('given a handle no receive issued, or one of a deleted message, when delayed, then SourceQueueError', async () => {
      // Prepare
      await ports.arrange.sendMessage('m');
      const handle = String(await ports.arrange.receive(30));
      await ports.arrange.deleteMessage(handle);

      // Act
      const deleted = await rejectionOf(ports.queue.delay(handle, 10));
      const invented = await rejectionOf(ports.queue.delay('not-a-receipt-handle', 10));

      // Assess
      expect(deleted).toBeInstanceOf(SourceQueueError);
      expect(invented).toBeInstanceOf(SourceQueueError);
    });

    contract('stale-receipt-handle')(
      'given a message received again, when delayed on the older handle, then SourceQueueError and it stays in flight',
      async () => {
        // Prepare
        await ports.arrange.sendMessage('m');
        const older = String(await ports.arrange.receive(30));
        await ports.queue.delay(older, 0);
        const latest = await ports.arrange.receive(30);

        // Act
        const refused = ports.queue.delay(older, 0);

        // Assess: had the older handle won, the message would be visible to another receive.
        await refusal(refused, SourceQueueError);
        expect(latest).toEqual(expect.any(String));
        expect(await ports.arrange.receive(30)).toBeUndefined();
      },
    );

    contract('visible-message-handle')(
      'given a message visible again, when delayed on its latest handle, then SourceQueueError (not in flight)',
      async () => {
        // Prepare
        await ports.arrange.sendMessage('m');
        const handle = String(await ports.arrange.receive(30));
        await ports.queue.delay(handle, 0);

        // Act
        const refused = ports.queue.delay(handle, 600);

        // Assess
        await refusal(refused, SourceQueueError);
        expect(await ports.arrange.receive(30)).toEqual(expect.any(String));
      },
    );
  });
});
