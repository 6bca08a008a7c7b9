/**
 * Every error poison-quarantine defines. Users throw the first three to classify a failure
 * explicitly (rule 9); the default classifier recognises them before anything else.
 */

/** Base class: `instanceof PoisonQuarantineError` catches every error of ours. */
export class PoisonQuarantineError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PoisonQuarantineError';
  }
}

/** The failure will likely pass on a later try (throttling, an outage): retry with backoff. */
export class TransientError extends PoisonQuarantineError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TransientError';
  }
}

/** The message itself is bad (invalid, unparseable): quarantine it at once. */
export class PermanentError extends PoisonQuarantineError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PermanentError';
  }
}

/** An outside system may or may not have acted: quarantine and ask a person (rule 8). */
export class OutcomeUnknownError extends PoisonQuarantineError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'OutcomeUnknownError';
  }
}

/**
 * A declared external call had not answered when the invocation's time ran out: it may have
 * acted (rule 8), and its dependency looks hung (rule 7). Transient, so a call with an
 * idempotency key is retried; a keyless one is outcome unknown.
 */
export class CallUnansweredError extends TransientError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CallUnansweredError';
  }
}

/** One bad configuration value: the variable, what it held, and what it should hold. */
export interface ConfigProblem {
  readonly key: string;
  readonly value: string | undefined;
  readonly expected: string;
}

/** The configuration is invalid; `problems` lists every bad key at once, not just the first. */
export class ConfigError extends PoisonQuarantineError {
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[]) {
    super(`Invalid poison-quarantine configuration: ${problems.map(describeProblem).join('; ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

function describeProblem(problem: ConfigProblem): string {
  const given = problem.value === undefined ? 'not set' : `given ${JSON.stringify(problem.value)}`;
  return `${problem.key} must be ${problem.expected} (${given})`;
}
