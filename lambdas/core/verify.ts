/**
 * Rule 8 as the operator CLI applies it: may this "outcome unknown" record be answered, and
 * through whom: its execution's open wait, or the record itself when no execution is left.
 */
import { QUARANTINE_STATUS, VERIFY_DECISION, type VerifyDecision } from '../../contract/quarantine';
import { REPLAY_AUDIT, type RecordFacts, type Refusal, refuse } from './operator';

/**
 * `replay`: replay once before answering; false when an earlier run already replayed it.
 * `via`: `execution` sends the answer to the waiting execution, which moves the record on;
 * `record`: the execution is gone, so the CLI applies the answer itself, with the writes the
 * state machine would have made, each conditioned on the record still awaiting.
 */
export type VerifyPlan =
  | { readonly kind: 'answer'; readonly replay: boolean; readonly via: 'execution' | 'record' }
  | Refusal;

/**
 * The record's operator wait: `open` (its execution runs and stored its token), `opening` (it
 * runs but has not stored one yet), `gone` (no execution runs: it never started, failed, was
 * stopped or timed out; a token left behind is dead).
 */
export type VerifyWait = 'open' | 'opening' | 'gone';

export function verifyWaitOf(executionStatus: string | undefined, hasTaskToken: boolean): VerifyWait {
  if (executionStatus !== 'RUNNING') return 'gone';
  return hasTaskToken ? 'open' : 'opening';
}

/**
 * Rule 8. A record awaiting an operator is answered through its execution's open wait, or, when
 * no execution is left to wait, on the record itself: a decision can always be given. A
 * `not-done` that replayed but could not deliver its answer leaves the record awaiting with a
 * `replay` audit entry: running it again answers without a second replay, and no other answer
 * may follow a replay that happened.
 */
export function decideVerify(
  record: RecordFacts & { readonly audit: readonly { readonly what: string }[] },
  context: {
    readonly decision: VerifyDecision;
    readonly wait: VerifyWait;
    readonly replayFrozen: boolean;
  },
): VerifyPlan {
  if (record.status !== QUARANTINE_STATUS.awaitingOperator) {
    return refuse(`its status is ${record.status}: only records awaiting an operator can be verified`);
  }
  if (context.wait === 'opening') {
    return refuse('its execution has not opened the operator wait yet: try again in a minute');
  }
  const via = context.wait === 'open' ? 'execution' : 'record';
  const replayed = record.audit.some((entry) => entry.what === REPLAY_AUDIT);
  if (replayed) {
    return context.decision === VERIFY_DECISION.notDone
      ? { kind: 'answer', replay: false, via }
      : refuse(
          'an earlier verify --not-done already replayed it (its answer did not arrive): answer --not-done again',
        );
  }
  if (context.decision === VERIFY_DECISION.notDone && context.replayFrozen) {
    return refuse('not-done replays the message, and replay is frozen (unfreeze first, or answer later)');
  }
  return { kind: 'answer', replay: context.decision === VERIFY_DECISION.notDone, via };
}

/** The waiting state's result (Operations.sendDecision); the state machine records it. */
export function verifyOutput(
  decision: VerifyDecision,
  actor: { readonly who: string; readonly why: string; readonly at: Date },
) {
  return { decision, who: actor.who, why: actor.why, at: actor.at.toISOString() };
}
