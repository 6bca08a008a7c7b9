import { describe, expect, it } from 'vitest';
import {
  type ActiveTrial,
  afterCompletedMessage,
  afterCrash,
  effectiveConcurrency,
  type IsolationTrial,
  NO_TRIAL,
  startTrial,
} from '../../lambdas/core/isolation';
import { aPolicy } from './fixtures';

const policy = aPolicy({ isolationTrialMessages: 20 });
const t0 = 1_700_000_000_000;
const running: ActiveTrial = { active: true, remaining: 7, startedAt: t0, reason: 'unattributable-crash' };

describe('isolation trial (rule 6)', () => {
  it('given an unattributable crash, when a trial starts, then 20 messages must pass', () => {
    expect(startTrial(t0, policy)).toStrictEqual({
      active: true,
      remaining: 20,
      startedAt: t0,
      reason: 'unattributable-crash',
    });
  });

  it.each<[string, IsolationTrial, IsolationTrial]>([
    ['an idle trial stays idle', NO_TRIAL, NO_TRIAL],
    ['a running trial counts down', running, { ...running, remaining: 6 }],
    ['the last message ends the trial', { ...running, remaining: 1 }, NO_TRIAL],
  ])('afterCompletedMessage: %s', (_name, trial, expected) => {
    expect(afterCompletedMessage(trial)).toStrictEqual(expected);
  });

  it.each<[string, IsolationTrial, IsolationTrial]>([
    [
      'a crash during a trial starts the count over',
      running,
      { ...running, remaining: 20, startedAt: t0 + 5 },
    ],
    ['a crash outside a trial changes nothing', NO_TRIAL, NO_TRIAL],
  ])('afterCrash: %s', (_name, trial, expected) => {
    expect(afterCrash(trial, t0 + 5, policy)).toStrictEqual(expected);
  });

  it('given a trial, then concurrency is 1 until 20 messages pass, then the configured value returns', () => {
    // Prepare
    let trial: IsolationTrial = startTrial(t0, policy);
    const concurrency: number[] = [];

    // Act
    for (let message = 0; message < 21; message += 1) {
      concurrency.push(effectiveConcurrency(trial, 8));
      trial = afterCompletedMessage(trial);
    }

    // Assess
    expect(concurrency).toStrictEqual([...Array(20).fill(1), 8]);
  });
});
