/**
 * Rule 6, branch B: after an unattributable crash the consumer runs one message at a time, so
 * the next crash points at one message. The trial ends, and the configured concurrency returns,
 * once `isolationTrialMessages` messages have passed without a crash.
 */
import type { Policy } from './types';

export interface IdleTrial {
  readonly active: false;
  readonly remaining: 0;
  /** Epoch ms at which the latest message passed a trial, if one ever did (rule 7's crashes). */
  readonly lastPassAt?: number;
}

export interface ActiveTrial {
  readonly active: true;
  /** Messages that must still pass without a crash. */
  readonly remaining: number;
  /** Epoch milliseconds when the trial (re)started. */
  readonly startedAt: number;
  readonly reason: string;
  /** Epoch ms at which the latest message passed a trial, this one or an earlier one. */
  readonly lastPassAt?: number;
}

export type IsolationTrial = IdleTrial | ActiveTrial;

export const NO_TRIAL: IdleTrial = { active: false, remaining: 0 };

export function startTrial(now: number, policy: Policy, reason = 'unattributable-crash'): ActiveTrial {
  return { active: true, remaining: policy.isolationTrialMessages, startedAt: now, reason };
}

/**
 * Call after every message that ended without a crash (completed, retried or quarantined for an
 * error): the trial counts messages that did not kill the worker.
 */
export function afterCompletedMessage(trial: IsolationTrial): IsolationTrial {
  if (!trial.active) {
    return trial;
  }
  return trial.remaining <= 1 ? NO_TRIAL : { ...trial, remaining: trial.remaining - 1 };
}

/**
 * A crash during a trial means something still kills the worker: the count starts over. A
 * crash outside a trial changes nothing here (an unattributable one starts a trial through
 * the delivery decision's `startIsolation`).
 */
export function afterCrash(trial: IsolationTrial, now: number, policy: Policy): IsolationTrial {
  return trial.active ? startTrial(now, policy, trial.reason) : trial;
}

export function effectiveConcurrency(trial: IsolationTrial, configured: number): number {
  return trial.active ? 1 : configured;
}
