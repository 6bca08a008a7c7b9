/**
 * The ways a command ends without success, each with an exit code of its own (cli/run.ts EXIT),
 * so that a script can tell them apart; each prints one line on stderr. A usage mistake (252, as
 * the AWS CLI's), a refusal by a rule (2) and a missing subject (3) changed nothing; anything
 * else is a failure (1): AWS unreachable, access denied, a write that did not happen.
 */

/** The arguments do not make a command: unknown option, missing ID, bad --since. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A rule forbids the action now (rules 4, 8, 11c, 12). */
export class Refused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Refused';
  }
}

/** Its subject does not exist: no such record, backstop message or consumer function. */
export class NotFound extends Refused {
  constructor(message: string) {
    super(message);
    this.name = 'NotFound';
  }
}
