/**
 * The two ways a command ends without success. Both print one line on stderr: a refusal or a
 * usage mistake exits 2 (nothing was changed, the operator can correct and retry); anything else
 * is a failure and exits 1.
 */

/** The arguments do not make a command: unknown option, missing ID, bad --since. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A rule forbids the action now (rules 4, 8, 11c, 12) or its subject does not exist. */
export class Refused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Refused';
  }
}
