import { describe, expect, it } from 'vitest';
import { isPoisonSuspect, type PauseReason, pauseWaitsForOperator } from '../../lambdas/core/breaker';
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
