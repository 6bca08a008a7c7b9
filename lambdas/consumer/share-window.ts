/**
 * Rule 11b's window of recent outcomes, kept per execution environment: an outcome per message
 * in DynamoDB would double a healthy message's cost. Each environment sees a sample of the
 * queue, which is what a share needs.
 */
import { BREAKER_STATE } from '../../contract/control';
import type { BreakerRecord } from '../core/breaker';
import { EMPTY_WINDOW, type MessageOutcome, type OutcomeWindow, record } from '../core/quarantine-share';
import type { Policy } from '../core/types';

export class ShareWindow {
  private window: OutcomeWindow = EMPTY_WINDOW;
  /** The breaker epoch of this environment's latest share stop, until it sees it resumed. */
  private stopEpoch: number | undefined;

  constructor(private readonly policy: Policy) {}

  /** This environment stopped quarantine for the share (rule 11b), the breaker at `epoch`. */
  stoppedIn(epoch: number): void {
    this.stopEpoch = epoch;
  }

  /**
   * The breaker as a batch found it. Closed again since this environment's share stop: a person
   * looked at those quarantines and resumed, and the window starts over. Kept, the same window
   * would stop the next quarantine at once, on every resume, until each message's last receive.
   */
  sawBreaker(breaker: BreakerRecord | undefined): void {
    if (this.stopEpoch === undefined) return;
    if (breaker !== undefined && (breaker.state !== BREAKER_STATE.closed || breaker.epoch < this.stopEpoch))
      return;
    this.window = EMPTY_WINDOW;
    this.stopEpoch = undefined;
  }

  record(outcome: MessageOutcome): void {
    this.window = record(this.window, outcome, this.policy);
  }

  /** The window as it would be with one more outcome, without keeping it. */
  peek(outcome: MessageOutcome): OutcomeWindow {
    return record(this.window, outcome, this.policy);
  }
}
