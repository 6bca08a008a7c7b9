import { describe, expect, it } from 'vitest';
import {
  type CrashContext,
  type Delivered,
  type DeliveryDecision,
  decideDelivery,
  failureEventForMessage,
  replayAlreadyStarted,
} from '../../lambdas/core/delivery';
import { planSuspects, staggerSeconds, suspectOrder } from '../../lambdas/core/suspects';
import type { ExternalRecord, LedgerItem } from '../../lambdas/core/types';
import { aLedgerItem, aPolicy } from './fixtures';

const policy = aPolicy({ attemptLimit: 3, attemptTimeoutSeconds: 30 });
/** Long after the fixture's lastAttemptAt (2025-01-01T00:00:00Z): an in-flight attempt is dead. */
const AN_HOUR_LATER = Date.parse('2025-01-01T01:00:00.000Z');
/** The same SQS message again (the fixtures' messageId). */
const REDELIVERED = { messageId: aLedgerItem().messageId, bodyDigest: 'digest-1' };
const at = '2025-01-01T00:00:01.000Z';
const pending: ExternalRecord = { name: 'charge-card', status: 'pending', at };
const pendingIdempotent: ExternalRecord = { ...pending, idempotencyKey: 'order-17-charge' };
const done: ExternalRecord = { name: 'charge-card', status: 'done', at };

describe('decideDelivery', () => {
  it.each<[string, Partial<LedgerItem>, CrashContext | undefined, DeliveryDecision]>([
    // Rule 13: duplicates.
    ['completed', { state: 'completed' }, undefined, { kind: 'duplicate', state: 'completed' }],
    ['quarantined', { state: 'quarantined' }, undefined, { kind: 'duplicate', state: 'quarantined' }],
    [
      'quarantined, even with a pending call and crash context',
      { state: 'quarantined', external: pending },
      { inFlight: 1 },
      { kind: 'duplicate', state: 'quarantined' },
    ],
    // Rule 8: outcome unknown, whatever the count.
    [
      'in flight with a pending non-idempotent call (first: was the work finished after all?)',
      { external: pending },
      undefined,
      { kind: 'need-crash-context', envId: 'env-a' },
    ],
    [
      'in flight with a pending non-idempotent call and budget left',
      { external: pending, charged: 0 },
      { inFlight: 1 },
      { kind: 'outcome-unknown', failureEvent: 'msg:order-17' },
    ],
    [
      'in flight with a pending non-idempotent call at the limit',
      { external: pending, charged: 2, attempts: 3 },
      { inFlight: 1 },
      { kind: 'outcome-unknown', failureEvent: 'msg:order-17' },
    ],
    // A crash: first learn how many messages the environment had in flight.
    ['in flight (crashed)', {}, undefined, { kind: 'need-crash-context', envId: 'env-a' }],
    [
      'in flight with a pending idempotent call',
      { external: pendingIdempotent },
      undefined,
      { kind: 'need-crash-context', envId: 'env-a' },
    ],
    [
      'in flight after a finished non-idempotent call (redoing the work would repeat it)',
      { external: done },
      { inFlight: 2 },
      { kind: 'outcome-unknown', failureEvent: 'msg:order-17' },
    ],
    [
      'in flight after a call that provably was not sent',
      { external: { ...pending, status: 'not-sent' } },
      undefined,
      { kind: 'need-crash-context', envId: 'env-a' },
    ],
    // Rule 5: attributable.
    [
      'crashed alone, nothing charged yet',
      { charged: 0 },
      { inFlight: 1 },
      {
        kind: 'proceed',
        charge: 1,
        crash: 'attributable',
        startIsolation: true,
        failureEvent: 'msg:order-17',
      },
    ],
    [
      'crashed alone with a pending idempotent call (a plain crash)',
      { external: pendingIdempotent, charged: 1 },
      { inFlight: 1 },
      {
        kind: 'proceed',
        charge: 1,
        crash: 'attributable',
        startIsolation: true,
        failureEvent: 'msg:order-17',
      },
    ],
    [
      'crashed alone, the charge reaches the limit (rule 2)',
      { charged: 2, attempts: 3 },
      { inFlight: 1 },
      {
        kind: 'quarantine',
        reason: 'crash-limit',
        charge: 1,
        crash: 'attributable',
        failureEvent: 'msg:order-17',
      },
    ],
    [
      'crashed alone after a crash alone: its own, no failure event (rule 5 before rule 7)',
      { charged: 0, crashes: 1 },
      { inFlight: 1 },
      { kind: 'proceed', charge: 1, crash: 'attributable', startIsolation: true },
    ],
    [
      'crashed alone again, the charge reaches the limit: no failure event',
      { charged: 2, crashes: 2, attempts: 3 },
      { inFlight: 1 },
      { kind: 'quarantine', reason: 'crash-limit', charge: 1, crash: 'attributable' },
    ],
    [
      'crashed with others after a crash of its own: still nobody is blamed, and no event: isolation will tell',
      { charged: 1, crashes: 1 },
      { inFlight: 3 },
      {
        kind: 'proceed',
        charge: 0,
        crash: 'unattributable',
        startIsolation: true,
      },
    ],
    [
      'an impossible count of 0 is the item itself',
      { charged: 0 },
      { inFlight: 0 },
      {
        kind: 'proceed',
        charge: 1,
        crash: 'attributable',
        startIsolation: true,
        failureEvent: 'msg:order-17',
      },
    ],
    [
      'in flight without an environment id: charged, so it cannot loop forever',
      { envId: undefined },
      undefined,
      {
        kind: 'proceed',
        charge: 1,
        crash: 'attributable',
        startIsolation: true,
        failureEvent: 'msg:order-17',
      },
    ],
    // Rule 6: unattributable, no rule 7 event (isolation will tell).
    [
      'crashed with others',
      { charged: 0 },
      { inFlight: 4 },
      {
        kind: 'proceed',
        charge: 0,
        crash: 'unattributable',
        startIsolation: true,
      },
    ],
    [
      'crashed with others, one charge short of the limit',
      { charged: 2 },
      { inFlight: 2 },
      {
        kind: 'proceed',
        charge: 0,
        crash: 'unattributable',
        startIsolation: true,
      },
    ],
    [
      'crashed with others, limit already used (defensive)',
      { charged: 3 },
      { inFlight: 2 },
      {
        kind: 'quarantine',
        reason: 'crash-limit',
        charge: 0,
        crash: 'unattributable',
      },
    ],
    // `ready` is admitted by the start write; reaching here is a race.
    [
      'ready',
      { state: 'ready', envId: undefined, charged: 1 },
      undefined,
      { kind: 'proceed', charge: 0, crash: 'none', startIsolation: false },
    ],
    [
      'ready with the limit used (defensive)',
      { state: 'ready', envId: undefined, charged: 3 },
      undefined,
      { kind: 'quarantine', reason: 'crash-limit', charge: 0, crash: 'none' },
    ],
  ])('given the previous item is %s, then the decision is as stated', (_name, previous, crash, expected) => {
    // Act
    const decision = decideDelivery(aLedgerItem(previous), crash, policy, AN_HOUR_LATER, REDELIVERED);

    // Assess
    expect(decision).toStrictEqual(expected);
  });
});

describe('an attempt that may still be running', () => {
  it.each([
    ['just started', '2025-01-01T00:00:00.000Z', 30],
    ['29 s ago', '2024-12-31T23:59:31.000Z', 1],
  ])(
    'given it started %s, then the delivery waits, charges nothing and starts nothing',
    (_name, lastAttemptAt, retry) => {
      // Prepare: the consumer's timeout is 30 s; now is 2025-01-01T00:00:00Z.
      const previous = aLedgerItem({
        lastAttemptAt,
        external: { name: 'pay', status: 'pending', at: lastAttemptAt },
      });
      // Act
      const decision = decideDelivery(
        previous,
        undefined,
        policy,
        Date.parse('2025-01-01T00:00:00.000Z'),
        REDELIVERED,
      );
      // Assess
      expect(decision).toStrictEqual({
        kind: 'busy',
        retryInSeconds: retry,
        until: Date.parse(lastAttemptAt) + 30_000,
      });
    },
  );

  /** The decision for another message under a key whose attempt (of 'digest-1') is in flight. */
  const anotherWhileItRuns = (lastReceive: boolean) =>
    decideDelivery(
      aLedgerItem({ lastAttemptAt: '2024-12-31T23:59:50.000Z', bodyDigest: 'digest-1' }),
      undefined,
      policy,
      Date.parse('2025-01-01T00:00:00.000Z'),
      { messageId: 'another', bodyDigest: 'digest-2', lastReceive },
    );

  it('given another message under the key on its last receive, then it is kept apart, not handed to the backstop', () => {
    // SQS would move this one past its last receive while the other's attempt runs.
    expect(anotherWhileItRuns(true)).toStrictEqual({ kind: 'key-collision' });
  });

  it('given another message under the key while the attempt runs, not on its last receive, then it waits as any delivery would', () => {
    // Kept apart only on its last receive; before that it comes back after the attempt.
    expect(anotherWhileItRuns(false)).toStrictEqual({
      kind: 'busy',
      retryInSeconds: 20,
      until: Date.parse('2025-01-01T00:00:20.000Z'),
    });
  });

  it('given another message under the key on its last receive and no attempt in flight, then it starts its own attempt', () => {
    // Prepare: the key's last attempt failed and ended; nothing runs, nothing is settled.
    const previous = aLedgerItem({ state: 'ready', envId: undefined, bodyDigest: 'digest-1' });
    const delivered = { messageId: 'another', bodyDigest: 'digest-2', lastReceive: true };

    // Act
    const decision = decideDelivery(previous, undefined, policy, AN_HOUR_LATER, delivered);

    // Assess: only a settlement or a wait on the last receive is kept apart.
    expect(decision.kind).not.toBe('key-collision');
    expect(decision.kind).toBe('proceed');
  });

  it('given the same message again on its last receive while its attempt runs, then it still waits', () => {
    const previous = aLedgerItem({ lastAttemptAt: '2024-12-31T23:59:50.000Z' });
    const decision = decideDelivery(previous, undefined, policy, Date.parse('2025-01-01T00:00:00.000Z'), {
      ...REDELIVERED,
      lastReceive: true,
    });
    expect(decision).toStrictEqual({
      kind: 'busy',
      retryInSeconds: 20,
      until: Date.parse('2025-01-01T00:00:20.000Z'),
    });
  });

  it('given it started exactly one timeout ago, then it counts as crashed', () => {
    const previous = aLedgerItem({ lastAttemptAt: '2024-12-31T23:59:30.000Z' });
    const decision = decideDelivery(
      previous,
      undefined,
      policy,
      Date.parse('2025-01-01T00:00:00.000Z'),
      REDELIVERED,
    );
    expect(decision.kind).toBe('need-crash-context');
  });
});

describe('an attempt with a lease (Kafka, issue 38)', () => {
  // The attempt started 5 s before now, 25 s short of the consumer's 30 s timeout.
  const NOW = Date.parse('2025-01-01T00:00:05.000Z');
  const decideWithLease = (aliveUntil: string) =>
    decideDelivery(aLedgerItem({ aliveUntil }), undefined, policy, NOW, REDELIVERED);

  it('given its lease lapsed before now, then its worker died: the crash is settled without waiting out the timeout', () => {
    expect(decideWithLease('2025-01-01T00:00:04.999Z')).toStrictEqual({
      kind: 'need-crash-context',
      envId: 'env-a',
    });
  });

  it('given its lease ends exactly now, then it has lapsed', () => {
    expect(decideWithLease('2025-01-01T00:00:05.000Z').kind).toBe('need-crash-context');
  });

  it('given its lease still runs, then the delivery waits until it ends, not until the timeout', () => {
    expect(decideWithLease('2025-01-01T00:00:06.500Z')).toStrictEqual({
      kind: 'busy',
      retryInSeconds: 2,
      until: Date.parse('2025-01-01T00:00:06.500Z'),
    });
  });

  it('given a lease renewed past the function timeout, then the timeout still ends it: Lambda killed that worker', () => {
    expect(decideWithLease('2025-01-01T00:01:00.000Z')).toStrictEqual({
      kind: 'busy',
      retryInSeconds: 25,
      until: Date.parse('2025-01-01T00:00:30.000Z'),
    });
  });
});

describe('failure events of crashes (rule 7, issue 37)', () => {
  const crashedAt = { envId: 'env-a', key: 'order-17' };
  const decide = (item: Partial<LedgerItem>, inFlight: number) =>
    decideDelivery(aLedgerItem({ ...crashedAt, ...item }), { inFlight }, policy, AN_HOUR_LATER, REDELIVERED);

  it.each([
    ['a first crash alone is an event of the message', {}, 1, 'msg:order-17'],
    ['a crash shared with others is no event: isolation will tell', {}, 3, undefined],
    ['a crash alone after a crash alone is no event: the message is the cause', { crashes: 1 }, 1, undefined],
    ['a shared crash after one alone is no event either', { crashes: 1 }, 2, undefined],
  ] as const)('%s', (_name, item, inFlight, expected) => {
    const decision = decide(item, inFlight);
    expect(decision.kind).toBe('proceed');
    expect(decision.kind === 'proceed' ? decision.failureEvent : 'not proceed').toBe(expected);
  });

  it.each([
    [1, 'attributable'],
    [3, 'unattributable'],
  ] as const)(
    'given a crash with %i in flight, then it (re)starts the isolation trial',
    (inFlight, crash) => {
      expect(decide({}, inFlight)).toMatchObject({ kind: 'proceed', crash, startIsolation: true });
    },
  );

  it('given a caught error, then the key is the message', () => {
    expect(failureEventForMessage('order-17')).toBe('msg:order-17');
  });
});

describe('deliveries the start write refused for the new reasons', () => {
  const crashed = { lastAttemptAt: '2025-01-01T00:00:00.000Z' };
  it.each<[string, Partial<LedgerItem>, CrashContext | undefined, typeof REDELIVERED, DeliveryDecision]>([
    [
      'a finished key, another message with other bytes: a collision, not a duplicate',
      { state: 'completed', bodyDigest: 'digest-1' },
      undefined,
      { messageId: 'another', bodyDigest: 'digest-2' },
      { kind: 'key-collision' },
    ],
    [
      'a finished key, another message with the same bytes: a duplicate',
      { state: 'quarantined', bodyDigest: 'digest-1' },
      undefined,
      { messageId: 'another', bodyDigest: 'digest-1' },
      { kind: 'duplicate', state: 'quarantined' },
    ],
    [
      'a ready item holding an unrepeatable call: outcome unknown, never a retry',
      { state: 'ready', charged: 0, unrepeatable: { name: 'pay', status: 'done', at: 'x' } },
      undefined,
      REDELIVERED,
      { kind: 'outcome-unknown', failureEvent: 'msg:order-17' },
    ],
    [
      'a crash after a keyless call even though a keyed call came later: outcome unknown',
      {
        ...crashed,
        unrepeatable: { name: 'pay', status: 'done', at: 'x' },
        external: { name: 'notify', status: 'done', at: 'y', idempotencyKey: 'n-1' },
      },
      { inFlight: 1 },
      REDELIVERED,
      { kind: 'outcome-unknown', failureEvent: 'msg:order-17' },
    ],
    [
      'an unrepeatable call and another message under its key: that message is kept apart, not quarantined for it',
      { state: 'ready', bodyDigest: 'digest-1', unrepeatable: { name: 'pay', status: 'done', at: 'x' } },
      undefined,
      { messageId: 'another', bodyDigest: 'digest-2' },
      { kind: 'key-collision' },
    ],
    [
      'a crash at the limit and another message under its key: kept apart; the crashed one comes back itself',
      { ...crashed, charged: 2, bodyDigest: 'digest-1' },
      { inFlight: 1 },
      { messageId: 'another', bodyDigest: 'digest-2' },
      { kind: 'key-collision' },
    ],
    [
      'a crash below the limit and another message under its key: it takes the next attempt (one budget per key)',
      { ...crashed, charged: 0, bodyDigest: 'digest-1' },
      { inFlight: 1 },
      { messageId: 'another', bodyDigest: 'digest-2' },
      {
        kind: 'proceed',
        charge: 1,
        crash: 'attributable',
        startIsolation: true,
        failureEvent: 'msg:order-17',
      },
    ],
    [
      'an attempt whose completion was lost: completed, not a crash',
      { ...crashed, attemptId: 'attempt-1', external: { name: 'pay', status: 'done', at: 'x' } },
      { inFlight: 1, completedAttemptId: 'attempt-1' },
      REDELIVERED,
      { kind: 'lost-completion' },
    ],
    [
      'a lost completion and another message under its key: kept apart, not acknowledged through it',
      { ...crashed, attemptId: 'attempt-1', bodyDigest: 'digest-1' },
      { inFlight: 1, completedAttemptId: 'attempt-1' },
      { messageId: 'another', bodyDigest: 'digest-2' },
      { kind: 'key-collision' },
    ],
    [
      'a lost completion of an older attempt: the crash of this one is still charged',
      { ...crashed, attemptId: 'attempt-2' },
      { inFlight: 1, completedAttemptId: 'attempt-1' },
      REDELIVERED,
      {
        kind: 'proceed',
        charge: 1,
        crash: 'attributable',
        startIsolation: true,
        failureEvent: 'msg:order-17',
      },
    ],
  ])('given %s', (_name, previous, crash, delivered, expected) => {
    expect(decideDelivery(aLedgerItem(previous), crash, policy, AN_HOUR_LATER, delivered)).toStrictEqual(
      expected,
    );
  });
});

describe('an item an operator reset for a replay belongs to that replay (issue 38, seed 796689999)', () => {
  const replayGeneration = { generation: 1, replayOf: 'q1', bodyDigest: 'digest-1' };
  const young = Date.parse(aLedgerItem().lastAttemptAt) + 10_000;
  const REPLAY = { messageId: 'replay-1', bodyDigest: 'digest-1', replayOf: 'q1' };
  it.each<[string, Partial<LedgerItem>, number, Delivered, DeliveryDecision]>([
    [
      'the original message again, before its replay ran: a duplicate, its work ended in the quarantine replayed',
      { ...replayGeneration, state: 'ready' },
      AN_HOUR_LATER,
      REDELIVERED,
      { kind: 'duplicate', state: 'quarantined' },
    ],
    [
      'the same bytes under another id (a Kafka redelivery of the original at its offset): a duplicate',
      { ...replayGeneration, state: 'ready', messageId: 'replay-1' },
      AN_HOUR_LATER,
      { messageId: 'orders-0-0', bodyDigest: 'digest-1' },
      { kind: 'duplicate', state: 'quarantined' },
    ],
    [
      "another message under the key: a collision, never a start in the replay's generation",
      { ...replayGeneration, state: 'ready' },
      AN_HOUR_LATER,
      { messageId: 'another', bodyDigest: 'digest-2' },
      { kind: 'key-collision' },
    ],
    [
      "the original while the replay's attempt crashed: a duplicate, only the replay settles its crash",
      { ...replayGeneration, state: 'in-flight', messageId: 'replay-1' },
      AN_HOUR_LATER,
      REDELIVERED,
      { kind: 'duplicate', state: 'quarantined' },
    ],
    [
      "the original while the replay's attempt runs: a duplicate, nothing to wait for",
      { ...replayGeneration, state: 'in-flight', messageId: 'replay-1' },
      young,
      REDELIVERED,
      { kind: 'duplicate', state: 'quarantined' },
    ],
    [
      'the replay itself, its retry refused for another reason (the limit): decided as any delivery',
      { ...replayGeneration, state: 'ready', envId: undefined, charged: 3 },
      AN_HOUR_LATER,
      REPLAY,
      { kind: 'quarantine', reason: 'crash-limit', charge: 0, crash: 'none' },
    ],
    [
      'the replay itself after its attempt crashed: the crash is settled as any other',
      { ...replayGeneration, state: 'in-flight', messageId: 'replay-1' },
      AN_HOUR_LATER,
      REPLAY,
      { kind: 'need-crash-context', envId: 'env-a' },
    ],
  ])('given %s', (_name, previous, now, delivered, expected) => {
    expect(decideDelivery(aLedgerItem(previous), undefined, policy, now, delivered)).toStrictEqual(expected);
  });

  it.each<[string, boolean, LedgerItem | undefined]>([
    [
      'reset again for a later replay after it started',
      true,
      aLedgerItem({ replayOf: 'q2', replaysStarted: ['q1'] }),
    ],
    ['never started by it', false, aLedgerItem({ replayOf: 'q2', replaysStarted: ['q0'] })],
    ['without replays', false, aLedgerItem()],
    ['absent', false, undefined],
  ])('given a replay of q1 arriving at an item %s, then started already: %s', (_name, started, item) => {
    expect(replayAlreadyStarted(item, 'q1')).toBe(started);
  });
});

describe('a quarantine begun and not finished (rule 3)', () => {
  const intent = { id: 'q-1', reason: 'permanent-error' as const, charge: 1 };
  it.each<[string, Partial<LedgerItem>, typeof REDELIVERED, DeliveryDecision]>([
    [
      'its mark failed and the attempt was settled: finished under its id, not run again',
      { state: 'ready', quarantining: intent },
      REDELIVERED,
      { kind: 'finish-quarantine', quarantine: intent },
    ],
    [
      'the worker died mid-quarantine: finished, the crash not charged',
      { state: 'in-flight', quarantining: intent },
      REDELIVERED,
      { kind: 'finish-quarantine', quarantine: intent },
    ],
    [
      'another message under the key: kept apart; the first comes back and finishes its own',
      { state: 'ready', quarantining: intent, bodyDigest: 'digest-1' },
      { messageId: 'another', bodyDigest: 'digest-2' },
      { kind: 'key-collision' },
    ],
  ])('given %s', (_name, previous, delivered, expected) => {
    expect(decideDelivery(aLedgerItem(previous), undefined, policy, AN_HOUR_LATER, delivered)).toStrictEqual(
      expected,
    );
  });

  it('given the quarantining attempt may still be running, then the delivery waits', () => {
    const young = Date.parse(aLedgerItem().lastAttemptAt) + 10_000;
    expect(
      decideDelivery(aLedgerItem({ quarantining: intent }), undefined, policy, young, REDELIVERED),
    ).toStrictEqual({ kind: 'busy', retryInSeconds: 20, until: Date.parse('2025-01-01T00:00:30.000Z') });
  });
});

describe('the last receive before the backstop', () => {
  const crashed = { lastAttemptAt: '2025-01-01T00:00:00.000Z' };
  const lastReceive = { ...REDELIVERED, lastReceive: true };
  it.each<[string, Partial<LedgerItem>, CrashContext, DeliveryDecision]>([
    [
      'a message that crashed before: quarantined, not run into a crash the backstop would take',
      { ...crashed, charged: 0 },
      { inFlight: 1 },
      {
        kind: 'quarantine',
        reason: 'receive-limit',
        charge: 1,
        crash: 'attributable',
        failureEvent: 'msg:order-17',
      },
    ],
    [
      'an unattributable crash: quarantined uncharged',
      { ...crashed, charged: 0 },
      { inFlight: 3 },
      {
        kind: 'quarantine',
        reason: 'receive-limit',
        charge: 0,
        crash: 'unattributable',
      },
    ],
    [
      'a crash that uses up the limit: the crash limit is the reason',
      { ...crashed, charged: 2 },
      { inFlight: 1 },
      {
        kind: 'quarantine',
        reason: 'crash-limit',
        charge: 1,
        crash: 'attributable',
        failureEvent: 'msg:order-17',
      },
    ],
  ])('given %s', (_name, previous, crash, expected) => {
    expect(decideDelivery(aLedgerItem(previous), crash, policy, AN_HOUR_LATER, lastReceive)).toStrictEqual(
      expected,
    );
  });

  it('given a crash settled uncharged during an outage, then it is still a crash on the last receive', () => {
    const settled = aLedgerItem({ state: 'ready', charged: 1, lastAttemptCrashed: true });
    expect(decideDelivery(settled, undefined, policy, AN_HOUR_LATER, lastReceive)).toStrictEqual({
      kind: 'quarantine',
      reason: 'receive-limit',
      charge: 0,
      crash: 'none',
    });
    expect(decideDelivery(settled, undefined, policy, AN_HOUR_LATER, REDELIVERED)).toStrictEqual({
      kind: 'proceed',
      charge: 0,
      crash: 'none',
      startIsolation: false,
    });
  });

  it('given a message whose last attempt ended without a crash, then it runs (a caught failure is quarantined)', () => {
    expect(
      decideDelivery(
        aLedgerItem({ state: 'ready', charged: 1 }),
        undefined,
        policy,
        AN_HOUR_LATER,
        lastReceive,
      ),
    ).toStrictEqual({ kind: 'proceed', charge: 0, crash: 'none', startIsolation: false });
  });
});

describe('suspectOrder: who of the redelivered records runs first', () => {
  it('given a poison message ahead of a never-started one, then the never-started one runs first', () => {
    // Prepare
    const glances = new Map([
      ['poison', { state: 'in-flight' as const, attempts: 3, charged: 2, crashed: true }],
      ['done', { state: 'completed' as const, attempts: 1, charged: 0, crashed: false }],
      ['retried', { state: 'ready' as const, attempts: 1, charged: 0, crashed: false }],
    ]);

    // Act
    const order = suspectOrder(['poison', 'retried', 'done', 'fresh', 'fresh-2'], (key) => key, glances);

    // Assess
    expect(order).toEqual(['fresh', 'fresh-2', 'done', 'retried', 'poison']);
  });

  it('given a crash nobody was charged for, then the message whose attempts died more often runs last', () => {
    // Prepare: all three were in flight when one environment died (charged to none); the
    // poison then died again, alone, before the healthy two had started again.
    const glances = new Map([
      ['poison', { state: 'in-flight' as const, attempts: 2, charged: 0, crashed: true }],
      ['healthy', { state: 'in-flight' as const, attempts: 1, charged: 0, crashed: true }],
      ['healthy-2', { state: 'in-flight' as const, attempts: 1, charged: 0, crashed: true }],
      ['retried', { state: 'ready' as const, attempts: 1, charged: 0, crashed: false }],
    ]);

    // Act
    const order = suspectOrder(['poison', 'healthy', 'retried', 'healthy-2'], (key) => key, glances);

    // Assess: a retried attempt ended; the in-flight ones died; equal ranks keep SQS's order.
    expect(order).toEqual(['retried', 'healthy', 'healthy-2', 'poison']);
  });

  it('given equal attempts, then charged attempts order them', () => {
    const glances = new Map([
      ['charged', { state: 'ready' as const, attempts: 2, charged: 2, crashed: false }],
      ['uncharged', { state: 'ready' as const, attempts: 2, charged: 0, crashed: false }],
    ]);
    expect(suspectOrder(['charged', 'uncharged'], (key) => key, glances)).toEqual(['uncharged', 'charged']);
  });
});

describe('planSuspects: crash suspects that shared a batch come back apart (issue 37)', () => {
  const policy = { attemptTimeoutSeconds: 6, batchingWindowSeconds: 0 };
  const byKey = { keyOf: (key: string) => key, receivesOf: () => 2 };

  it('given records that did not crash, then the most often received runs first: the time guard cannot keep one last', () => {
    const receives: Record<string, number> = { 'cut-once': 2, 'cut-thrice': 4, 'cut-twice': 3 };
    const plan = planSuspects(
      ['cut-once', 'cut-thrice', 'cut-twice'],
      { keyOf: (key) => key, receivesOf: (key) => receives[key] },
      new Map(),
      policy,
    );
    expect(plan.pool).toStrictEqual(['cut-thrice', 'cut-twice', 'cut-once']);
  });

  it('given two poison messages and a healthy one that crashed together, then the retried one runs with the fresh ones, the crash suspects alone, the healthy one first, and the two behind it are staggered', () => {
    // Prepare
    const glances = new Map([
      ['poison', { state: 'in-flight' as const, attempts: 2, charged: 0, crashed: true }],
      ['poison-2', { state: 'in-flight' as const, attempts: 2, charged: 0, crashed: true }],
      ['healthy', { state: 'in-flight' as const, attempts: 1, charged: 0, crashed: true }],
      ['retried', { state: 'ready' as const, attempts: 1, charged: 0, crashed: false }],
    ]);

    // Act
    const plan = planSuspects(['poison', 'poison-2', 'healthy', 'retried'], byKey, glances, policy);

    // Assess: the 36 s a crash would keep them (six timeouts), then odd multiples of half a timeout.
    expect(plan).toStrictEqual({
      pool: ['retried'],
      alone: ['healthy', 'poison', 'poison-2'],
      stagger: [
        { record: 'poison', seconds: 36 + 3 },
        { record: 'poison-2', seconds: 36 + 9 },
      ],
    });
  });

  it('given no crash suspect, then all run with the fresh ones and nothing is staggered', () => {
    const glances = new Map([
      ['retried', { state: 'ready' as const, attempts: 1, charged: 0, crashed: false }],
    ]);
    expect(planSuspects(['retried', 'unstarted'], byKey, glances, policy)).toStrictEqual({
      pool: ['unstarted', 'retried'],
      alone: [],
      stagger: [],
    });
  });

  it('given a crash an outage settled uncharged, then it is a crash suspect too', () => {
    const glances = new Map([
      ['settled', { state: 'ready' as const, attempts: 1, charged: 0, crashed: true }],
      ['other', { state: 'ready' as const, attempts: 1, charged: 0, crashed: true }],
    ]);
    expect(planSuspects(['settled', 'other'], byKey, glances, policy).stagger).toStrictEqual([
      { record: 'other', seconds: 36 + 3 },
    ]);
  });

  it('given a batching window longer than the timeout, then the gap is one second more than the window', () => {
    expect(staggerSeconds(1, { attemptTimeoutSeconds: 6, batchingWindowSeconds: 20 })).toBe(36 + 11);
    expect(staggerSeconds(2, { attemptTimeoutSeconds: 6, batchingWindowSeconds: 20 })).toBe(36 + 32);
    expect(staggerSeconds(3, { attemptTimeoutSeconds: 6, batchingWindowSeconds: 0 })).toBe(36 + 15);
  });
});
