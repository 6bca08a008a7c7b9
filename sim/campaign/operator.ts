/**
 * The operator, as simple as the campaign needs, with the CLI's and the state machine's rules
 * (lambdas/core/operator.ts, cli/replay-flow.ts, lib/operations/verification-state-machine.ts):
 * - replay an open record: record a cause first (rule 12), then the ledger's fresh budget
 *   conditioned on it still holding this quarantine, then the exact body to the source queue
 *   with `pq-message-key` and `pq-replay-of`; the record becomes `replayed`.
 * - answer a record waiting for a person, through its RUNNING `ou-<id>` execution (the task
 *   token), or, when that execution is gone, on the record itself as `pq verify` does: `done`
 *   marks the ledger completed (through the execution unconditionally, as MarkLedgerCompleted;
 *   without it only while the item holds this quarantine) and the record `resolved`;
 *   `not-done` replays as above, then the record is `replayed`; `discard` resolves it. A
 *   running execution then succeeds.
 * - resume a paused consumer as `pq resume` does (cli/commands/breaker.ts): refused unless
 *   paused; the action recorded on the breaker, then the waiting run answered through its
 *   token, or else the next run of the pause started, which reads the action (a running one
 *   reads it at its next checkpoint).
 * Left out: claims (`replaying`), audit entries, replay freeze, answers that fail to arrive,
 * `pq hold`.
 */
import { VERIFIED_STATUS } from '../../contract/quarantine';
import { OPERATOR_PAUSE_RUNS } from '../../lambdas/adapters/operations';
import { outcomeUnknownExecutionName } from '../../lambdas/core/ids';
import { checkCause, decideBreakerAction, decideReplay } from '../../lambdas/core/operator';
import { decideVerify, verifyWaitOf } from '../../lambdas/core/verify';
import { LedgerStateMismatchError } from '../../lambdas/ports/errors';
import type { StoredRecord } from '../world/memory-quarantine';
import type { World } from '../world/world';
import type { PauseModel } from './pause-model';
import type { Decision } from './schedule';

export interface OperatorDeps {
  readonly world: World;
  /** The records this operator moved out of quarantine (rule 4: only a person does). */
  readonly decided: Set<string>;
  /** Sends the record's exact body again as a replay of it. */
  readonly sendReplay: (record: StoredRecord) => void;
}

const CAUSE = 'campaign: the operator looked';

/**
 * Replays the oldest open record, its cause recorded first (`pq cause`) unless the operator
 * forgot; false when there is none or the replay was refused.
 */
export async function replayOldestOpen(deps: OperatorDeps, withCause = true): Promise<boolean> {
  const record = [...deps.world.quarantine.records.values()].find((candidate) => candidate.status === 'open');
  if (record === undefined || checkCause(CAUSE) !== undefined) return false;
  if (withCause) record.cause = CAUSE;
  const decision = decideReplay(
    { id: record.id, status: record.status, cause: record.cause },
    { replayFrozen: false },
  );
  if (decision.kind === 'refuse') return false;
  if (!(await resetLedger(deps.world, record))) return false;
  deps.sendReplay(record);
  record.status = 'replayed';
  deps.decided.add(record.id);
  return true;
}

/** Answers the oldest record waiting for a person that can be answered. */
export async function answerOldest(deps: OperatorDeps, decision: Decision): Promise<boolean> {
  for (const record of deps.world.quarantine.records.values()) {
    if (record.status === 'awaiting-operator' && (await answer(deps, record, decision))) return true;
  }
  return false;
}

/** One answer; false when it cannot be given (a refused replay, or the ledger moved on). */
export async function answer(deps: OperatorDeps, record: StoredRecord, decision: Decision): Promise<boolean> {
  const execution = deps.world.operations.executions.get(outcomeUnknownExecutionName(record.id));
  const running = execution?.status === 'RUNNING';
  const plan = decideVerify(
    { status: record.status, cause: record.cause, audit: [] },
    { decision, wait: verifyWaitOf(execution?.status, running), replayFrozen: false },
  );
  if (plan.kind === 'refuse') return false;
  if (decision === 'done' && plan.via === 'record' && !holdsQuarantine(deps.world, record)) return false;
  if (plan.replay) {
    if (!(await resetLedger(deps.world, record))) return false;
    deps.sendReplay(record);
  }
  if (decision === 'done')
    await deps.world.ledger.completeByOperator(record.messageKey, deps.world.clock.date());
  record.status = VERIFIED_STATUS[decision];
  deps.decided.add(record.id);
  if (execution !== undefined && running) execution.status = 'SUCCEEDED';
  return true;
}

/** `pq resume`; false when refused (nothing is paused). */
export async function resumeConsumer(
  deps: OperatorDeps,
  pause: PauseModel,
  cooldownSeconds: number,
): Promise<boolean> {
  // A garbled item reads as unreadable: pq refuses until pq reset-breaker repairs it.
  if (deps.world.control.garbledBreaker !== undefined) return false;
  const stored = deps.world.control.breaker;
  if (decideBreakerAction(stored?.record, 'resume').kind === 'refuse') return false;
  if (stored === undefined || stored.record.state === 'closed') return false;
  deps.world.control.liftStops();
  deps.world.control.breaker = { ...stored, operatorAction: 'resume' };
  if (pause.answerWaiting()) return true;
  const { epoch, reason, stop } = stored.record;
  await deps.world.operations.startPause({ epoch, reason, stop, cooldownSeconds }, OPERATOR_PAUSE_RUNS);
  pause.tick();
  return true;
}

/** The condition of the CLI's own `done` (AttemptLedger.completeQuarantined). */
function holdsQuarantine(world: World, record: StoredRecord): boolean {
  const item = world.ledger.get(record.messageKey);
  return item?.quarantineId === record.id && (item.state === 'quarantined' || item.state === 'completed');
}

/** The replay's fresh budget; refused when the ledger no longer holds this quarantine. */
async function resetLedger(world: World, record: StoredRecord): Promise<boolean> {
  try {
    await world.ledger.resetForReplay(record.messageKey, {
      expectedState: 'quarantined',
      quarantineId: record.id,
      now: world.clock.date(),
    });
    return true;
  } catch (error) {
    if (error instanceof LedgerStateMismatchError) return false;
    throw error;
  }
}
