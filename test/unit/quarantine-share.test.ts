import { describe, expect, it } from 'vitest';
import {
  EMPTY_WINDOW,
  type MessageOutcome,
  type OutcomeWindow,
  quarantineShare,
  record,
  shouldStopQuarantine,
} from '../../lambdas/core/quarantine-share';
import { aPolicy } from './fixtures';

const policy = aPolicy({
  quarantineShareThreshold: 0.2,
  quarantineShareWindow: 50,
  quarantineShareMinimum: 10,
});

const windowOf = (completed: number, quarantined: number): OutcomeWindow => [
  ...Array<MessageOutcome>(completed).fill('completed'),
  ...Array<MessageOutcome>(quarantined).fill('quarantined'),
];

describe('quarantine share (rule 11b)', () => {
  it('given a full window, when an outcome is recorded, then the oldest falls out', () => {
    // Prepare
    const full = windowOf(0, 50);

    // Act
    const next = record(full, 'completed', policy);

    // Assess
    expect(next).toStrictEqual([...windowOf(0, 49), 'completed']);
  });

  it('given a window, when an outcome is recorded, then the original is untouched', () => {
    const window = windowOf(1, 0);

    record(window, 'quarantined', policy);

    expect(window).toStrictEqual(['completed']);
  });

  it.each([
    ['an empty window', EMPTY_WINDOW, 0],
    ['one in four', windowOf(3, 1), 0.25],
  ])('quarantineShare: %s', (_name, window, expected) => {
    expect(quarantineShare(window)).toBe(expected);
  });

  it.each([
    ['no outcomes yet', windowOf(0, 0), false],
    ['all quarantined but below the minimum of 10', windowOf(0, 9), false],
    ['3 of 10 at the minimum', windowOf(7, 3), true],
    ['exactly 20% of 50 (not more than the share)', windowOf(40, 10), false],
    ['11 of 50', windowOf(39, 11), true],
    ['2 of 10', windowOf(8, 2), false],
  ])('shouldStopQuarantine: given %s, then %s', (_name, window, expected) => {
    expect(shouldStopQuarantine(window, policy)).toBe(expected);
  });

  it('given a burst of quarantines after healthy traffic, then it stops once the share passes 20%', () => {
    // Prepare
    let window = windowOf(50, 0);
    let stoppedAfter = 0;

    // Act
    while (!shouldStopQuarantine(window, policy)) {
      window = record(window, 'quarantined', policy);
      stoppedAfter += 1;
    }

    // Assess
    expect(stoppedAfter).toBe(11);
  });
});
