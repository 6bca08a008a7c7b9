/**
 * Seeded random schedules. Two profiles: "chaos" (any script, SDK faults at every named point,
 * crashes, duplicates, redeploys, operator actions, short outages) and "outage-only" (healthy
 * work, one long outage of the outside system or of our attempts table, many polls), the
 * precondition of the outage invariants. Weights lean toward the shapes that break consumers:
 * two declared calls in one attempt, faults on the writes around an external call, concurrent
 * crashes, long outages polled through. Each schedule scales those weights by its own swarm
 * (swarm.ts): trouble of each kind, from none to dominant. Each also draws the seed of the order
 * in which the world resumes ready awaits (`scheduler`). About one in twelve is a scale schedule
 * instead (scale.ts): hundreds of messages, several of them poison, several environments; and
 * about one in six of the others reads a Kafka topic (kafka-schedule.ts).
 */
import { kafkaSchedule } from './kafka-schedule';
import { Draw, mulberry32 } from './prng';
import { scaleSchedule, stormSchedule } from './scale';
import type { CampaignConfig, CampaignEvent, MessageSpec, Schedule } from './schedule';
import { chaosScripts, DECISIONS, drawConfig, drawFault, drawOutage, healthyScript, TEXTS } from './scripts';
import { Swarm } from './swarm';

/** About one schedule in this many is a scale schedule (scale.ts). */
const SCALE_ONE_IN = 12;
/** The scale choice has a generator of its own: every other schedule keeps the draws it had. */
const SCALE_SALT = 0x5ca1e;
/** About one schedule in this many, of those not at scale, reads a Kafka topic (kafka-schedule.ts). */
const KAFKA_ONE_IN = 6;
/** So has the Kafka choice: the SQS schedules it leaves are the ones the seed always gave. */
const KAFKA_SALT = 0x4afca;

export function generateSchedule(seed: number): Schedule {
  const draw = new Draw(mulberry32(seed));
  const scheduler = draw.int(0, 0xffff_ffff);
  const scale = new Draw(mulberry32(seed ^ SCALE_SALT));
  if (scale.int(1, SCALE_ONE_IN) === 1)
    return scale.chance(0.35) ? stormSchedule(scale, seed, scheduler) : scaleSchedule(scale, seed, scheduler);
  const kafka = new Draw(mulberry32(seed ^ KAFKA_SALT));
  if (kafka.int(1, KAFKA_ONE_IN) === 1) return kafkaSchedule(kafka, seed, scheduler);
  const swarm = new Swarm(draw);
  const outageOnly = draw.chance(0.3);
  const config = drawConfig(draw);
  const messages = drawMessages(draw, swarm, config, outageOnly);
  const events = outageOnly ? outageEvents(draw) : chaosEvents(draw, swarm, config, messages.length);
  const answers = Array.from({ length: draw.int(1, 3) }, () => draw.pick(DECISIONS));
  return { seed, scheduler, config, messages, events, answers };
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

function chaosEvents(draw: Draw, swarm: Swarm, config: CampaignConfig, messages: number): CampaignEvent[] {
  return Array.from({ length: draw.int(4, 30) }, () => chaosEvent(draw, swarm, config, messages));
}

type ChaosKind =
  | Exclude<
      CampaignEvent['do'],
      'table-outage' | 'outside-outage' | 'poll-many' | 'pollers' | 'poll-partitions' | 'rebalance'
    >
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
