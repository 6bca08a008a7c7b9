/**
 * The consumer's LedgerPort (lambdas/ports/consumer-ports.ts) as a contract, written once and run twice:
 * against the in-memory world that drives the fast orchestration tests (sim/world) and against
 * the real adapters over the local AWS. The world is worth its speed only while it keeps the
 * services' semantics (conditional writes that return the item as it was, create-once objects,
 * idempotent execution names, receipt handles), so every case must pass on both. Where moto itself
 * departs from AWS's documented behaviour, the case runs there as `it.fails` (see `departures`):
 * the departure stays visible, and the day moto is fixed the case says so.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ExternalRecord } from '../../lambdas/core/types';
import {
  LedgerStateMismatchError,
  LedgerUnavailableError,
  StaleAttemptError,
} from '../../lambdas/ports/errors';
import {
  at,
  begun,
  EVIDENCE,
  ended,
  iso,
  newKey,
  onEveryPortsWorld,
  PENDING_SHIP,
  refusal,
  restartOf,
  startOf,
} from './support/ports-contract';
import type { PortsUnderTest } from './support/ports-worlds';

onEveryPortsWorld((world) => {
  let ports: PortsUnderTest;
  beforeEach(async () => {
    ports = await world.fresh();
  });

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
        item: begun(key, 'a2', { attempts: 2, ...replayed, replaysStarted: ['q1'], lastAttemptAt: iso(30) }),
      });
    });

    it('given a replay of q1 that started, when the item is quarantined again and reset for q2, then it still names q1 among the replays started, beside q2', async () => {
      // Prepare: the replay of q1 runs and ends in a second quarantine, which the operator replays too.
      const key = newKey('replayed-twice');
      await resetForReplayOf(key);
      await ports.ledger.start(startOf(key, 'a2', { replayOf: 'q1', now: at(30) }));
      await ports.ledger.markQuarantined(key, {
        attemptId: 'a2',
        quarantineId: 'q2',
        charge: 1,
        now: at(40),
      });
      await ports.ledger.resetForReplay(key, {
        expectedState: 'quarantined',
        quarantineId: 'q2',
        now: at(50),
      });

      // Act: the replay of q2 starts; a redelivered replay of q1 is refused.
      const second = await ports.ledger.start(startOf(key, 'a3', { replayOf: 'q2', now: at(60) }));
      await ports.ledger.recordFailure(key, 'a3', {
        counters: { charged: 1, transientFailures: 1, unknownFailures: 0 },
        now: at(70),
      });
      const redelivered = await ports.ledger.start(startOf(key, 'a4', { replayOf: 'q1', now: at(80) }));

      // Assess: the set keeps both, in one order whatever DynamoDB returns.
      expect(second).toMatchObject({ started: true, item: { replayOf: 'q2', replaysStarted: ['q1', 'q2'] } });
      expect(redelivered).toMatchObject({
        started: false,
        previous: { state: 'ready', replayOf: 'q2', replaysStarted: ['q1', 'q2'] },
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

    it("given an item reset for replay, when a plain redelivery of the original starts, then it is refused: the reset is the replay's alone", async () => {
      // Prepare
      const key = newKey('plain-after-reset');
      const reset = await resetForReplayOf(key);

      // Act
      const result = await ports.ledger.start(startOf(key, 'a2', { now: at(30) }));

      // Assess
      expect(result).toStrictEqual({ started: false, previous: reset });
    });

    it("given the replay of q1 started and failed, when a plain delivery starts, then it is refused: the generation stays the replay's", async () => {
      // Prepare
      const key = newKey('plain-in-replay-generation');
      await resetForReplayOf(key);
      await ports.ledger.start(startOf(key, 'a2', { replayOf: 'q1', now: at(30) }));
      const counters = { charged: 1, transientFailures: 1, unknownFailures: 0 };
      const failed = await ports.ledger.recordFailure(key, 'a2', { counters, now: at(40) });

      // Act
      const plain = await ports.ledger.start(startOf(key, 'a3', { now: at(50) }));
      const retry = await ports.ledger.start(startOf(key, 'a4', { replayOf: 'q1', now: at(60) }));

      // Assess
      expect(plain).toStrictEqual({ started: false, previous: failed });
      expect(retry).toMatchObject({
        started: true,
        item: { attemptId: 'a4', attempts: 3, replaysStarted: ['q1'] },
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
        item: { attempts: 2, charged: 0, crashes: 0, attemptId: 'a2' },
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

  describe("LedgerPort: an attempt's lease (Kafka)", () => {
    it('given a start with a lease, when its worker renews it, then the item holds the latest lease', async () => {
      // Prepare
      const key = newKey('leased');
      const started = await ports.ledger.start(startOf(key, 'a1', { aliveUntil: at(2) }));

      // Act
      const renewed = await ports.ledger.renewLease(key, 'a1', at(4));

      // Assess
      expect(started).toStrictEqual({ started: true, item: begun(key, 'a1', { aliveUntil: iso(2) }) });
      expect(renewed).toStrictEqual(begun(key, 'a1', { aliveUntil: iso(4) }));
    });

    it('given the attempt was restarted after a crash, when the dead attempt renews, then StaleAttemptError and the new lease stays', async () => {
      // Prepare: a redelivery took the lapsed attempt a1 for dead and started a2 with its own lease.
      const key = newKey('taken-over');
      await ports.ledger.start(startOf(key, 'a1', { aliveUntil: at(2) }));
      await ports.ledger.restartAfterCrash({ ...restartOf(key, 'a1', 'a2', 1), aliveUntil: at(62) });

      // Act
      const refused = await refusal(ports.ledger.renewLease(key, 'a1', at(70)), StaleAttemptError);

      // Assess
      expect(refused.current).toMatchObject({ attemptId: 'a2', aliveUntil: iso(62) });
    });

    it('given an ended attempt, when a late renewal comes, then StaleAttemptError: an ended attempt has nothing to keep alive', async () => {
      // Prepare
      const key = newKey('ended-lease');
      await ports.ledger.start(startOf(key, 'a1', { aliveUntil: at(2) }));
      await ports.ledger.complete(key, 'a1', at(1));

      // Act
      const refused = ports.ledger.renewLease(key, 'a1', at(3));

      // Assess
      await refusal(refused, StaleAttemptError);
    });

    it('given a leased attempt, when the next start carries no lease, then the old lease is gone with its attempt', async () => {
      // Prepare: the function was redeployed onto a source without leases.
      const key = newKey('unleased');
      await ports.ledger.start(startOf(key, 'a1', { aliveUntil: at(2) }));

      // Act
      const restarted = await ports.ledger.restartAfterCrash(restartOf(key, 'a1', 'a2', 0));

      // Assess
      expect(restarted.started && restarted.item.aliveUntil).toBeUndefined();
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

  describe('LedgerPort: failed probes', () => {
    it('given attempts settled as failed probes, when started again and later reset for a replay, then each is counted and the count stays until the reset', async () => {
      // Prepare
      const key = newKey('probed');
      await ports.ledger.start(startOf(key, 'a1'));
      const counters = { charged: 0, transientFailures: 0, unknownFailures: 0 };

      // Act
      const first = await ports.ledger.recordFailure(key, 'a1', { counters, failedProbe: true, now: at(10) });
      const again = await ports.ledger.start(startOf(key, 'a2', { now: at(20) }));
      const second = await ports.ledger.recordFailure(key, 'a2', {
        counters,
        failedProbe: true,
        crashed: true,
        now: at(30),
      });
      const notProbed = await ports.ledger.start(startOf(key, 'a3', { now: at(40) }));
      const third = await ports.ledger.recordFailure(key, 'a3', { counters, now: at(50) });
      await ports.ledger.start(startOf(key, 'a4', { now: at(60) }));
      await ports.ledger.markQuarantined(key, { attemptId: 'a4', quarantineId: 'q1', now: at(70) });
      const reset = await ports.ledger.resetForReplay(key, { expectedState: 'quarantined', now: at(80) });

      // Assess: a message probed and failed stays one for every later window, until a person
      // replays it; each failed probe counts (a Kafka record's last one quarantines it), beside a
      // crash counted in the same write, and a failure that was no probe counts none.
      expect(first).toMatchObject({ state: 'ready', failedProbes: 1 });
      expect(again.started && again.item.failedProbes).toBe(1);
      expect(second).toMatchObject({ state: 'ready', failedProbes: 2, crashes: 1 });
      expect(notProbed.started && notProbed.item.failedProbes).toBe(2);
      expect(third.failedProbes).toBe(2);
      expect(reset.failedProbes).toBeUndefined();
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
});
