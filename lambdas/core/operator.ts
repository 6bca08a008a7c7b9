/**
 * Rules 4, 11c and 12 as the operator CLI applies them: may this record be replayed or
 * discarded, how a replay that broke half-way ends, may the breaker be resumed or held (rule 8's
 * answers are in verify.ts). Decisions are data; the CLI
 * carries them out with conditional writes, so a decision made on a stale read is still refused
 * by the table. Time and identity are passed in.
 */
import { createHash } from 'node:crypto';
import { BREAKER_STATE, type BreakerAction } from '../../contract/control';
import { LEDGER_STATE } from '../../contract/ledger';
import { QUARANTINE_STATUS } from '../../contract/quarantine';

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
  record: RecordFacts & { readonly id: string },
  context: { readonly replayFrozen: boolean },
): { readonly kind: 'replay' } | Refusal {
  if (context.replayFrozen) return refuse('replay is frozen for this pipeline (see status; unfreeze first)');
  if (record.status === QUARANTINE_STATUS.awaitingOperator) {
    return refuse(
      'it waits for an operator to check the outside system (outcome unknown): use verify --done|--not-done|--discard',
    );
  }
  if (record.status !== QUARANTINE_STATUS.open) {
    return refuse(`its status is ${record.status}: only open records can be replayed`);
  }
  if (!hasCause(record)) {
    return refuse(`no cause is recorded yet: run pq cause ${record.id} "what went wrong" first`);
  }
  return { kind: 'replay' };
}

/** The audit `what` of `discard`, the same word the state machine writes for `verify --discard`. */
export const DISCARD_AUDIT = 'discard';

/**
 * Closing a record without replaying it. Only `open`: an awaiting record has an operator wait
 * (the state machine's task token) that only `verify` answers, and anything else is already
 * being replayed or closed.
 */
export function decideDiscard(record: RecordFacts): { readonly kind: 'discard' } | Refusal {
  if (record.status === QUARANTINE_STATUS.awaitingOperator) {
    return refuse(
      'it waits for an operator to check the outside system (outcome unknown): use verify ID --discard (or --done | --not-done)',
    );
  }
  if (record.status !== QUARANTINE_STATUS.open) {
    return refuse(`its status is ${record.status}: only open records can be discarded`);
  }
  return { kind: 'discard' };
}

/** The audit `what` of a plain replay's claim: its `when` is when the replay started. */
export const REPLAY_STARTED_AUDIT = 'replay-started';

/** A `pq replay` takes seconds; a claim younger than this may be one still running (SDK retries). */
export const REPLAY_RUNNING_AT_MOST_MINUTES = 10;

/** What the resume decision reads of the attempts ledger item (the replay's key). */
export interface LedgerFacts {
  readonly state: string;
  readonly generation: number;
  readonly quarantineId?: string;
  readonly charged: number;
  readonly transientFailures: number;
  readonly unknownFailures: number;
}

/**
 * `finish`: `replaying` -> `replayed`. `release`: -> `open`, with `requarantine` after first
 * putting the reset ledger item back to `quarantined` (while no attempt has started on it).
 */
export type ResumePlan =
  | { readonly kind: 'finish'; readonly evidence: string }
  | { readonly kind: 'release'; readonly requarantine: boolean; readonly evidence: string }
  | Refusal;

/**
 * A replay killed half-way leaves the record `replaying`, and whether its message went out is
 * not known (a SendMessage that timed out may have sent it). The ledger tells what matters: the
 * reset (generation + 1, `ready`, counters 0) admits one attempt, and a `quarantined` item turns
 * any delivery into a duplicate (rule 13). Finishing a replay that never went out would lose
 * it, so only what nothing but a pick-up writes finishes one; clocks are not compared (the
 * operator's and Lambda's may disagree).
 * - not reset, or the reset undone (quarantined by this record): a sent copy does no work; release.
 * - picked up (in flight, completed, quarantined again, a failure counted, a later generation): finish.
 * - reset, nothing since: the message may wait in the queue (a paused consumer, a backlog) or was
 *   never sent, and sending again could run it twice. Put the item back to quarantined, so a
 *   queued copy does no work, and release: the operator's next `pq replay` is the one that runs.
 */
export function decideResume(
  record: RecordFacts & {
    readonly id: string;
    readonly generation: number;
    readonly audit: readonly { readonly what: string; readonly when: string }[];
  },
  ledger: LedgerFacts | undefined,
  now: Date,
): ResumePlan {
  if (record.status !== QUARANTINE_STATUS.replaying) {
    return refuse(
      `its status is ${record.status}: only a replay that broke half-way (status replaying) can be resumed`,
    );
  }
  const claimedAt = record.audit.filter((entry) => entry.what === REPLAY_STARTED_AUDIT).at(-1)?.when;
  const resumableAt = Date.parse(claimedAt ?? '') + REPLAY_RUNNING_AT_MOST_MINUTES * 60_000;
  if (resumableAt > now.getTime()) {
    return refuse(
      `its replay started at ${claimedAt} and may still be running: resume is allowed from ${new Date(resumableAt).toISOString()}`,
    );
  }
  if (ledger === undefined) {
    return release(false, 'there is no attempts ledger item for its key: no replay can run on it');
  }
  if (ledger.state === LEDGER_STATE.quarantined && ledger.quarantineId === record.id) {
    return release(
      false,
      `the ledger still holds this quarantine (generation ${ledger.generation}): the replay never reset it, or undid its reset, so a copy it may have sent is acknowledged as a duplicate`,
    );
  }
  const seen = `state ${ledger.state}, generation ${ledger.generation}`;
  if (ledger.generation <= record.generation) {
    return release(false, `the ledger was never reset for it (${seen}): nothing was sent`);
  }
  const failedSinceReset = ledger.charged + ledger.transientFailures + ledger.unknownFailures > 0;
  if (
    ledger.state === LEDGER_STATE.ready &&
    ledger.generation === record.generation + 1 &&
    !failedSinceReset
  ) {
    return release(
      true,
      `the ledger was reset (generation ${ledger.generation}) but shows no attempt since: its message may wait in the queue or was never sent; the ledger is put back to quarantined, so a queued copy is acknowledged as a duplicate`,
    );
  }
  return { kind: 'finish', evidence: `the consumer picked the replay up (ledger: ${seen})` };
}

/** The audit `what` of a replay; on a record awaiting an operator it marks a `not-done` already replayed. */
export const REPLAY_AUDIT = 'replay';

/**
 * Resume and hold only mean something while consumption is paused (breaker open or half-open):
 * the pause execution reads the episode's answer at each of its checkpoints. An unreadable breaker
 * has no pause to answer: it is repaired first (core/breaker-reset.ts).
 */
export function decideBreakerAction(
  breaker: { readonly state: string; readonly problem?: string } | undefined,
  action: BreakerAction,
): { readonly kind: 'apply' } | Refusal {
  if (breaker?.state === 'unreadable') {
    return refuse(
      `the breaker item cannot be read (${breaker.problem}): repair it first with pq reset-breaker --reason "...", which makes it a stop that pq resume then ends`,
    );
  }
  if (breaker === undefined || breaker.state === BREAKER_STATE.closed) {
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

function release(requarantine: boolean, evidence: string): ResumePlan {
  return { kind: 'release', requarantine, evidence };
}

export function refuse(reason: string): Refusal {
  return { kind: 'refuse', reason };
}
