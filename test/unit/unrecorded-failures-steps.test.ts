/**
 * consumer/unrecorded-failures.ts: the failure events an execution environment saw but could not
 * write (rule 7) stay its evidence of an outage while they are in the window, from the window's
 * first millisecond on, and are forgotten once they leave it. Mutation testing found the window's
 * edge unpinned (issue 19).
 */
import { describe, expect, it } from 'vitest';
import { UnrecordedFailures } from '../../lambdas/consumer/unrecorded-failures';

describe('failure events that could not be recorded', () => {
  it('given events before, at and after the start of the window, then those at or after it, oldest first', () => {
    // Prepare
    const unrecorded = new UnrecordedFailures();
    unrecorded.remember({ key: 'msg:a', at: 1_000 });
    unrecorded.remember({ key: 'msg:b', at: 2_000 });
    unrecorded.remember({ key: 'msg:c', at: 3_000 });

    // Act
    const inWindow = unrecorded.since(2_000);

    // Assess
    expect(inWindow).toStrictEqual([
      { key: 'msg:b', at: 2_000 },
      { key: 'msg:c', at: 3_000 },
    ]);
  });

  it('given an event that left the window, then it is forgotten: an earlier window no longer finds it', () => {
    // Prepare
    const unrecorded = new UnrecordedFailures();
    unrecorded.remember({ key: 'msg:a', at: 1_000 });
    unrecorded.remember({ key: 'msg:b', at: 2_000 });
    unrecorded.since(1_500);

    // Act
    const later = unrecorded.since(0);

    // Assess
    expect(later).toStrictEqual([{ key: 'msg:b', at: 2_000 }]);
  });
});
