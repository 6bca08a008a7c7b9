/**
 * Greedy delta debugging: try smaller schedules (chunks of events, whole messages, attempts,
 * steps, then simpler settings) and keep each one on which the same invariant still fails,
 * until nothing smaller fails or the run budget is spent. Every candidate is a valid schedule,
 * so what comes out replays as it is.
 */
import type { InvariantName } from './invariants';
import type { CampaignEvent, Schedule } from './schedule';

/** Runs a candidate; the invariant's first problem if it fails there, else undefined. */
export type Probe = (schedule: Schedule) => Promise<string | undefined>;

export interface Shrunk {
  readonly schedule: Schedule;
  readonly detail: string;
  readonly runs: number;
}

export async function shrink(
  schedule: Schedule,
  detail: string,
  probe: Probe,
  budget = 500,
): Promise<Shrunk> {
  let current = { schedule, detail };
  let runs = 0;
  let progress = true;
  while (progress && runs < budget) {
    progress = false;
    for (const candidate of smaller(current.schedule)) {
      if (runs >= budget) break;
      runs += 1;
      const failed = await probe(candidate);
      if (failed !== undefined) {
        current = { schedule: candidate, detail: failed };
        progress = true;
        break;
      }
    }
  }
  return { ...current, runs };
}

/** A probe that fails when `invariant` fails on the candidate; errors count as not failing. */
export function probeFor(
  invariant: InvariantName,
  check: (schedule: Schedule) => Promise<readonly { invariant: string; problems: readonly string[] }[]>,
): Probe {
  return async (schedule) => {
    try {
      return (await check(schedule)).find((verdict) => verdict.invariant === invariant)?.problems[0];
    } catch {
      return undefined;
    }
  };
}

/** Candidates, biggest cuts first. */
function* smaller(schedule: Schedule): Generator<Schedule> {
  const { events, messages } = schedule;
  for (let size = Math.max(1, events.length >> 1); size >= 1; size = size === 1 ? 0 : size >> 1) {
    for (let start = 0; start < events.length; start += size) {
      yield { ...schedule, events: [...events.slice(0, start), ...events.slice(start + size)] };
    }
  }
  for (let index = 0; index < messages.length; index++) {
    if (messages.length > 1) yield withoutMessage(schedule, index);
  }
  for (const [index, message] of messages.entries()) {
    for (let attempt = 0; attempt < message.scripts.length; attempt++) {
      const scripts = message.scripts.filter((_, other) => other !== attempt);
      yield withMessage(schedule, index, { ...message, scripts });
    }
    for (const [attempt, script] of message.scripts.entries()) {
      for (let step = 0; step < script.length; step++) {
        const scripts = message.scripts.map((s, other) =>
          other === attempt ? s.filter((_, k) => k !== step) : s,
        );
        yield withMessage(schedule, index, { ...message, scripts });
      }
    }
  }
  yield* simpler(schedule);
}

/** Settings and event parameters toward their simplest values. */
function* simpler(schedule: Schedule): Generator<Schedule> {
  const { config } = schedule;
  const settings: Partial<Record<keyof typeof config, number>> = {
    concurrency: 1,
    batchSize: 1,
    isolationTrialMessages: 1,
    transientRetries: 0,
  };
  for (const [name, value] of Object.entries(settings)) {
    if (config[name as keyof typeof config] !== value)
      yield { ...schedule, config: { ...config, [name]: value } };
  }
  if (config.messageKeyPath !== undefined) {
    const { messageKeyPath: _path, ...rest } = config;
    yield { ...schedule, config: rest };
  }
  if (schedule.answers.length > 1) yield { ...schedule, answers: schedule.answers.slice(0, 1) };
  for (const [index, event] of schedule.events.entries()) {
    const simplified = simplerEvent(event);
    if (simplified !== undefined) {
      yield { ...schedule, events: schedule.events.map((e, other) => (other === index ? simplified : e)) };
    }
  }
}

function simplerEvent(event: CampaignEvent): CampaignEvent | undefined {
  if (event.do === 'fault' && event.times > 1) return { ...event, times: 1 };
  if (event.do === 'poll-pair') return { do: 'poll', env: event.envs[0] };
  if (event.do === 'poll-many' && event.envs.length > 1) return { ...event, envs: event.envs.slice(0, -1) };
  if (event.do === 'pollers' && event.envs > 1) return { ...event, envs: event.envs - 1 };
  if (event.do === 'poll-partitions' && event.invocations.length > 1)
    return { ...event, invocations: event.invocations.slice(0, -1) };
  if (event.do === 'rebalance' && event.afterMs > 0) return { ...event, afterMs: 0 };
  if ((event.do === 'outside-outage' || event.do === 'table-outage') && event.seconds > 60) {
    return { ...event, seconds: Math.floor(event.seconds / 2) };
  }
  return undefined;
}

function withMessage(schedule: Schedule, index: number, message: Schedule['messages'][number]): Schedule {
  return { ...schedule, messages: schedule.messages.map((m, other) => (other === index ? message : m)) };
}

/** Drops a message and the events that name it; later indexes move down by one. */
function withoutMessage(schedule: Schedule, index: number): Schedule {
  const events = schedule.events.flatMap((event): CampaignEvent[] => {
    if (event.do !== 'duplicate' && !(event.do === 'fault' && event.message !== undefined)) return [event];
    const named = event.message as number;
    if (named === index) return [];
    return [{ ...event, message: named > index ? named - 1 : named }];
  });
  return { ...schedule, messages: schedule.messages.filter((_, other) => other !== index), events };
}
