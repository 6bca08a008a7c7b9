/**
 * Scale schedules (issue 37): tens to hundreds of messages, 1-10 of them poison (crashing the
 * parser on every attempt), placed adjacent and apart so that some share batches, a few that
 * crash once and then succeed, 1-10 environments polling at once, batch and in-flight counts of
 * 1-10 and a function timeout short enough that a batch of slow work meets its deadline. No
 * faults and no outages: what these schedules judge is whether poison is told apart from the
 * healthy messages beside it, whatever the batch shape.
 */
import type { Step } from '../world/scripted-processor';
import type { Draw } from './prng';
import type { CampaignConfig, MessageSpec, Schedule } from './schedule';

/** The label scale schedules give their messages: `s<n>`, so a report tells them from chaos ones. */
const LABEL = 's';
const CRASHES_THE_PARSER: readonly Step[] = [{ do: 'stage', name: 'parse' }, { do: 'crash' }];
/** Long enough for every crash to come back through its visibility timeout several times. */
const POLLING_SECONDS = 7_200;

export function scaleSchedule(draw: Draw, seed: number, scheduler: number): Schedule {
  const count = draw.weighted([
    [draw.int(20, 60), 6],
    [draw.int(61, 150), 3],
    [draw.int(151, 300), 1],
  ] as const);
  const poisons = placePoisons(draw, count, draw.int(1, Math.min(10, Math.floor(count / 3))));
  const crashOnce = new Set(
    Array.from({ length: draw.int(0, 3) }, () => draw.int(1, count)).filter((n) => !poisons.has(n)),
  );
  // Each a healthy message's work: none, or long enough that a batch of it meets the deadline.
  const workMs = draw.pick([0, 20, 200, 800]);
  const messages = Array.from({ length: count }, (_, index): MessageSpec => {
    const n = index + 1;
    const healthy: Step[] = [
      { do: 'stage', name: 'work' },
      { do: 'work', ms: workMs },
    ];
    const scripts = poisons.has(n)
      ? [CRASHES_THE_PARSER]
      : crashOnce.has(n)
        ? [CRASHES_THE_PARSER, healthy]
        : [healthy];
    return { id: `${LABEL}${n}`, body: `${LABEL}${n}`, scripts };
  });
  const environments = draw.int(1, 10);
  return {
    seed,
    scheduler,
    config: scaleConfig(draw),
    messages,
    events: [{ do: 'pollers', envs: environments, seconds: POLLING_SECONDS }],
    answers: [],
  };
}

function scaleConfig(draw: Draw): CampaignConfig {
  return {
    attemptLimit: draw.int(2, 4),
    concurrency: draw.int(1, 10),
    batchSize: draw.int(1, 10),
    isolationTrialMessages: draw.pick([1, 5, 20]),
    outageThreshold: draw.int(2, 4),
    transientRetries: draw.int(0, 3),
    cooldownSeconds: draw.pick([10, 30, 60]),
    consumerTimeoutSeconds: draw.pick([3, 6, 10, 30]),
  };
}

/** Message numbers of the poisons: each next to the one before (sharing its batches) or anywhere. */
function placePoisons(draw: Draw, count: number, poisons: number): Set<number> {
  const placed = new Set<number>();
  let previous = 0;
  while (placed.size < poisons) {
    const adjacent = previous > 0 && previous < count && !placed.has(previous + 1) && draw.chance(0.5);
    const next = adjacent ? previous + 1 : draw.int(1, count);
    if (placed.has(next)) continue;
    placed.add(next);
    previous = next;
  }
  return placed;
}

/** The scripts of a message that crash its worker: its own crashes, one per attempt. */
export function crashingScripts(message: MessageSpec): number {
  return message.scripts.filter(crashes).length;
}

const crashes = (script: readonly Step[]) => script.some((step) => step.do === 'crash');

/** A schedule's poisons: the messages every attempt of which crashes. */
export function poisonsOf(schedule: Schedule): ReadonlySet<string> {
  return new Set(
    schedule.messages
      // A message with no script completes at once (a shrunk schedule's): every() would say poison.
      .filter((message) => message.scripts.length > 0 && message.scripts.every(crashes))
      .map((message) => message.id),
  );
}

/** A scale schedule: its pollers and nothing else happen to the world, and nothing throws. */
export function isScaleSchedule(schedule: Schedule): boolean {
  return pollersOnly(schedule) && !schedule.messages.some(throwsPermanent);
}

/**
 * A storm (rule 11b): a release that fails a large share of the messages with a permanent
 * error, each quarantined at once; automatic quarantine must stop for a person to look.
 */
export function stormSchedule(draw: Draw, seed: number, scheduler: number): Schedule {
  const count = draw.int(30, 60);
  const failing = draw.pick([0.4, 0.6, 0.8]);
  const messages = Array.from({ length: count }, (_, index): MessageSpec => {
    const scripts: Step[][] = draw.chance(failing)
      ? [
          [
            { do: 'stage', name: 'validate' },
            { do: 'throw', error: 'permanent' },
          ],
        ]
      : [[{ do: 'stage', name: 'work' }]];
    return { id: `${LABEL}${index + 1}`, body: `${LABEL}${index + 1}`, scripts };
  });
  return {
    seed,
    scheduler,
    config: { ...scaleConfig(draw), concurrency: draw.int(1, 4), consumerTimeoutSeconds: 30 },
    messages,
    events: [{ do: 'pollers', envs: draw.int(1, 2), seconds: POLLING_SECONDS }],
    answers: [],
  };
}

/** A storm schedule: pollers only, and at least a third of its messages fail permanently. */
export function isStormSchedule(schedule: Schedule): boolean {
  const failing = schedule.messages.filter(throwsPermanent).length;
  return pollersOnly(schedule) && failing * 3 >= schedule.messages.length && schedule.messages.length >= 30;
}

function pollersOnly(schedule: Schedule): boolean {
  return schedule.events.length === 1 && schedule.events[0].do === 'pollers';
}

function throwsPermanent(message: MessageSpec): boolean {
  return message.scripts.some((script) =>
    script.some((step) => step.do === 'throw' && step.error === 'permanent'),
  );
}
