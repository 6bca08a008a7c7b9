/**
 * Seeded random schedules. Two profiles: "chaos" (any script, SDK faults at every named point,
 * crashes, duplicates, redeploys, operator actions, short outages) and "outage-only" (healthy
 * work, one long outage of the outside system or of our attempts table, many polls), the
 * precondition of the outage invariants. Weights lean toward the shapes that break consumers:
 * two declared calls in one attempt, faults on the writes around an external call, concurrent
 * crashes, long outages polled through. Each schedule scales those weights by its own swarm
 * (swarm.ts): trouble of each kind, from none to dominant. Each also draws the seed of the order
 * in which the world resumes ready awaits (`scheduler`). About one in twelve is a scale schedule
 * instead (scale.ts): hundreds of messages, several of them poison, several environments.
 */
import { FAULT_POINTS, type FaultKind, type FaultPoint } from '../faults/fault-points';
import type { Step } from '../world/scripted-processor';
import { Draw, mulberry32 } from './prng';
import { scaleSchedule, stormSchedule } from './scale';
import type { CampaignConfig, CampaignEvent, Decision, MessageSpec, Schedule } from './schedule';
import { Swarm } from './swarm';

const KEY_PATH = 'order.id';
const KEYLESS_CALLS = ['pay', 'mail'];
const KEYED_CALLS = ['book', 'ship'];
/** Bodies whose bytes an operator must get back exactly: accents, emoji, tabs, CRLF, spaces. */
const TEXTS = ['café ✓', 'naïve 🚀', 'tab\there', 'crlf\r\n', '  padded  ', '"quoted" \\ slash', 'plain'];
const DECISIONS: readonly Decision[] = ['done', 'not-done', 'discard'];

/** About one schedule in this many is a scale schedule (scale.ts). */
const SCALE_ONE_IN = 12;
/** The scale choice has a generator of its own: every other schedule keeps the draws it had. */
const SCALE_SALT = 0x5ca1e;

export function generateSchedule(seed: number): Schedule {
  const draw = new Draw(mulberry32(seed));
  const scheduler = draw.int(0, 0xffff_ffff);
  const scale = new Draw(mulberry32(seed ^ SCALE_SALT));
  if (scale.int(1, SCALE_ONE_IN) === 1)
    return scale.chance(0.35) ? stormSchedule(scale, seed, scheduler) : scaleSchedule(scale, seed, scheduler);
  const swarm = new Swarm(draw);
  const outageOnly = draw.chance(0.3);
  const config = drawConfig(draw);
  const messages = drawMessages(draw, swarm, config, outageOnly);
  const events = outageOnly ? outageEvents(draw) : chaosEvents(draw, swarm, config, messages.length);
  const answers = Array.from({ length: draw.int(1, 3) }, () => draw.pick(DECISIONS));
  return { seed, scheduler, config, messages, events, answers };
}

function drawConfig(draw: Draw): CampaignConfig {
  return {
    attemptLimit: draw.int(1, 5),
    concurrency: draw.weighted([
      [1, 3],
      [2, 3],
      [3, 2],
      [4, 2],
    ]),
    batchSize: draw.int(1, 10),
    isolationTrialMessages: draw.int(1, 4),
    outageThreshold: draw.int(2, 4),
    transientRetries: draw.int(0, 3),
    cooldownSeconds: draw.pick([10, 30, 60, 120]),
    ...(draw.chance(0.3) ? { messageKeyPath: KEY_PATH } : {}),
  };
}

function drawMessages(draw: Draw, swarm: Swarm, config: CampaignConfig, outageOnly: boolean): MessageSpec[] {
  const count = outageOnly ? draw.int(3, 8) : draw.int(2, 8);
  const keys: string[] = [];
  return Array.from({ length: count }, (_, index) => {
    const text = `M${index + 1} ${draw.pick(TEXTS)}`;
    let body = text;
    if (config.messageKeyPath !== undefined) {
      // Distinct messages sometimes share a business key (rule 13 makes the later one a duplicate).
      const shared = !outageOnly && keys.length > 0 && draw.chance(0.25);
      const key = shared ? draw.pick(keys) : `order-${index + 1}`;
      keys.push(key);
      body = draw.chance(0.05)
        ? `{"order":{}, "note":${JSON.stringify(text)}}`
        : JSON.stringify({ order: { id: key }, note: text });
    }
    const scripts = outageOnly ? [healthyScript(draw, true)] : chaosScripts(draw, swarm);
    return { id: `m${index + 1}`, body, scripts };
  });
}

function chaosScripts(draw: Draw, swarm: Swarm): Step[][] {
  if (draw.chance(0.35)) return [healthyScript(draw, false)];
  return Array.from({ length: draw.int(1, 3) }, () =>
    draw.chance(0.2) ? twoCalls(draw, swarm) : chaosScript(draw, swarm),
  );
}

/** Stages and calls that all succeed; with `withCall`, at least one call to the outside system. */
function healthyScript(draw: Draw, withCall: boolean): Step[] {
  const steps: Step[] = [];
  for (let index = draw.int(withCall ? 1 : 0, 3); index > 0; index--) {
    steps.push(draw.chance(0.3) ? { do: 'stage', name: 'parse' } : call(draw, draw.chance(0.6), 'ok', steps));
  }
  if (withCall && !steps.some((step) => step.do === 'external')) steps.push(call(draw, true, 'ok', steps));
  return steps;
}

/** Two declared calls in one attempt: the first answered, the second anything. */
function twoCalls(draw: Draw, swarm: Swarm): Step[] {
  const steps: Step[] = [];
  steps.push(call(draw, true, 'ok', steps));
  steps.push(call(draw, draw.chance(0.4), drawResult(draw, swarm), steps));
  if (draw.chance(0.3)) steps.push(terminalStep(draw, swarm));
  return steps;
}

function chaosScript(draw: Draw, swarm: Swarm): Step[] {
  const steps: Step[] = [];
  for (let index = draw.int(0, 4); index > 0; index--) {
    const kind = draw.weighted([
      ['stage', 3],
      ['keyless', 3],
      ['keyed', 2],
      ['end', 3],
      ...swarm.weigh('step', [['work', 1]] as const),
    ] as const);
    if (kind === 'stage') steps.push({ do: 'stage', name: draw.pick(['parse', 'validate', 'persist']) });
    if (kind === 'keyless' || kind === 'keyed')
      steps.push(call(draw, kind === 'keyless', drawResult(draw, swarm), steps));
    if (kind === 'work') steps.push({ do: 'work', ms: draw.chance(0.25) ? 31_000 : draw.int(100, 3000) });
    if (kind === 'end') {
      steps.push(terminalStep(draw, swarm));
      break;
    }
  }
  return steps;
}

function terminalStep(draw: Draw, swarm: Swarm): Step {
  const ending = draw.weighted(
    swarm.weigh('ending', [
      ['crash', 3],
      ['transient', 2.8],
      ['permanent', 1.4],
      ['unknown', 2.8],
    ] as const),
  );
  return ending === 'crash' ? { do: 'crash' } : { do: 'throw', error: ending };
}

/** A declared call whose name no earlier step of the attempt used (one call per name). */
function call(
  draw: Draw,
  keyless: boolean,
  result: Extract<Step, { do: 'external' }>['result'],
  steps: Step[],
): Step {
  const used = new Set(steps.flatMap((step) => (step.do === 'external' ? [step.name] : [])));
  const names = (keyless ? KEYLESS_CALLS : KEYED_CALLS).filter((name) => !used.has(name));
  const name = names.length > 0 ? draw.pick(names) : `${keyless ? 'pay' : 'book'}-${steps.length}`;
  return keyless
    ? { do: 'external', name, result }
    : { do: 'external', name, idempotencyKey: `${name}-idem`, result };
}

function drawResult(draw: Draw, swarm: Swarm): Extract<Step, { do: 'external' }>['result'] {
  return draw.weighted([
    ['ok', 6],
    ...swarm.weigh('call result', [
      ['refused', 1],
      ['timeout', 1],
      ['crash-during', 1],
      ['crash-after', 1],
    ] as const),
  ]);
}

function chaosEvents(draw: Draw, swarm: Swarm, config: CampaignConfig, messages: number): CampaignEvent[] {
  return Array.from({ length: draw.int(4, 30) }, () => chaosEvent(draw, swarm, config, messages));
}

type ChaosKind =
  | Exclude<CampaignEvent['do'], 'table-outage' | 'outside-outage' | 'poll-many' | 'pollers'>
  | 'outage';

function chaosEvent(draw: Draw, swarm: Swarm, config: CampaignConfig, messages: number): CampaignEvent {
  const slot = () => draw.int(0, 2);
  switch (
    draw.weighted<ChaosKind>([
      ['poll', 8],
      ['poll-pair', 3],
      ['expire', 4],
      ['advance', 1],
      ...swarm.weigh('event', [
        ['fault', 4],
        ['outage', 1],
        ['duplicate', 1],
        ['redeploy', 0.5],
        ['replay', 0.8],
        ['answer', 0.8],
        ['resume', 0.3],
        ['kill-verification', 0.5],
        ['kill-pause', 0.5],
        ['pause-runs-fail', 0.4],
      ] as const),
    ])
  ) {
    case 'poll':
      return { do: 'poll', env: slot() };
    case 'poll-pair':
      return { do: 'poll-pair', envs: [slot(), slot()] };
    case 'expire':
      return { do: 'expire' };
    case 'advance':
      return { do: 'advance', seconds: draw.pick([1, 5, 30, 61, 200, 900]) };
    case 'fault':
      return drawFault(draw, swarm, messages);
    case 'outage':
      return drawOutage(draw, [30, 120, 600]);
    case 'duplicate':
      return { do: 'duplicate', message: draw.int(0, messages - 1) };
    case 'redeploy':
      // Mostly lower: a limit lowered under a message's charges is the interesting change.
      return { do: 'redeploy', attemptLimit: draw.int(1, Math.max(1, config.attemptLimit - 1)) };
    case 'replay':
      return draw.chance(0.3) ? { do: 'replay', withoutCause: true } : { do: 'replay' };
    case 'answer':
      return { do: 'answer', decision: draw.pick(DECISIONS) };
    case 'resume':
      return { do: 'resume' };
    case 'kill-verification':
      return { do: 'kill-verification' };
    case 'kill-pause':
      return { do: 'kill-pause' };
    case 'pause-runs-fail':
      return {
        do: 'pause-runs-fail',
        seconds: draw.pick([30, 120, 600]),
        at: draw.chance(0.5) ? 'before-disable' : 'after-disable',
      };
  }
}

/** Points around the calls whose failure is subtle weigh more than the rest. */
const HEAVY_POINTS: ReadonlySet<FaultPoint> = new Set([
  'ledger.start',
  'ledger.recordExternal:pending',
  'ledger.recordExternal:done',
  'ledger.complete',
  'ledger.recordFailure',
  'ledger.beginQuarantine',
  'ledger.markQuarantined',
  'quarantine.putRecord',
  'operations.startPause',
  'operations.startOutcomeUnknown',
]);
const KEYED_POINTS = (point: FaultPoint) =>
  (point.startsWith('ledger.') && point !== 'ledger.inFlightKeysOf') ||
  point === 'quarantine.putRecord' ||
  point === 'operations.startOutcomeUnknown';

function drawFault(draw: Draw, swarm: Swarm, messages: number): CampaignEvent {
  const point = draw.weighted(
    swarm.weigh(
      'fault point',
      FAULT_POINTS.map((name) => [name, HEAVY_POINTS.has(name) ? 3 : 1] as const),
    ),
  );
  const kind = draw.weighted<FaultKind>(
    swarm.weigh('fault kind', [
      ['throttle', 3],
      ['server-error', 1],
      ['access-denied', 1],
      ['timeout-after-send', 2],
      ['crash', 2],
      ['crash-after-send', 1],
    ] as const),
  );
  const aimed = KEYED_POINTS(point) && draw.chance(0.5);
  return {
    do: 'fault',
    point,
    kind,
    times: draw.int(1, 3),
    ...(aimed ? { message: draw.int(0, messages - 1) } : {}),
  };
}

function drawOutage(draw: Draw, durations: readonly number[]): CampaignEvent {
  const seconds = draw.pick(durations);
  return draw.chance(1 / 3)
    ? { do: 'table-outage', seconds }
    : { do: 'outside-outage', mode: draw.chance(0.5) ? 'refused' : 'hanging', seconds };
}

/** A few polls, one long outage, then many polls through it (the mapping keeps polling). */
function outageEvents(draw: Draw): CampaignEvent[] {
  const before = Array.from({ length: draw.int(0, 2) }, (): CampaignEvent => ({ do: 'poll', env: 0 }));
  const during = Array.from({ length: draw.int(8, 40) }, () => pollThrough(draw));
  return [...before, drawOutage(draw, [120, 600, 1800, 3600]), ...during];
}

function pollThrough(draw: Draw): CampaignEvent {
  switch (
    draw.weighted([
      ['poll', 5],
      ['poll-pair', 2],
      ['expire', 4],
      ['advance', 1],
    ] as const)
  ) {
    case 'poll':
      return { do: 'poll', env: draw.int(0, 1) };
    case 'poll-pair':
      return { do: 'poll-pair', envs: [0, 1] };
    case 'expire':
      return { do: 'expire' };
    case 'advance':
      return { do: 'advance', seconds: draw.int(1, 120) };
  }
}
