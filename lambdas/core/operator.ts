/**
 * Rules 4, 8, 11c and 12 as the operator CLI applies them: may this record be replayed, may this
 * verification be answered, may the breaker be resumed or held. Decisions are data; the CLI
 * carries them out with conditional writes, so a decision made on a stale read is still refused
 * by the table. Time and identity are passed in.
 */
import { createHash } from 'node:crypto';

/** What the decisions read of a quarantine record. */
export interface RecordFacts {
  readonly status: string;
  readonly cause: string;
}

export type Refusal = { readonly kind: 'refuse'; readonly reason: string };

/** Rule 12: the cause every record starts with. */
export const UNIDENTIFIED_CAUSE = 'unidentified';

/** What a plain replay asks; `verify --not-done` replays through `decideVerify` instead. */
export function decideReplay(
  record: RecordFacts,
  context: { readonly replayFrozen: boolean },
): { readonly kind: 'replay' } | Refusal {
  if (context.replayFrozen) return refuse('replay is frozen for this pipeline (see status; unfreeze first)');
  if (record.status === 'awaiting-operator') {
    return refuse(
      'it waits for an operator to check the outside system (outcome unknown): use verify --done|--not-done|--discard',
    );
  }
  if (record.status !== 'open') {
    return refuse(`its status is ${record.status}: only open records can be replayed`);
  }
  if (!hasCause(record)) return refuse('no cause is recorded yet: run cause ID "what went wrong" first');
  return { kind: 'replay' };
}

export type VerifyDecision = 'done' | 'not-done' | 'discard';

/** `replay`: replay once before answering; false when an earlier run already replayed it. */
export type VerifyPlan = { readonly kind: 'answer'; readonly replay: boolean } | Refusal;

/** The audit `what` of a replay; on a record awaiting an operator it marks a `not-done` already replayed. */
export const REPLAY_AUDIT = 'replay';

/**
 * Rule 8. Only a record whose operator wait is open (a stored task token) can be answered; the
 * state machine then moves it on. A `not-done` that replayed but could not deliver its answer
 * leaves the record awaiting with a `replay` audit entry: running it again answers without a
 * second replay, and no other answer may follow a replay that happened.
 */
export function decideVerify(
  record: RecordFacts & { readonly audit: readonly { readonly what: string }[] },
  context: {
    readonly decision: VerifyDecision;
    readonly hasTaskToken: boolean;
    readonly replayFrozen: boolean;
  },
): VerifyPlan {
  if (record.status !== 'awaiting-operator') {
    return refuse(`its status is ${record.status}: only records awaiting an operator can be verified`);
  }
  if (!context.hasTaskToken) {
    return refuse(
      'no operator wait is open for it: its execution has not reached the wait yet (try again in a minute) or it was already decided',
    );
  }
  const replayed = record.audit.some((entry) => entry.what === REPLAY_AUDIT);
  if (replayed) {
    return context.decision === 'not-done'
      ? { kind: 'answer', replay: false }
      : refuse(
          'an earlier verify --not-done already replayed it (its answer did not arrive): answer --not-done again',
        );
  }
  if (context.decision === 'not-done' && context.replayFrozen) {
    return refuse('not-done replays the message, and replay is frozen (unfreeze first, or answer later)');
  }
  return { kind: 'answer', replay: context.decision === 'not-done' };
}

/** The waiting state's result (Operations.sendDecision); the state machine records it. */
export function verifyOutput(
  decision: VerifyDecision,
  actor: { readonly who: string; readonly why: string; readonly at: Date },
) {
  return { decision, who: actor.who, why: actor.why, at: actor.at.toISOString() };
}

export type BreakerAction = 'resume' | 'hold';

/**
 * Resume and hold only mean something while consumption is paused (breaker open or half-open):
 * the pause execution reads `operatorAction` at each of its checkpoints.
 */
export function decideBreakerAction(
  breaker: { readonly state: string } | undefined,
  action: BreakerAction,
): { readonly kind: 'apply' } | Refusal {
  if (breaker === undefined || breaker.state === 'closed') {
    return refuse(
      `consumption is not paused (breaker ${breaker?.state ?? 'never opened'}): nothing to ${action}`,
    );
  }
  return { kind: 'apply' };
}

/** The waiting pause execution's result. */
export function breakerOutput(action: BreakerAction, actor: { readonly who: string; readonly why: string }) {
  return { action, who: actor.who, why: actor.why };
}

/** Rule 12: a cause must say something, and cannot be the placeholder it replaces. */
export function checkCause(text: string): Refusal | undefined {
  const cause = text.trim();
  if (cause === '') return refuse('the cause is empty: say what went wrong');
  if (cause.toLowerCase() === UNIDENTIFIED_CAUSE) return refuse(`"${UNIDENTIFIED_CAUSE}" is not a cause`);
  return undefined;
}

/** Rule 4: every action says why. */
export function checkReason(text: string | undefined): Refusal | undefined {
  return text === undefined || text.trim() === '' ? refuse('--reason "why" is required') : undefined;
}

export function hasCause(record: RecordFacts): boolean {
  return record.cause.trim() !== '' && record.cause !== UNIDENTIFIED_CAUSE;
}

/** A short, stable handle for a failure group: signatures are long and full of quotes. */
export function groupId(errorSignature: string): string {
  return `g-${createHash('sha256').update(errorSignature, 'utf8').digest('hex').slice(0, 10)}`;
}

export interface GroupedRecord {
  readonly id: string;
  readonly reason: string;
  readonly cause: string;
  readonly status: string;
  readonly errorSignature: string;
  readonly createdAt: string;
}

export interface FailureGroup {
  readonly group: string;
  readonly errorSignature: string;
  readonly count: number;
  /** How many already have a cause (rule 12: replayable once the rest have one too). */
  readonly withCause: number;
  readonly reasons: readonly string[];
  readonly firstAt: string;
  readonly lastAt: string;
  readonly ids: readonly string[];
}

/** ServicePulse-style failure groups: biggest first, then most recent. */
export function groupBySignature(records: readonly GroupedRecord[]): FailureGroup[] {
  const bySignature = new Map<string, GroupedRecord[]>();
  for (const record of records) {
    bySignature.set(record.errorSignature, [...(bySignature.get(record.errorSignature) ?? []), record]);
  }
  return [...bySignature.entries()]
    .map(([errorSignature, members]) => {
      const times = members.map((member) => member.createdAt).sort();
      return {
        group: groupId(errorSignature),
        errorSignature,
        count: members.length,
        withCause: members.filter(hasCause).length,
        reasons: [...new Set(members.map((member) => member.reason))].sort(),
        firstAt: times[0] ?? '',
        lastAt: times[times.length - 1] ?? '',
        ids: members.map((member) => member.id),
      };
    })
    .sort((a, b) => b.count - a.count || b.lastAt.localeCompare(a.lastAt));
}

/** Whether `selector` (a group id or the full signature) names this signature's group. */
export function matchesGroup(errorSignature: string, selector: string): boolean {
  return selector === errorSignature || selector === groupId(errorSignature);
}

function refuse(reason: string): Refusal {
  return { kind: 'refuse', reason };
}
