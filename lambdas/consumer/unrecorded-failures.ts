/**
 * Failure events this execution environment witnessed but could not record (rule 7). A throttled
 * write to the control table must not erase the evidence of an outage: the environment still
 * judges the shared window with what it saw itself, until those events leave the window.
 */
import type { FailureEvent } from '../core/outage';

export class UnrecordedFailures {
  private events: FailureEvent[] = [];

  remember(event: FailureEvent): void {
    this.events.push(event);
  }

  /** The remembered events at or after `since`; older ones are forgotten. */
  since(since: number): readonly FailureEvent[] {
    this.events = this.events.filter((event) => event.at >= since);
    return this.events;
  }
}
