/**
 * What a schedule's messages do and what goes wrong around them, drawn for the chaos profile of
 * both sources (generate.ts for SQS, kafka-schedule.ts for Kafka): the consumer's settings, each
 * attempt's script (stages, declared calls and their results, caught errors, crashes, slow work),
 * SDK faults at the named points and outages. The draws are the ones generate.ts always made, in
 * the same order, so a seed's SQS schedule is what it was.
 */
import { FAULT_POINTS, type FaultKind, type FaultPoint } from '../faults/fault-points';
import type { Step } from '../world/scripted-processor';
import type { Draw } from './prng';
import type { CampaignConfig, CampaignEvent, Decision } from './schedule';
import type { Swarm } from './swarm';

export const KEY_PATH = 'order.id';
const KEYLESS_CALLS = ['pay', 'mail'];
const KEYED_CALLS = ['book', 'ship'];
/** Bodies whose bytes an operator must get back exactly: accents, emoji, tabs, CRLF, spaces. */
export const TEXTS = [
  'café ✓',
  'naïve 🚀',
  'tab\there',
  'crlf\r\n',
  '  padded  ',
  '"quoted" \\ slash',
  'plain',
];
export const DECISIONS: readonly Decision[] = ['done', 'not-done', 'discard'];

export function drawConfig(draw: Draw): CampaignConfig {
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

export function chaosScripts(draw: Draw, swarm: Swarm): Step[][] {
  if (draw.chance(0.35)) return [healthyScript(draw, false)];
  return Array.from({ length: draw.int(1, 3) }, () =>
    draw.chance(0.2) ? twoCalls(draw, swarm) : chaosScript(draw, swarm),
  );
}

/** Stages and calls that all succeed; with `withCall`, at least one call to the outside system. */
export function healthyScript(draw: Draw, withCall: boolean): Step[] {
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

/** A fault at one of `points` (every named one by default), sometimes aimed at one message's key. */
export function drawFault(
  draw: Draw,
  swarm: Swarm,
  messages: number,
  points: readonly FaultPoint[] = FAULT_POINTS,
): CampaignEvent {
  const point = draw.weighted(
    swarm.weigh(
      'fault point',
      points.map((name) => [name, HEAVY_POINTS.has(name) ? 3 : 1] as const),
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

export function drawOutage(draw: Draw, durations: readonly number[]): CampaignEvent {
  const seconds = draw.pick(durations);
  return draw.chance(1 / 3)
    ? { do: 'table-outage', seconds }
    : { do: 'outside-outage', mode: draw.chance(0.5) ? 'refused' : 'hanging', seconds };
}
