import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BreakerRecord,
  type BreakerTransition,
  closedBreaker,
  halfOpen,
  isPoisonSuspect,
  operatorHold,
  operatorResume,
  type PauseReason,
  probeDueAt,
  probeFailed,
  probeSucceeded,
  trip,
} from '../../lambdas/core/breaker';
import type { ErrorClass, FailureCounters } from '../../lambdas/core/types';
import { aPolicy } from './fixtures';

const policy = aPolicy({ breakerCooldownSeconds: 60, breakerMaxCooldownSeconds: 300 });
const t0 = 1_700_000_000_000;
const closed = closedBreaker(policy, 4);
const open: BreakerRecord = {
  state: 'open',
  reason: 'outage',
  epoch: 5,
  openedAt: t0,
  cooldownSeconds: 60,
  stop: false,
};
const stopped: BreakerRecord = { ...open, reason: 'quarantine-unwritable', stop: true };
const halfOpened: BreakerRecord = { ...open, state: 'half-open', stop: false };

const changed = (breaker: BreakerRecord): BreakerTransition => ({ ok: true, changed: true, breaker });
const unchanged = (breaker: BreakerRecord): BreakerTransition => ({ ok: true, changed: false, breaker });

describe('breaker transitions', () => {
  it('starts closed with the base cool-down', () => {
    expect(closedBreaker(policy)).toStrictEqual({
      state: 'closed',
      epoch: 0,
      cooldownSeconds: 60,
      stop: false,
    });
  });

  it.each<[string, BreakerRecord, PauseReason, BreakerTransition]>([
    [
      'closed, outage: a new episode',
      closed,
      'outage',
      changed({ state: 'open', reason: 'outage', epoch: 5, openedAt: t0, cooldownSeconds: 60, stop: false }),
    ],
    [
      'closed, quarantine share (rule 11b pauses as rule 7)',
      closed,
      'quarantine-share',
      changed({
        state: 'open',
        reason: 'quarantine-share',
        epoch: 5,
        openedAt: t0,
        cooldownSeconds: 60,
        stop: false,
      }),
    ],
    [
      'closed, quarantine unwritable (rule 11a stops)',
      closed,
      'quarantine-unwritable',
      changed({
        state: 'open',
        reason: 'quarantine-unwritable',
        epoch: 5,
        openedAt: t0,
        cooldownSeconds: 60,
        stop: true,
      }),
    ],
    ['open, outage again: no-op', open, 'outage', unchanged(open)],
    [
      'open, quarantine full: escalates to a stop episode',
      open,
      'quarantine-capacity',
      changed({
        state: 'open',
        reason: 'quarantine-capacity',
        epoch: 6,
        openedAt: t0 + 1,
        cooldownSeconds: 60,
        stop: true,
      }),
    ],
    ['stopped, another stop: no-op', stopped, 'quarantine-capacity', unchanged(stopped)],
    ['half-open, outage: the probe decides', halfOpened, 'outage', unchanged(halfOpened)],
    [
      'half-open, quarantine unwritable: stops',
      halfOpened,
      'quarantine-unwritable',
      changed({
        state: 'open',
        reason: 'quarantine-unwritable',
        epoch: 6,
        openedAt: t0 + 1,
        cooldownSeconds: 60,
        stop: true,
      }),
    ],
  ])('trip: given %s', (_name, breaker, reason, expected) => {
    const now = breaker.state === 'closed' ? t0 : t0 + 1;

    expect(trip(breaker, reason, now)).toStrictEqual(expected);
  });

  it.each<[string, BreakerRecord, number, BreakerTransition]>([
    ['closed', closed, t0, { ok: false, reason: 'only an open breaker can half-open (it is closed)' }],
    [
      'half-open',
      halfOpened,
      t0,
      { ok: false, reason: 'only an open breaker can half-open (it is half-open)' },
    ],
    [
      'stopped',
      stopped,
      t0 + 3_600_000,
      { ok: false, reason: 'a stop condition holds: only an operator resumes' },
    ],
    [
      'open, cooling down',
      open,
      t0 + 59_999,
      { ok: false, reason: `the cool-down runs until ${t0 + 60_000}` },
    ],
    ['open, cool-down over', open, t0 + 60_000, changed(halfOpened)],
  ])('halfOpen: given %s', (_name, breaker, now, expected) => {
    expect(halfOpen(breaker, now)).toStrictEqual(expected);
  });

  it.each<[string, BreakerRecord, BreakerTransition]>([
    [
      'half-open: closes, cool-down reset',
      { ...halfOpened, cooldownSeconds: 240 },
      changed(closedBreaker(policy, 5)),
    ],
    ['open: refused', open, { ok: false, reason: 'no probe is running (the breaker is open)' }],
  ])('probeSucceeded: given %s', (_name, breaker, expected) => {
    expect(probeSucceeded(breaker, policy)).toStrictEqual(expected);
  });

  it.each<[string, BreakerRecord, boolean, BreakerTransition]>([
    ['a suspect message: stays half-open', halfOpened, true, unchanged(halfOpened)],
    [
      'a healthy message: reopens, cool-down doubled',
      halfOpened,
      false,
      changed({ ...open, openedAt: t0 + 90_000, cooldownSeconds: 120 }),
    ],
    [
      'a healthy message at the cap: cool-down stays capped',
      { ...halfOpened, cooldownSeconds: 200 },
      false,
      changed({ ...open, openedAt: t0 + 90_000, cooldownSeconds: 300 }),
    ],
    ['closed: refused', closed, false, { ok: false, reason: 'no probe is running (the breaker is closed)' }],
  ])('probeFailed: given %s', (_name, breaker, suspect, expected) => {
    expect(probeFailed(breaker, { suspect, now: t0 + 90_000 }, policy)).toStrictEqual(expected);
  });

  it.each<[string, BreakerRecord, BreakerTransition]>([
    ['stopped', stopped, changed(closedBreaker(policy, 5))],
    ['half-open', halfOpened, changed(closedBreaker(policy, 5))],
    ['closed', closed, unchanged(closed)],
  ])('operatorResume: given %s', (_name, breaker, expected) => {
    expect(operatorResume(breaker, policy)).toStrictEqual(expected);
  });

  it.each<[string, BreakerRecord, BreakerTransition]>([
    [
      'closed',
      closed,
      changed({
        state: 'open',
        reason: 'deploying a fix',
        epoch: 5,
        openedAt: t0,
        cooldownSeconds: 60,
        stop: true,
      }),
    ],
    [
      'open after an outage',
      open,
      changed({
        state: 'open',
        reason: 'deploying a fix',
        epoch: 6,
        openedAt: t0,
        cooldownSeconds: 60,
        stop: true,
      }),
    ],
    ['already stopped', stopped, unchanged(stopped)],
  ])('operatorHold: given %s', (_name, breaker, expected) => {
    expect(operatorHold(breaker, 'deploying a fix', t0)).toStrictEqual(expected);
  });

  it.each<[string, BreakerRecord, number | undefined]>([
    ['open', open, t0 + 60_000],
    ['stopped', stopped, undefined],
    ['closed', closed, undefined],
    ['half-open', halfOpened, undefined],
  ])('probeDueAt: given %s', (_name, breaker, expected) => {
    expect(probeDueAt(breaker)).toBe(expected);
  });
});

describe('isPoisonSuspect', () => {
  const fresh: FailureCounters = { charged: 0, transientFailures: 0, unknownFailures: 0 };

  it.each<[string, FailureCounters, ErrorClass | 'crash', boolean]>([
    ['a fresh message failing transiently', fresh, 'transient', false],
    [
      'a message with many transient failures (an outage gives them to all)',
      { ...fresh, transientFailures: 3 },
      'transient',
      false,
    ],
    ['a fresh message crashing', fresh, 'crash', false],
    ['a message with a charged attempt crashing', { ...fresh, charged: 1 }, 'crash', true],
    [
      'a message with an unknown error failing transiently',
      { ...fresh, unknownFailures: 1 },
      'transient',
      true,
    ],
    ['a permanent error', fresh, 'permanent', true],
    ['an unknown error', fresh, 'unknown', true],
    ['an unknown outcome', fresh, 'outcome-unknown', true],
  ])('given %s, then suspect is %s', (_name, counters, failure, expected) => {
    expect(isPoisonSuspect(counters, failure)).toBe(expected);
  });
});

describe('breaker invariants', () => {
  type Step =
    | { op: 'trip'; reason: PauseReason }
    | { op: 'halfOpen' }
    | { op: 'probeSucceeded' }
    | { op: 'probeFailed'; suspect: boolean }
    | { op: 'resume' }
    | { op: 'hold' };

  const step: fc.Arbitrary<Step> = fc.oneof(
    fc
      .constantFrom<PauseReason>('outage', 'quarantine-share', 'quarantine-unwritable', 'quarantine-capacity')
      .map((reason) => ({ op: 'trip' as const, reason })),
    fc.constant({ op: 'halfOpen' as const }),
    fc.constant({ op: 'probeSucceeded' as const }),
    fc.boolean().map((suspect) => ({ op: 'probeFailed' as const, suspect })),
    fc.constant({ op: 'resume' as const }),
    fc.constant({ op: 'hold' as const }),
  );

  const apply = (breaker: BreakerRecord, s: Step, now: number): BreakerTransition => {
    switch (s.op) {
      case 'trip':
        return trip(breaker, s.reason, now);
      case 'halfOpen':
        return halfOpen(breaker, now);
      case 'probeSucceeded':
        return probeSucceeded(breaker, policy);
      case 'probeFailed':
        return probeFailed(breaker, { suspect: s.suspect, now }, policy);
      case 'resume':
        return operatorResume(breaker, policy);
      case 'hold':
        return operatorHold(breaker, 'operator', now);
    }
  };

  it('keeps epochs monotonic, cool-downs bounded, and stops closed to everything but an operator', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(step, fc.nat(600_000)), { maxLength: 40 }), (steps) => {
        let breaker: BreakerRecord = closedBreaker(policy);
        let now = t0;
        for (const [s, elapsed] of steps) {
          now += elapsed;
          const result = apply(breaker, s, now);
          if (!result.ok) continue;
          const next = result.breaker;
          expect(next.epoch).toBeGreaterThanOrEqual(breaker.epoch);
          expect(next.cooldownSeconds).toBeGreaterThanOrEqual(policy.breakerCooldownSeconds);
          expect(next.cooldownSeconds).toBeLessThanOrEqual(policy.breakerMaxCooldownSeconds);
          if (breaker.stop && result.changed) {
            expect(['resume', 'trip', 'hold']).toContain(s.op);
            expect(s.op === 'resume' || next.stop).toBe(true);
          }
          breaker = next;
        }
      }),
    );
  });

  it('given a poison message probing again and again, then the breaker never reopens on it', () => {
    let breaker = halfOpened as BreakerRecord;
    for (let probe = 0; probe < 10; probe += 1) {
      const result = probeFailed(breaker, { suspect: true, now: t0 + probe }, policy);
      expect(result).toMatchObject({ ok: true, changed: false });
      breaker = result.ok ? result.breaker : breaker;
    }

    expect(probeSucceeded(breaker, policy)).toStrictEqual(changed(closedBreaker(policy, 5)));
  });
});
