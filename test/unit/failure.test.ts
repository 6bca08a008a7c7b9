import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffSeconds, decideFailure, type FailureDecision } from '../../lambdas/core/failure';
import type { ErrorClass, FailureCounters } from '../../lambdas/core/types';
import { aPolicy } from './fixtures';

const policy = aPolicy({ attemptLimit: 3, transientRetries: 3, backoffBaseSeconds: 2 });
const fresh: FailureCounters = { charged: 0, transientFailures: 0, unknownFailures: 0 };

describe('decideFailure', () => {
  it.each<[string, FailureCounters, ErrorClass, FailureDecision]>([
    [
      'a permanent error quarantines at once, charged',
      fresh,
      'permanent',
      {
        kind: 'quarantine',
        reason: 'permanent-error',
        charge: 1,
        counters: { charged: 1, transientFailures: 0, unknownFailures: 0 },
        failureEvent: false,
      },
    ],
    [
      'an unknown outcome goes to a person, and is an outage signal',
      fresh,
      'outcome-unknown',
      { kind: 'outcome-unknown', failureEvent: true },
    ],
    [
      'a first unknown error retries once, charged',
      fresh,
      'unknown',
      {
        kind: 'retry',
        delaySeconds: 1,
        charge: 1,
        counters: { charged: 1, transientFailures: 0, unknownFailures: 1 },
        failureEvent: false,
      },
    ],
    [
      'a second unknown error quarantines',
      { charged: 1, transientFailures: 0, unknownFailures: 1 },
      'unknown',
      {
        kind: 'quarantine',
        reason: 'unknown-error-repeated',
        charge: 1,
        counters: { charged: 2, transientFailures: 0, unknownFailures: 2 },
        failureEvent: false,
      },
    ],
    [
      'a first unknown error after two charged crashes reaches the limit',
      { charged: 2, transientFailures: 0, unknownFailures: 0 },
      'unknown',
      {
        kind: 'quarantine',
        reason: 'crash-limit',
        charge: 1,
        counters: { charged: 3, transientFailures: 0, unknownFailures: 1 },
        failureEvent: false,
      },
    ],
    [
      'a first transient error retries, uncharged, as a failure event',
      fresh,
      'transient',
      {
        kind: 'retry',
        delaySeconds: 1,
        charge: 0,
        counters: { charged: 0, transientFailures: 1, unknownFailures: 0 },
        failureEvent: true,
      },
    ],
    [
      'the last allowed transient retry backs off further',
      { charged: 2, transientFailures: 2, unknownFailures: 1 },
      'transient',
      {
        kind: 'retry',
        delaySeconds: 4,
        charge: 0,
        counters: { charged: 2, transientFailures: 3, unknownFailures: 1 },
        failureEvent: true,
      },
    ],
    [
      'a transient error past the retries quarantines',
      { charged: 0, transientFailures: 3, unknownFailures: 0 },
      'transient',
      {
        kind: 'quarantine',
        reason: 'transient-retries-exhausted',
        charge: 0,
        counters: { charged: 0, transientFailures: 4, unknownFailures: 0 },
        failureEvent: true,
      },
    ],
  ])('given %s', (_name, counters, errorClass, expected) => {
    // Act
    const decision = decideFailure(counters, errorClass, policy, 0.5);

    // Assess
    expect(decision).toStrictEqual(expected);
  });

  it('given no transient retries are configured, then the first transient error quarantines', () => {
    const decision = decideFailure(fresh, 'transient', aPolicy({ transientRetries: 0 }), 0.5);

    expect(decision).toMatchObject({ kind: 'quarantine', reason: 'transient-retries-exhausted' });
  });

  it('never charges a transient error, whatever the counters', () => {
    fc.assert(
      fc.property(
        fc.record({
          charged: fc.nat(5),
          transientFailures: fc.nat(10),
          unknownFailures: fc.nat(3),
        }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (counters, random) => {
          const decision = decideFailure(counters, 'transient', policy, random);
          expect(decision).toMatchObject({ charge: 0, counters: { charged: counters.charged } });
        },
      ),
    );
  });
});

describe('backoffSeconds (full jitter)', () => {
  it.each([
    ['no jitter draw gives no delay', 0, 0, 0],
    ['the top draw gives the base on the first retry', 0, 0.9999, 2],
    ['the middle draw on the fourth retry', 3, 0.5, 8],
    ['the top draw on the fourth retry', 3, 0.9999, 16],
    ['a huge retry is capped by SQS', 40, 0.99999999, 43_200],
    ['a retry count past floating point range is still capped', 2000, 0.99999999, 43_200],
    ['NaN is treated as no delay', 3, Number.NaN, 0],
    ['a draw of 1 stays within the ceiling', 3, 1, 16],
    ['a negative draw gives no delay', 3, -0.5, 0],
  ])('%s', (_name, retry, random, expected) => {
    expect(backoffSeconds(retry, policy, random)).toBe(expected);
  });

  it('is a whole number of seconds between 0 and min(cap, base * 2^retry)', () => {
    fc.assert(
      fc.property(
        fc.nat(60),
        fc.integer({ min: 1, max: 100 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (retry, base, random) => {
          const custom = aPolicy({ backoffBaseSeconds: base });
          const delay = backoffSeconds(retry, custom, random);
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(Math.min(custom.maxBackoffSeconds, base * 2 ** retry));
        },
      ),
    );
  });
});
