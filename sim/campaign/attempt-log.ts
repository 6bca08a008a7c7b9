/**
 * What happened to each attempt, as the oracle (oracle.ts) needs it: who started it, what the
 * user's work did (finished, threw which error, made which keyless call), which of our end
 * writes landed, and, if its worker died with it in flight, how many messages that worker held.
 * Fed by the taps (observe.ts, mapping.ts); it decides nothing.
 */
import { PermanentError } from '../../lambdas/core/errors';

/** What the user's work threw, in rule 9's charged buckets; `other` is never charged. */
export type Thrown = 'permanent' | 'unknown' | 'other';

/** The first of our writes that ended the attempt (rule 1's "recorded end"). */
export type RecordedEnd = 'complete' | 'failure' | 'quarantining';

export interface AttemptFacts {
  readonly seq: number;
  readonly key: string;
  readonly generation: number;
  readonly attemptId: string;
  readonly envId: string;
  readonly messageId: string;
  /** The key's charges once this attempt had started (a restart adds the crash it settles). */
  readonly chargedAtStart: number;
  /** The attempt limit its environment runs with. */
  readonly limit: number;
  /**
   * Keyless calls of this attempt that may have reached the outside system (rule 8): made, or
   * recorded `pending`, and not durably recorded as never sent.
   */
  readonly mayHaveCalled: Set<string>;
  /** It declared a keyless call (whose pending record may say "may have happened"). */
  keylessDeclared: boolean;
  thrown?: Thrown;
  workFinished: boolean;
  ended?: RecordedEnd;
  /** Its worker died while it was in flight. */
  crash?: DiedInFlight;
}

export interface DiedInFlight {
  readonly seq: number;
  /** Messages the dead worker had in flight, by the ledger (rule 5/6's k). */
  readonly inFlight: number;
  /**
   * The worker also held an attempt abandoned by an earlier invocation (its end write lost), or
   * one whose quarantine it had begun: the rules do not say whether such an attempt was "in
   * flight", so the crash's k is unclear.
   */
  readonly unclear: boolean;
}

export class AttemptLog {
  readonly attempts: AttemptFacts[] = [];
  /** Seqs at which some worker decided to pause or stop consumption (rule 7, rule 11). */
  readonly pauses: number[] = [];
  /** The seq at which each environment died. */
  readonly deaths = new Map<string, number>();
  /** Messages whose own work ran to its end, by messageId (attempt recorded or not). */
  readonly workFinished = new Set<string>();
  private readonly byId = new Map<string, AttemptFacts>();
  /** The seq at which each environment's latest invocation began. */
  private readonly invocations = new Map<string, number>();
  /** The same, for invocations still running. */
  private readonly running = new Map<string, number>();

  started(facts: Omit<AttemptFacts, 'mayHaveCalled' | 'keylessDeclared' | 'workFinished'>): void {
    const attempt = {
      ...facts,
      mayHaveCalled: new Set<string>(),
      keylessDeclared: false,
      workFinished: false,
    };
    this.attempts.push(attempt);
    this.byId.set(facts.attemptId, attempt);
  }

  get(attemptId: string | undefined): AttemptFacts | undefined {
    return attemptId === undefined ? undefined : this.byId.get(attemptId);
  }

  /**
   * An end write of the attempt landed; only the first one ends it, and only its own worker's
   * (the invocation that started it, still running): a later delivery settling the attempt it
   * found in flight is the crash's settlement, not the attempt's recorded end.
   */
  ended(attemptId: string, end: RecordedEnd): void {
    const attempt = this.byId.get(attemptId);
    const invocation = attempt && this.running.get(attempt.envId);
    if (attempt !== undefined && invocation !== undefined && invocation < attempt.seq) attempt.ended ??= end;
  }

  /** The work declared a keyless external call (before its pending record is written). */
  declaredKeyless(attemptId: string | undefined): void {
    const attempt = this.get(attemptId);
    if (attempt !== undefined) attempt.keylessDeclared = true;
  }

  threw(attemptId: string | undefined, error: unknown): void {
    const attempt = this.get(attemptId);
    if (attempt !== undefined) attempt.thrown ??= thrownClass(error);
  }

  finished(messageId: string, attemptId: string | undefined): void {
    this.workFinished.add(messageId);
    const attempt = this.get(attemptId);
    if (attempt !== undefined) attempt.workFinished = true;
  }

  invoked(envId: string, seq: number): void {
    this.invocations.set(envId, seq);
    this.running.set(envId, seq);
  }

  /** The invocation returned, failed or died: its worker writes nothing more. */
  returned(envId: string): void {
    this.running.delete(envId);
  }

  /**
   * A worker died; `held` are the attempt ids the ledger shows in flight in it, `quarantining`
   * those of them whose quarantine it had begun. `takenForCrash`: a delivery already took it for
   * crashed while it lived (an attempt it abandoned).
   */
  died(
    seq: number,
    envId: string,
    { held, quarantining }: { readonly held: readonly string[]; readonly quarantining: readonly string[] },
    takenForCrash: boolean,
  ): void {
    this.deaths.set(envId, seq);
    const invocation = this.invocations.get(envId) ?? 0;
    const decided = (id: string) => quarantining.includes(id) || this.byId.get(id)?.ended !== undefined;
    // Besides an abandoned attempt, one whose quarantine was decided: its end is recorded, but
    // its item still names this worker until the quarantine is finished. And one whose work had
    // run to its end, its end write lost: the worker lived on past it (rule 10: not the crash's,
    // if the consumer could record the lost completion; the crash's, if it could not).
    const unclear =
      takenForCrash ||
      held.some(
        (id) => (this.byId.get(id)?.seq ?? 0) < invocation || decided(id) || this.byId.get(id)?.workFinished,
      );
    for (const attemptId of held) {
      const attempt = this.byId.get(attemptId);
      if (attempt !== undefined && !decided(attemptId))
        attempt.crash = { seq, inFlight: held.length, unclear };
    }
  }
}

/** Rule 9 by what the work threw: a validation failure, a bug's TypeError, or neither. */
function thrownClass(error: unknown): Thrown {
  if (error instanceof PermanentError) return 'permanent';
  if (error instanceof TypeError) return 'unknown';
  return 'other';
}
