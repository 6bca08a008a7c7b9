import { describe, expect, it } from 'vitest';
import { ShareWindow } from '../../lambdas/consumer/share-window';
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

describe("an environment's share window after its share stop (issue 37)", () => {
  const closed = (epoch: number) => ({ state: 'closed', epoch, cooldownSeconds: 60, stop: false }) as const;
  const open = (epoch: number) =>
    ({
      state: 'open',
      epoch,
      reason: 'quarantine-share',
      openedAt: 0,
      cooldownSeconds: 60,
      stop: true,
    }) as const;
  const stoppedWindow = () => {
    const shares = new ShareWindow(policy);
    for (const outcome of windowOf(8, 2)) shares.record(outcome);
    shares.stoppedIn(4);
    return shares;
  };

  it('given a person resumed the stop, then the window starts over: the same messages do not stop it again', () => {
    const shares = stoppedWindow();
    shares.sawBreaker(closed(4));
    expect(shouldStopQuarantine(shares.peek('quarantined'), policy)).toBe(false);
  });

  it.each([
    ['still stopped', open(4)],
    ['closed as it was before the stop (a stale read)', closed(3)],
  ])('given the breaker %s, then the window is kept and the next quarantine stops again', (_, breaker) => {
    const shares = stoppedWindow();
    shares.sawBreaker(breaker);
    expect(shouldStopQuarantine(shares.peek('quarantined'), policy)).toBe(true);
  });
});
