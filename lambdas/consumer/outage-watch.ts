/**
 * Rule 7, runtime side: failure events (transient errors, crashes) are written to the control
 * table; when distinct keys pile up inside the window, the breaker trips once (a conditional
 * write picks one winner) and the winner starts the state machine's pause path, named by the
 * breaker epoch so a retry cannot start a second pause. Rule 11 stops use the same path with
 * `stop`: no automatic resume.
 */
import type { PauseReason } from '../../contract/control';
import { pauseWaitsForOperator } from '../core/breaker';
import { evaluateOutage } from '../core/outage';
import type { ConsumerDeps } from './deps';
import type { UnrecordedFailures } from './unrecorded-failures';

/** Records one failure event; returns true when consumption is (now) paused. */
export async function reportFailureEvent(
  deps: ConsumerDeps,
  unrecorded: UnrecordedFailures,
  event: { readonly key: string; readonly kind: 'transient' | 'crash' },
): Promise<boolean> {
  const now = deps.now();
  const { policy } = deps.config;
  try {
    await deps.control.recordFailureEvent({
      key: event.key,
      kind: event.kind,
      at: now,
      eventId: deps.newId(),
      expiresAt: Math.floor(now.getTime() / 1000) + policy.outageWindowSeconds * 10,
    });
  } catch (error) {
    // Still evidence: the next event this environment judges counts it. The record goes back.
    unrecorded.remember({ key: event.key, at: now.getTime() });
    throw error;
  }
  const since = now.getTime() - policy.outageWindowSeconds * 1000;
  const recorded = await deps.control.failuresSince(new Date(since), policy.outageFailureThreshold);
  const verdict = evaluateOutage([...recorded, ...unrecorded.since(since)], now.getTime(), policy);
  if (!verdict.trip) return false;
  deps.logger.warn('outage suspected: pausing consumption', {
    event: 'outage-detected',
    distinctKeys: verdict.distinctKeys.length,
  });
  await pauseConsumption(deps, 'outage');
  return true;
}

/** Trips the breaker and, if this call won, starts the pause execution. */
export async function pauseConsumption(deps: ConsumerDeps, reason: PauseReason): Promise<void> {
  const stop = pauseWaitsForOperator(reason);
  const tripped = await deps.control.tripBreaker({ reason, now: deps.now(), stop });
  if (!tripped.tripped) return;
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
