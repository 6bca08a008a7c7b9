import { describe, expect, it } from 'vitest';
import type { BreakerReading } from '../../lambdas/core/breaker';
import { decideBreakerReset } from '../../lambdas/core/breaker-reset';
import { decideBreakerAction } from '../../lambdas/core/operator';

const NOW = new Date('2030-05-06T07:08:09.000Z');
const context = { now: NOW, cooldownSeconds: 60 };
const UNREADABLE: BreakerReading = { state: 'unreadable', problem: 'breaker: unknown state "x"', epoch: 4 };

describe('decideBreakerReset (issue 8, defect 5)', () => {
  it.each<[string, BreakerReading, string]>([
    ['a closed breaker', { state: 'closed', epoch: 2, cooldownSeconds: 60, stop: false }, 'can be read'],
    [
      'an open stop',
      {
        state: 'open',
        reason: 'quarantine-unwritable',
        epoch: 2,
        openedAt: 0,
        cooldownSeconds: 60,
        stop: true,
      },
      'pq resume',
    ],
  ])('given %s, then it refuses: only an unreadable item is reset', (_name, reading, refusal) => {
    expect(decideBreakerReset(reading, context)).toMatchObject({
      kind: 'refuse',
      reason: expect.stringContaining(refusal),
    });
  });

  it('given an unreadable item with a readable epoch, then a stop of the next epoch that waits for an operator', () => {
    expect(decideBreakerReset(UNREADABLE, context)).toStrictEqual({
      kind: 'reset',
      problem: 'breaker: unknown state "x"',
      breaker: {
        state: 'open',
        reason: 'breaker-reset',
        epoch: 5,
        openedAt: NOW.getTime(),
        cooldownSeconds: 60,
        stop: true,
      },
    });
  });

  it('given an unreadable epoch, then an epoch above any count of trips: the seconds since 1970', () => {
    const decision = decideBreakerReset({ state: 'unreadable', problem: 'epoch' }, context);

    expect(decision).toMatchObject({ kind: 'reset', breaker: { epoch: NOW.getTime() / 1000 } });
  });
});

describe('resume and hold of an unreadable breaker', () => {
  it.each(['resume', 'hold'] as const)(
    'given an unreadable item, then %s refuses, naming the problem and the reset',
    (action) => {
      expect(decideBreakerAction(UNREADABLE, action)).toStrictEqual({
        kind: 'refuse',
        reason: expect.stringMatching(/unknown state "x".*pq reset-breaker --reason/),
      });
    },
  );
});
