/**
 * A record starts only when the invocation has time left to finish it: a function timeout
 * kills the worker, and whatever is in flight then looks like an attributable crash. Records
 * that do not fit go back uncharged. How long a record takes is learned per execution
 * environment (the longest one seen), plus a margin for the settle writes.
 */

/** Left for the settle writes after the work: a tenth of the timeout, at least a second. */
export function timeMarginMs(timeoutSeconds: number): number {
  return Math.max(1000, timeoutSeconds * 100);
}

/**
 * Whether a record may start with `remainingMs` left. The first record of an invocation always
 * may: nothing else is in flight to be blamed, and refusing it would stop the queue.
 */
export function leavesTimeFor(
  remainingMs: number,
  longestRecordMs: number,
  timeoutSeconds: number,
  firstOfInvocation: boolean,
): boolean {
  return firstOfInvocation || remainingMs >= longestRecordMs + timeMarginMs(timeoutSeconds);
}
