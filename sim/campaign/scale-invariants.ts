/**
 * What a scale schedule (scale.ts) must end with (issue 37): poison told apart from the healthy
 * messages beside it, whatever the batch shape, and the queue settled within its bound.
 */
import { DEFAULTS } from '../../contract/defaults';
import { timeMarginMs } from '../../lambdas/core/time-guard';
import type { CheckResult } from './check-result';
import type { Observation } from './run-schedule';
import { crashingScripts, isScaleSchedule, isStormSchedule, poisonsOf } from './scale';
import type { Schedule } from './schedule';
import type { Trace } from './trace';

/**
 * Rules 5 and 6 at scale: messages that crashed together never crash together again (a crash
 * after the message's first one has it alone in flight), each poison ends quarantined as
 * `crash-limit` (or `receive-limit`, its last receive come first), and every other message
 * completes, none of it charged but a message's own crash. Where a batch's work does not fit
 * the function timeout, the time guard hands records back unrun and each costs a receive: there
 * a healthy message may reach its last receive and be kept as `receive-limit`, uncharged, and a
 * poison, or a message that crashes once, may first crash on its last receive, which sends it to
 * the backstop (nothing could tell: the consumer warns of the cut, TIME_GUARD_CUT_LOG_EVENT).
 */
export function poisonsToldApart(observation: Observation): CheckResult {
  const { schedule, world, trace } = observation;
  if (!isScaleSchedule(schedule)) return { applicable: false, problems: [] };
  const problems = [...crashedTogetherAgain(trace)];
  const poisons = poisonsOf(schedule);
  const receiveLimitAllowed = !batchFitsTheTimeout(schedule);
  for (const message of schedule.messages) {
    const item = world.ledger.get(message.id);
    const record = [...world.quarantine.records.values()].find((each) => each.messageId === message.id);
    // Its first run came on its last receive, and crashed: only the time guard's cuts can have
    // spent its receives, and the backstop takes it (nothing could tell).
    const firstCrashOnItsLastReceive =
      receiveLimitAllowed &&
      crashingScripts(message) > 0 &&
      world.queue.backstop.some((backstopped) => backstopped.messageId === message.id) &&
      (item?.attempts ?? 0) <= 1;
    if (firstCrashOnItsLastReceive) continue;
    if (poisons.has(message.id)) {
      if (record?.reason !== 'crash-limit' && record?.reason !== 'receive-limit')
        problems.push(
          `poison ${message.id} ended ${record?.reason ?? item?.state ?? 'nowhere'}, not crash-limit`,
        );
      continue;
    }
    const keptUnrun = receiveLimitAllowed && record?.reason === 'receive-limit';
    if (item?.state !== 'completed' && !keptUnrun)
      problems.push(`${message.id} ended ${record?.reason ?? item?.state}`);
    const ownCrashes = crashingScripts(message);
    if (item !== undefined && item.charged > ownCrashes)
      problems.push(`${message.id} was charged ${item.charged}, its own crashes were ${ownCrashes}`);
  }
  return { applicable: true, problems };
}

/**
 * The bound docs/behaviour.md derives: after the first round through the queue, each poison
 * needs at most L + 2 + P of its receives (its first crash, shared or not, L crashes alone, the
 * delivery that quarantines it, and one receive for each other poison that crashed first in a
 * batch it shared), each at most a visibility timeout plus a batch's stagger after the one
 * before. Paused time (the mapping disabled or probing) is left out twice over, and a probe
 * window more per pause: a record a pause handed back in its last window comes back a doubled
 * cool-down and a window later, whenever the pause ended. Rule 7 pauses at most C - threshold
 * + 1 times for C messages that crash (poison or crashing once), since only a message's first
 * crash alone is an event and each trip needs a new one.
 */
export function settlesWithinBound(observation: Observation): CheckResult {
  const { schedule, trace } = observation;
  if (!isScaleSchedule(schedule) || !batchFitsTheTimeout(schedule) || trace.receives.length === 0)
    return { applicable: false, problems: [] };
  const problems: string[] = [];
  const first = trace.receives[0].at;
  const last = Math.max(...trace.receives.map((receive) => receive.at));
  const pauses = [...observation.world.operations.executions.values()].filter(
    (execution) => execution.input.kind === 'pause',
  ).length;
  const pausedSeconds = (2 * pausedMs(trace, first, last)) / 1000 + pauses * DEFAULTS.breakerProbeSeconds;
  const active = (last - first) / 1000 - pausedSeconds;
  const bound = settleBoundSeconds(schedule);
  if (active > bound)
    problems.push(
      `the queue took ${active.toFixed(1)} s of unpaused time to settle, its bound is ${bound} s`,
    );
  // Each trip needs the threshold's distinct keys in the window, the first its own; every
  // later one at least one new event (an earlier one may still be in the window). A message
  // that crashes, poison or crashing once, makes one event at most: its first crash alone.
  const crashing = schedule.messages.filter((message) =>
    message.scripts.flat().some((step) => step.do === 'crash'),
  );
  const allowed = Math.max(0, crashing.length - schedule.config.outageThreshold + 1);
  if (pauses > allowed)
    problems.push(`${pauses} pauses, at most ${allowed} for its ${crashing.length} crashing messages`);
  return { applicable: true, problems };
}

/** A whole batch, one record at a time (as in a trial), fits the function timeout with the time guard's margin. */
export function batchFitsTheTimeout(schedule: Schedule): boolean {
  const timeout = schedule.config.consumerTimeoutSeconds ?? DEFAULTS.consumerTimeoutSeconds;
  return schedule.config.batchSize * workSecondsOf(schedule) * 1000 + timeMarginMs(timeout) <= timeout * 1000;
}

function workSecondsOf({ messages }: Schedule): number {
  const steps = messages.flatMap((message) => message.scripts.flat());
  return Math.max(0, ...steps.map((step) => (step.do === 'work' ? step.ms : 0))) / 1000;
}

/** The bound in seconds: a first round through the queue, then L + 2 + P receives' time. */
export function settleBoundSeconds(schedule: Schedule): number {
  const { config, messages } = schedule;
  const timeout = config.consumerTimeoutSeconds ?? DEFAULTS.consumerTimeoutSeconds;
  const visibility = timeout * DEFAULTS.visibilityTimeoutFactor;
  const pollers = schedule.events.reduce((most, event) => (event.do === 'pollers' ? event.envs : most), 1);
  const workSeconds = workSecondsOf(schedule);
  // One poll a second per environment, each a batch worked one record at a time at worst.
  const firstRound =
    Math.ceil(messages.length / (pollers * config.batchSize)) * (1 + config.batchSize * workSeconds);
  const perReceive = visibility + config.batchSize * timeout;
  return Math.ceil(firstRound + (config.attemptLimit + 2 + poisonsOf(schedule).size) * perReceive);
}

/** A key that crashed before in its generation crashed again with others in flight. */
function crashedTogetherAgain(trace: Trace): string[] {
  const crashedBefore = new Set<string>();
  const problems: string[] = [];
  for (const attempt of trace.attempts.attempts) {
    const id = `${attempt.key}#${attempt.generation}`;
    if (attempt.crash === undefined) continue;
    if (attempt.crash.inFlight > 1 && crashedBefore.has(id))
      problems.push(`${attempt.key} crashed again with ${attempt.crash.inFlight - 1} other(s) in flight`);
    crashedBefore.add(id);
  }
  return problems;
}

/** Time in [from, to] during which the mapping was disabled or at its probe footprint. */
function pausedMs(trace: Trace, from: number, to: number): number {
  let paused = 0;
  let since: number | undefined;
  for (const change of trace.mapping) {
    if (!change.enabled && since === undefined) since = change.at;
    if (change.enabled && since !== undefined) {
      paused += Math.min(change.at, to) - Math.max(since, from);
      since = undefined;
    }
  }
  if (since !== undefined) paused += to - Math.max(since, from);
  return Math.max(0, paused);
}

/**
 * Rule 11b: a storm (scale.ts) quarantines far more than 20% of the messages any environment
 * sees, so automatic quarantine stops, for a person, at least once.
 */
export function stormStopsQuarantine({ schedule, world }: Observation): CheckResult {
  if (!isStormSchedule(schedule)) return { applicable: false, problems: [] };
  const stopped = [...world.operations.executions.values()].some(
    (execution) => execution.input.kind === 'pause' && execution.input.reason === 'quarantine-share',
  );
  return {
    applicable: true,
    problems: stopped ? [] : ['a storm of permanent failures never stopped automatic quarantine'],
  };
}
