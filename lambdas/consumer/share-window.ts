/**
 * Rule 11b's window of recent outcomes, kept per execution environment: an outcome per message
 * in DynamoDB would double a healthy message's cost. Each environment sees a sample of the
 * queue, which is what a share needs.
 */
import { EMPTY_WINDOW, type MessageOutcome, type OutcomeWindow, record } from '../core/quarantine-share';
import type { Policy } from '../core/types';

export class ShareWindow {
  private window: OutcomeWindow = EMPTY_WINDOW;

  constructor(private readonly policy: Policy) {}

  record(outcome: MessageOutcome): void {
    this.window = record(this.window, outcome, this.policy);
  }

  /** The window as it would be with one more outcome, without keeping it. */
  peek(outcome: MessageOutcome): OutcomeWindow {
    return record(this.window, outcome, this.policy);
  }
}
