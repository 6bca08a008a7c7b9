/**
 * Rule 11b: when more than a stated share of recent messages is being quarantined, it looks
 * like an outage, not poison: automatic quarantine stops and the consumer pauses as in rule 7.
 * Only final outcomes count; a retry is neither.
 */
import type { Policy } from './types';

export type MessageOutcome = 'completed' | 'quarantined';

/** The latest outcomes, oldest first, at most `quarantineShareWindow` long. */
export type OutcomeWindow = readonly MessageOutcome[];

export const EMPTY_WINDOW: OutcomeWindow = [];

export function record(window: OutcomeWindow, outcome: MessageOutcome, policy: Policy): OutcomeWindow {
  return [...window, outcome].slice(-policy.quarantineShareWindow);
}

/** The quarantined share of the window; 0 for an empty one. */
export function quarantineShare(window: OutcomeWindow): number {
  if (window.length === 0) {
    return 0;
  }
  return window.filter((outcome) => outcome === 'quarantined').length / window.length;
}

/** A share of 1 in 2 says nothing: the verdict waits for `quarantineShareMinimum` outcomes. */
export function shouldStopQuarantine(window: OutcomeWindow, policy: Policy): boolean {
  return (
    window.length >= policy.quarantineShareMinimum &&
    quarantineShare(window) > policy.quarantineShareThreshold
  );
}
