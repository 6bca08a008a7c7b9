/**
 * Rule 7, runtime side: failure events (transient errors, crashes) are written to the control
 * table; when distinct keys pile up inside the window, the breaker trips once (a conditional
 * write picks one winner) and the winner starts the state machine's pause path, named by the
 * breaker epoch so a retry cannot start a second pause. Rule 11 stops use the same path with
 * `stop`: no automatic resume.
 */
import { BREAKER_STATE, type PauseReason } from '../../contract/control';
import { pauseWaitsForOperator } from '../core/breaker';
import { evaluateOutage, type FailureEvent } from '../core/outage';
import type { ConsumerDeps } from './deps';
import type { RecordSession } from './record-outcome';
import type { UnrecordedFailures } from './unrecorded-failures';

/**
 * Records one failure event and judges the window; returns true when consumption is (now)
 * paused. A breaker another environment opened since this batch read it is not written to
 * again, nor is the event: it would change nothing the table says, and at 1,000 environments
 * those writes fill a partition (docs/scale.md). The verdict is the same either way: the event
 * in hand counts as if read back. A failed fresh read says nothing: the event is then written and
 * the breaker tripped as if closed, the conditional write deciding as ever. The same read gives
 * the isolation trial's last pass, before which a crash no longer counts (core/outage.ts), as
 * it does before a completion this environment saw itself.
 */
export async function reportFailureEvent(
  deps: ConsumerDeps,
  session: Pick<RecordSession, 'unrecorded' | 'controlNow' | 'lastCompletedAt'>,
  event: { readonly key: string; readonly kind: 'transient' | 'crash' },
): Promise<boolean> {
  const now = deps.now();
  const inHand: FailureEvent = { key: event.key, at: now.getTime(), kind: event.kind };
  const snapshot = await session.controlNow().catch(() => undefined);
  const lastPassAt = latest(snapshot?.isolation?.lastPassAt, session.lastCompletedAt());
  if (snapshot?.breaker?.state === BREAKER_STATE.open) {
    return (await judgeWindow(deps, session.unrecorded, now, [inHand], lastPassAt)).trip;
  }
  try {
    await deps.control.recordFailureEvent({
      key: event.key,
      kind: event.kind,
      at: now,
      eventId: deps.newId(),
      expiresAt: Math.floor(now.getTime() / 1000) + deps.config.policy.outageWindowSeconds * 10,
    });
  } catch (error) {
    // Still evidence: the next event this environment judges counts it. The record goes back.
    session.unrecorded.remember(inHand);
    throw error;
  }
  const verdict = await judgeWindow(deps, session.unrecorded, now, [], lastPassAt);
  if (!verdict.trip) return false;
  deps.logger.warn('outage suspected: pausing consumption', {
    event: 'outage-detected',
    distinctKeys: verdict.distinctKeys.length,
  });
  await pauseConsumption(deps, 'outage');
  return true;
}

/**
 * Rule 7's verdict over the window as recorded, this environment's unrecorded events and `inHand`;
 * a crash before the trial's last pass no longer counts (core/outage.ts).
 */
async function judgeWindow(
  deps: ConsumerDeps,
  unrecorded: UnrecordedFailures,
  now: Date,
  inHand: readonly FailureEvent[],
  lastPassAt: number | undefined,
) {
  const { policy } = deps.config;
  const since = now.getTime() - policy.outageWindowSeconds * 1000;
  const recorded = await deps.control.failuresSince(
    new Date(since),
    policy.outageFailureThreshold,
    lastPassAt,
  );
  const events = [...recorded, ...unrecorded.since(since), ...inHand];
  return evaluateOutage(events, now.getTime(), policy, lastPassAt);
}

/** The later of two optional times. */
function latest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}

/** Trips the breaker and, if this call won, starts the pause execution; returns the breaker's epoch. */
export async function pauseConsumption(deps: ConsumerDeps, reason: PauseReason): Promise<number> {
  const stop = pauseWaitsForOperator(reason);
  const tripped = await deps.control.tripBreaker({ reason, now: deps.now(), stop });
  if (!tripped.tripped) return tripped.epoch;
  deps.logger.warn('consumption paused', { event: 'paused', reason, stop, epoch: tripped.epoch });
  try {
    await keepPauseAlive(deps, { epoch: tripped.epoch, reason, stop });
  } catch (error) {
    // The breaker is open, which is the pause: the run that drives it back is restarted by the
    // next batch that finds it open (or by pq resume). Failing here would leave the attempt
    // that tripped it unsettled, to be taken for a crash and charged.
    deps.logger.error('the pause execution could not be started', {
      event: 'pause-unstarted',
      epoch: tripped.epoch,
      error: error as Error,
    });
  }
  return tripped.epoch;
}

/**
 * An open breaker must always have a pause execution driving it back (or waiting for an
 * operator): the trip and the start are two calls, and a run can fail later. Whoever sees the
 * breaker open makes sure one run of its epoch is alive (idempotent names, see Operations).
 */
export async function keepPauseAlive(
  deps: ConsumerDeps,
  pause: { readonly epoch: number; readonly reason: string; readonly stop: boolean },
  restart: { readonly cooldownSeconds: number; readonly maxCooldownSeconds: number } = deps.config
    .breakerTimings,
): Promise<void> {
  const { epoch, reason, stop } = pause;
  await deps.operations.startPause({ epoch, reason, stop, ...deps.config.breakerTimings, ...restart });
}
