import { describe, expect, it } from 'vitest';
import type { PauseReason } from '../../contract/control';
import {
  type BreakerRecord,
  holdingBreaker,
  isPoisonSuspect,
  pauseWaitsForOperator,
  restartPauseTimings,
  returnAfterPauseSeconds,
} from '../../lambdas/core/breaker';
import type { ErrorClass, FailureCounters } from '../../lambdas/core/types';

describe('pauseWaitsForOperator (rules 7 and 11)', () => {
  it.each<[PauseReason, boolean]>([
    ['outage', false],
    ['quarantine-unwritable', true],
    ['quarantine-capacity', true],
    ['quarantine-share', true],
  ])('given a pause for %s, then waiting for an operator is %s', (reason, expected) => {
    expect(pauseWaitsForOperator(reason)).toBe(expected);
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

describe('holdingBreaker', () => {
  const open = {
    state: 'open',
    reason: 'outage',
    epoch: 1,
    openedAt: 0,
    cooldownSeconds: 60,
    stop: false,
  } as const;
  const halfOpen = {
    ...open,
    state: 'half-open',
    probeSuccesses: 0,
    probeFailures: 0,
    probeRepeatFailures: 0,
  } as const;

  it.each<[string, BreakerRecord | undefined, boolean]>([
    ['no breaker', undefined, false],
    ['closed', { state: 'closed', epoch: 1, cooldownSeconds: 60, stop: false }, false],
    ['open', open, true],
    ['half-open, probing', halfOpen, false],
    // One failed probe may be the message's own: a second message still probes the window.
    ['half-open, one probe failed', { ...halfOpen, probeFailures: 1 }, false],
    ['half-open, two probes failed', { ...halfOpen, probeFailures: 2 }, true],
    ['half-open, two failed and one succeeded', { ...halfOpen, probeFailures: 2, probeSuccesses: 1 }, false],
    // A message that failed a probe before may fail by itself: its failure decides nothing.
    [
      'half-open, two failed, both repeated',
      { ...halfOpen, probeFailures: 2, probeRepeatFailures: 2 },
      false,
    ],
    [
      'half-open, three failed, one repeated',
      { ...halfOpen, probeFailures: 3, probeRepeatFailures: 1 },
      true,
    ],
  ])('given %s, then holding batches is %s', (_, breaker, holds) => {
    expect(holdingBreaker(breaker) !== undefined).toBe(holds);
  });
});

describe('returnAfterPauseSeconds', () => {
  const openedAt = Date.parse('2026-12-01T00:00:00Z');
  const breaker = {
    state: 'open',
    reason: 'outage',
    epoch: 1,
    openedAt,
    cooldownSeconds: 120,
    stop: false,
  } as const;
  const timings = { probeSeconds: 30, maxCooldownSeconds: 200 };

  it.each<[string, number, number]>([
    ['given the cool-down just started, then until its end', 0, 120],
    ['given 80.5 s of it passed, then until its end, rounded up', 80_500, 40],
    ['given 110 s passed, then a whole probe window (never less)', 110_000, 30],
    // Past the cool-down the run that should move the breaker is late or gone: handing back
    // at once would burn a receive per poll and drive the message to the backstop.
    ['given the cool-down is over and the breaker still open, then a probe window', 500_000, 30],
  ])('%s', (_, elapsedMs, expected) => {
    expect(returnAfterPauseSeconds(breaker, openedAt + elapsedMs, timings)).toBe(expected);
  });

  it('given a half-open window whose probe failed, then the next window: the doubled cool-down (capped) and a window', () => {
    const failed = {
      ...breaker,
      state: 'half-open',
      probeSuccesses: 0,
      probeFailures: 2,
      probeRepeatFailures: 0,
    } as const;
    expect(returnAfterPauseSeconds({ ...failed, cooldownSeconds: 60 }, openedAt, timings)).toBe(150);
    expect(returnAfterPauseSeconds(failed, openedAt, timings)).toBe(230);
  });

  it('given a stop, then the records keep their visibility timeout', () => {
    expect(returnAfterPauseSeconds({ ...breaker, stop: true }, openedAt, timings)).toBeUndefined();
  });
});

describe("restartPauseTimings: a pause run started again keeps the episode's timeline", () => {
  const openedAt = Date.parse('2026-12-01T00:00:00Z');
  const timings = { probeSeconds: 30, maxCooldownSeconds: 200 };
  const open = {
    state: 'open',
    reason: 'outage',
    epoch: 3,
    openedAt,
    cooldownSeconds: 60,
    stop: false,
  } as const;
  const holding = {
    ...open,
    state: 'half-open',
    probeSuccesses: 0,
    probeFailures: 2,
    probeRepeatFailures: 0,
  } as const;

  it.each<[string, BreakerRecord & { state: 'open' | 'half-open' }, number, number]>([
    ['open, 20 s into its cool-down: the 40 s left of it', open, 20_000, 40],
    // The batch hands its records back for a window (30 s): the window must still be open then.
    ['open, past its cool-down: half a window, so the records come back mid-window', open, 90_000, 15],
    // The dead run's window was [60 s, 90 s]; it would have reopened for 120 s: the next opens at 210 s.
    ['half-open and holding, at the start of its window: until the window after it', holding, 60_000, 150],
    // Its records come back at 240 s (the doubled cool-down and a window): the window opens 15 s before.
    ['half-open and holding, at its end: half a window before its records come back', holding, 90_000, 135],
    [
      'half-open with a cool-down near the cap: the capped one and a window',
      { ...holding, cooldownSeconds: 150 },
      150_000,
      230,
    ],
  ])('given %s', (_, breaker, elapsedMs, expected) => {
    expect(restartPauseTimings(breaker, openedAt + elapsedMs, timings).cooldownSeconds).toBe(expected);
  });

  // Every restart the consumer sends must be one the pause state machine runs (CheckPauseInput:
  // cooldownSeconds >= 1, maxCooldownSeconds >= cooldownSeconds), and its window must be open
  // when the records this batch hands back come back, with half a window left: a window that
  // ends as they come back restores consumption in silence while the dependency is still down.
  it('given any breaker a batch finds, then the restart is accepted and its window holds the returned records', () => {
    const checked: string[] = [];
    for (const probeSeconds of [1, 2, 30, 45]) {
      for (const cooldownSeconds of [1, 10, 60, 150, 200]) {
        const limits = { probeSeconds, maxCooldownSeconds: 200 };
        for (const breaker of [
          { ...open, cooldownSeconds },
          { ...holding, cooldownSeconds },
        ] as const) {
          const cooled = openedAt + cooldownSeconds * 1000;
          const from = breaker.state === 'half-open' ? cooled : openedAt;
          for (let elapsed = 0; elapsed <= 2 * (cooldownSeconds + probeSeconds) * 1000; elapsed += 500) {
            const now = from + elapsed;
            const restart = restartPauseTimings(breaker, now, limits);
            const back = returnAfterPauseSeconds(breaker, now, limits) ?? 0;
            const place = `${breaker.state} cool-down ${cooldownSeconds} probe ${probeSeconds} at +${elapsed} ms`;
            expect(restart.cooldownSeconds, place).toBeGreaterThanOrEqual(1);
            expect(restart.maxCooldownSeconds, place).toBeGreaterThanOrEqual(restart.cooldownSeconds);
            expect(restart.maxCooldownSeconds, place).toBeGreaterThanOrEqual(limits.maxCooldownSeconds);
            expect(back, place).toBeGreaterThanOrEqual(restart.cooldownSeconds);
            expect(restart.cooldownSeconds + probeSeconds - back, place).toBeGreaterThanOrEqual(
              Math.ceil(probeSeconds / 2),
            );
            checked.push(place);
          }
        }
      }
    }
    expect(checked.length).toBeGreaterThan(1000);
  });
});
