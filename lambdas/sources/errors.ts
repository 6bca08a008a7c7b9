/** Errors of the event-source adapters. */

/** The event is not of the source the consumer is configured for: nothing of it is run or lost. */
export class SourceEventError extends Error {
  override readonly name = 'SourceEventError';
  constructor(kind: string, what: string) {
    super(
      `the consumer reads a ${kind} source but was invoked with ${what}: the batch fails whole, nothing is run`,
    );
  }
}
