/**
 * Kafka schedules (issue 38): the consumer reads a topic of 1-4 partitions through Lambda's Kafka
 * mapping (kafka-polls.ts plays it). Records are produced to partitions: values that are text (a
 * business key in JSON, as for SQS) or no UTF-8 at all (a corrupted protobuf), with or without a
 * key and headers. Polls invoke one environment per partition, now and then one payload of several
 * partitions (Lambda may send one), and rebalances hand a partition to a second environment while
 * the first may still run its records. Scripts, faults, outages, redeploys and operator actions
 * are the chaos and outage-only profiles of the SQS schedules (scripts.ts), without what a topic
 * has not: visibility timeouts (`expire`) and the queue's own calls (`queue.*`: a Kafka source
 * hands records back through the invocation's answer alone).
 */
import { FAULT_POINTS } from '../faults/fault-points';
import type { Draw } from './prng';
import type { CampaignConfig, CampaignEvent, KafkaInvocation, MessageSpec, Schedule } from './schedule';
import { chaosScripts, DECISIONS, drawConfig, drawFault, drawOutage, healthyScript, TEXTS } from './scripts';
import { Swarm } from './swarm';

const KAFKA_FAULT_POINTS = FAULT_POINTS.filter((point) => !point.startsWith('queue.'));
/** Environment slots the polls use: a partition moves between warm environments, as in Lambda. */
const SLOTS = 4;
/** A corrupted protobuf's bytes: no UTF-8 at all. */
const CORRUPTED = [0x0a, 0xff, 0xfe, 0x00, 0xc3, 0x28];

export function kafkaSchedule(draw: Draw, seed: number, scheduler: number): Schedule {
  const swarm = new Swarm(draw);
  const partitions = draw.int(1, 4);
  // Payloads of several partitions: the mapping's usual shape in this schedule, or now and then.
  const mixed = partitions > 1 && draw.chance(0.4);
  const outageOnly = draw.chance(0.25);
  const config = drawConfig(draw);
  const messages = kafkaMessages(draw, swarm, config, partitions, outageOnly);
  const shape = { partitions, mixed };
  const events = outageOnly
    ? outageEvents(draw, shape)
    : chaosEvents(draw, swarm, config, shape, messages.length);
  const answers = Array.from({ length: draw.int(1, 3) }, () => draw.pick(DECISIONS));
  // Drawn last, so a seed's schedule is the one it was before provisioned mode existed, its mode aside.
  const partialBatchResponse = draw.chance(0.4);
  return {
    seed,
    scheduler,
    config,
    messages,
    events,
    answers,
    kafka: {
      partitions,
      ...(mixed ? { mixed } : {}),
      ...(partialBatchResponse ? { partialBatchResponse } : {}),
    },
  };
}

function kafkaMessages(
  draw: Draw,
  swarm: Swarm,
  config: CampaignConfig,
  partitions: number,
  outageOnly: boolean,
): MessageSpec[] {
  const count = outageOnly ? draw.int(3, 10) : draw.int(2, 12);
  const keys: string[] = [];
  return Array.from({ length: count }, (_, index) => {
    const n = index + 1;
    const text = `M${n} ${draw.pick(TEXTS)}`;
    const corrupted = draw.chance(0.2);
    let body = text;
    if (config.messageKeyPath !== undefined && !corrupted) {
      // Distinct records sometimes share a business key (rule 13 makes the same bytes a duplicate).
      const shared = !outageOnly && keys.length > 0 && draw.chance(0.25);
      const key = shared ? draw.pick(keys) : `order-${n}`;
      keys.push(key);
      body = JSON.stringify({ order: { id: key }, note: text });
    }
    const bytes = corrupted ? Buffer.from([...CORRUPTED, n, ...Buffer.from(text)]) : undefined;
    const headers = draw.chance(0.4) ? drawHeaders(draw, n) : undefined;
    return {
      id: `m${n}`,
      body: bytes === undefined ? body : bytes.toString('utf8'),
      scripts: outageOnly ? [healthyScript(draw, true)] : chaosScripts(draw, swarm),
      partition: draw.int(0, partitions - 1),
      ...(bytes === undefined ? {} : { bytes: bytes.toString('base64') }),
      ...(draw.chance(0.6) ? { recordKey: `k-${n}` } : {}),
      ...(headers === undefined ? {} : { headers }),
    };
  });
}

/** A trace header, sometimes twice (a header may repeat: every value is evidence). */
function drawHeaders(draw: Draw, n: number): { readonly name: string; readonly value: string }[] {
  const trace = { name: 'trace-id', value: `t-${n}` };
  return draw.chance(0.3) ? [trace, { name: 'trace-id', value: `t-${n}-again ✓` }] : [trace];
}

type KafkaChaosKind =
  | Exclude<
      CampaignEvent['do'],
      'table-outage' | 'outside-outage' | 'poll' | 'poll-pair' | 'poll-many' | 'pollers' | 'expire'
    >
  | 'poll-mixed'
  | 'outage';

/** The topic's partitions, and whether the mapping's payloads usually hold several of them. */
interface Shape {
  readonly partitions: number;
  readonly mixed: boolean;
}

function chaosEvents(
  draw: Draw,
  swarm: Swarm,
  config: CampaignConfig,
  shape: Shape,
  messages: number,
): CampaignEvent[] {
  return Array.from({ length: draw.int(4, 30) }, () => chaosEvent(draw, swarm, config, shape, messages));
}

function chaosEvent(
  draw: Draw,
  swarm: Swarm,
  config: CampaignConfig,
  { partitions, mixed }: Shape,
  messages: number,
): CampaignEvent {
  switch (
    draw.weighted<KafkaChaosKind>([
      ['poll-partitions', 8],
      ['poll-mixed', partitions > 1 ? 3 : 0],
      ['rebalance', 2],
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
    case 'poll-partitions':
      return { do: 'poll-partitions', invocations: polls(draw, { partitions, mixed }) };
    case 'poll-mixed':
      return { do: 'poll-partitions', invocations: [mixedPayload(draw, partitions)] };
    case 'rebalance':
      return rebalance(draw, partitions);
    case 'advance':
      return { do: 'advance', seconds: draw.pick([1, 5, 30, 61, 200, 900]) };
    case 'fault':
      return drawFault(draw, swarm, messages, KAFKA_FAULT_POINTS);
    case 'outage':
      return drawOutage(draw, [30, 120, 600]);
    case 'duplicate':
      return { do: 'duplicate', message: draw.int(0, messages - 1) };
    case 'redeploy':
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

/** A poll: in a schedule of mixed payloads mostly one of them, else one invocation per partition. */
function polls(draw: Draw, { partitions, mixed }: Shape): KafkaInvocation[] {
  return mixed && draw.chance(0.7) ? [mixedPayload(draw, partitions)] : partitionPolls(draw, partitions);
}

/** Some partitions (at least one), each polled in an environment of its own. */
function partitionPolls(draw: Draw, partitions: number): KafkaInvocation[] {
  const chosen = range(partitions).filter(() => draw.chance(0.7));
  const polled = chosen.length > 0 ? chosen : [draw.int(0, partitions - 1)];
  const shift = draw.int(0, SLOTS - 1);
  return polled.map((partition) => ({ env: (partition + shift) % SLOTS, partitions: [partition] }));
}

/** One payload of two or more partitions, in an order of the mapping's. */
function mixedPayload(draw: Draw, partitions: number): KafkaInvocation {
  const order = range(partitions);
  for (let index = order.length - 1; index > 0; index--) {
    const other = draw.int(0, index);
    [order[index], order[other]] = [order[other], order[index]];
  }
  return { env: draw.int(0, SLOTS - 1), partitions: order.slice(0, draw.int(2, partitions)) };
}

/** A partition handed to a second environment at once, mid-work, or later. */
function rebalance(draw: Draw, partitions: number): CampaignEvent {
  const env = draw.int(0, SLOTS - 1);
  return {
    do: 'rebalance',
    partition: draw.int(0, partitions - 1),
    env,
    to: (env + draw.int(1, SLOTS - 1)) % SLOTS,
    afterMs: draw.pick([0, 0, 50, 500, 2000, 10_000]),
  };
}

/** A few polls, one long outage, then many polls through it (the mapping keeps polling). */
function outageEvents(draw: Draw, shape: Shape): CampaignEvent[] {
  const before = Array.from({ length: draw.int(0, 2) }, () => pollAll(shape));
  const during = Array.from({ length: draw.int(8, 40) }, () => pollThrough(draw, shape));
  return [...before, drawOutage(draw, [120, 600, 1800, 3600]), ...during];
}

/** Every partition: in one payload where the mapping mixes them, else one invocation each. */
function pollAll({ partitions, mixed }: Shape): CampaignEvent {
  return {
    do: 'poll-partitions',
    invocations: mixed
      ? [{ env: 0, partitions: range(partitions) }]
      : range(partitions).map((partition) => ({ env: partition, partitions: [partition] })),
  };
}

function pollThrough(draw: Draw, shape: Shape): CampaignEvent {
  const { partitions } = shape;
  switch (
    draw.weighted([
      ['poll', 6],
      ['mixed', partitions > 1 ? 1 : 0],
      ['rebalance', 1],
      ['advance', 2],
    ] as const)
  ) {
    case 'poll':
      return pollAll(shape);
    case 'mixed':
      return { do: 'poll-partitions', invocations: [mixedPayload(draw, partitions)] };
    case 'rebalance':
      return rebalance(draw, partitions);
    case 'advance':
      return { do: 'advance', seconds: draw.int(1, 120) };
  }
}

function range(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index);
}
