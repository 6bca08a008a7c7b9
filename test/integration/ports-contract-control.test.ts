/**
 * The consumer's ControlPort (lambdas/ports/consumer-ports.ts) as a contract, written once and run twice:
 * against the in-memory world that drives the fast orchestration tests (sim/world) and against
 * the real adapters over the local AWS. The world is worth its speed only while it keeps the
 * services' semantics (conditional writes that return the item as it was, create-once objects,
 * idempotent execution names, receipt handles), so every case must pass on both. Where moto itself
 * departs from AWS's documented behaviour, the case runs there as `it.fails` (see `departures`):
 * the departure stays visible, and the day moto is fixed the case says so.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { NO_TRIAL } from '../../lambdas/core/isolation';
import { ControlStateUnavailableError } from '../../lambdas/ports/errors';
import { at, COOLDOWN, EXPIRES, EXPIRES_AT, onEveryPortsWorld, refusal, T0 } from './support/ports-contract';
import type { PortsUnderTest } from './support/ports-worlds';

onEveryPortsWorld((world) => {
  let ports: PortsUnderTest;
  beforeEach(async () => {
    ports = await world.fresh();
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
        { key: 'k-late', at: at(30).getTime(), kind: 'transient' },
        { key: 'k-second', at: T0.getTime(), kind: 'transient' },
        { key: 'k-first', at: T0.getTime(), kind: 'transient' },
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
      const all = [...loop, ...newest]
        .reverse()
        .map(({ key, at: when }) => ({ key, at: when.getTime(), kind: 'transient' }));

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
      expect(events[0]).toStrictEqual({ key: 'k-loop', at: at(44).getTime(), kind: 'transient' });
      expect(events[44]).toStrictEqual({ key: 'k-a', at: T0.getTime(), kind: 'transient' });
    });

    it('given crashes a trial pass followed, then they do not settle the verdict: the older errors behind them are read too', async () => {
      // Prepare: two errors, then two crashes, then a message passed a trial, then one more crash.
      const events = [
        { key: 'k-error-1', kind: 'transient', at: at(1) },
        { key: 'k-error-2', kind: 'transient', at: at(2) },
        { key: 'k-crash-1', kind: 'crash', at: at(3) },
        { key: 'k-crash-2', kind: 'crash', at: at(4) },
        { key: 'k-crash-3', kind: 'crash', at: at(6) },
      ] as const;
      for (const [index, event] of events.entries()) {
        await ports.control.recordFailureEvent({ ...event, eventId: `e${index}`, expiresAt: EXPIRES });
      }

      // Act
      const read = await ports.control.failuresSince(T0, 3, at(5).getTime());

      // Assess: k-crash-3, k-error-2 and k-error-1 count; the two crashes before the pass do not.
      expect(read.map((event) => event.key)).toStrictEqual([
        'k-crash-3',
        'k-crash-2',
        'k-crash-1',
        'k-error-2',
        'k-error-1',
      ]);
    });

    it('given a failure event written, when the write is retried, then it is still one event', async () => {
      // Prepare
      const event = { key: 'k1', kind: 'crash' as const, at: T0, eventId: 'e1', expiresAt: EXPIRES };
      await ports.control.recordFailureEvent(event);

      // Act
      await ports.control.recordFailureEvent(event);

      // Assess
      expect(await ports.control.failuresSince(at(-60), 3)).toStrictEqual([
        { key: 'k1', at: T0.getTime(), kind: 'crash' },
      ]);
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
      await ports.control.isolationMessagePassed(at(30));

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
        lastPassAt: at(30).getTime(),
      });
      // A restart keeps the last pass: the crashes before it are still followed by it (rule 7).
      expect(other).toStrictEqual({
        active: true,
        remaining: 3,
        startedAt: at(120).getTime(),
        reason: 'why',
        lastPassAt: at(30).getTime(),
      });
      expect((await ports.control.snapshot()).isolation).toStrictEqual(other);
    });

    it('given a trial of 3, when messages pass, then it counts down and the last one ends it; the same crash cannot start it again', async () => {
      // Prepare
      await ports.control.startIsolation({ now: T0, messages: 3, cause: 'env-1', expiresAt: EXPIRES_AT });

      // Act
      const passed = [];
      for (let n = 0; n < 4; n++) passed.push(await ports.control.isolationMessagePassed(at(n)));
      const afterLast = (await ports.control.snapshot()).isolation;
      const again = await ports.control.startIsolation({
        now: at(60),
        messages: 3,
        cause: 'env-1',
        expiresAt: EXPIRES_AT,
      });

      // Assess
      const trial = { active: true, startedAt: T0.getTime(), reason: 'unattributable-crash' };
      const ended = { ...NO_TRIAL, lastPassAt: at(2).getTime() };
      expect(passed).toStrictEqual([
        { ...trial, remaining: 2, lastPassAt: at(0).getTime() },
        { ...trial, remaining: 1, lastPassAt: at(1).getTime() },
        ended,
        ended,
      ]);
      expect(afterLast).toStrictEqual(ended);
      // The crash's other messages coming back later: that crash was served already.
      expect(again).toStrictEqual(ended);
      expect((await ports.control.snapshot()).isolation).toStrictEqual(ended);
    });

    it('given no trial ever, when a message passes, then there is still no trial', async () => {
      // Act
      const passed = await ports.control.isolationMessagePassed(T0);

      // Assess
      expect(passed).toStrictEqual(NO_TRIAL);
      expect((await ports.control.snapshot()).isolation).toBeUndefined();
    });
  });
});
