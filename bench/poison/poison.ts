/**
 * The cost of one poison message (issue 10): 1,000 healthy messages, and beside them the same
 * 1,000 with one message that crashes its worker on every attempt (a real SIGKILL, the demo
 * worker's `crash-in-parser`) sent in the middle, each on a local pipeline of its own (its own
 * moto, its own runner). Both backlogs wait in their queues with the mappings disabled and both
 * are consumed at once, from the moment both mappings are enabled, so a shared machine's load
 * falls on both alike. Healthy throughput: healthy messages per second until the last of them
 * completed (the consumer's own record lines); the ratio is the backlog with the poison message
 * over the one without. Quarantine time: from the poison message's first delivery to its
 * quarantine.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { watchConsumerLog } from '../../local/consumer-log';
import { DemoAssembly } from '../../local/demo-assembly';
import type { PipelineProbe } from '../../local/rehearsal/pipeline-probe';
import type { EventSourceRunner } from '../../tools/local-aws/runner';
import { startPoisonQuarantine } from '../pipeline/poison-quarantine';
import type { PipelineTimings } from '../pipeline/timings';
import { waitUntil } from '../pipeline/wait';
import { round } from '../stats';

export interface PoisonOptions {
  readonly healthyMessages: number;
  readonly timings: PipelineTimings;
  /** Progress lines (no newline). @default - silent */
  readonly progress?: (line: string) => void;
}

export interface PoisonResult {
  /** Healthy messages per second with the poison message, over the same without it. */
  readonly throughputRatio: number;
  /** From the poison message's first delivery to its quarantine. */
  readonly quarantineSeconds: number;
  readonly healthyMessages: number;
  /** Healthy messages per second, consumption start to the last healthy completion. */
  readonly healthyPerSecond: { readonly alone: number; readonly withPoison: number };
  /** Worker processes the poison message killed. */
  readonly crashes: number;
  /** Healthy messages in a batch the poison message crashed, not completed yet: each waited a visibility timeout. */
  readonly healthyHeldBack: number;
  readonly quarantineReason: string;
  readonly timings: PipelineTimings;
}

interface Run {
  readonly healthySeconds: number;
  readonly poison?: {
    readonly quarantineSeconds: number;
    readonly reason: string;
    readonly crashes: number;
    readonly healthyHeldBack: number;
  };
}

/** A long poll under way when the mapping is disabled ends within its 1 s wait. */
const LONG_POLL_END_MS = 1_500;

export async function measurePoison(options: PoisonOptions): Promise<PoisonResult> {
  const say = options.progress ?? (() => {});
  const assembly = new DemoAssembly();
  const backlogs: Backlog[] = [];
  try {
    // One after the other: synthesizing a stack blocks this process, where both runners live.
    backlogs.push(await prepareBacklog(assembly, options, false));
    backlogs.push(await prepareBacklog(assembly, options, true));
    say(
      `poison: ${options.healthyMessages} healthy messages waiting in each queue, one poison beside them; consuming both`,
    );
    const [alone, withPoison] = await Promise.all(backlogs.map((backlog) => backlog.consume()));
    const poison = withPoison.poison;
    if (!poison) throw new Error('poison: the run with the poison message reported no quarantine');
    const perSecond = (run: Run) => options.healthyMessages / run.healthySeconds;
    return {
      throughputRatio: round(perSecond(withPoison) / perSecond(alone)),
      quarantineSeconds: round(poison.quarantineSeconds, 1),
      healthyMessages: options.healthyMessages,
      healthyPerSecond: { alone: round(perSecond(alone), 1), withPoison: round(perSecond(withPoison), 1) },
      crashes: poison.crashes,
      healthyHeldBack: poison.healthyHeldBack,
      quarantineReason: poison.reason,
      timings: options.timings,
    };
  } finally {
    for (const backlog of backlogs) await backlog.stop();
    assembly.remove();
  }
}

interface Backlog {
  /** Enables the mapping and waits until every healthy message completed (and the poison one is quarantined). */
  consume(): Promise<Run>;
  stop(): Promise<void>;
}

/** A pipeline whose messages wait in its queue, the mapping disabled, until `consume`. */
async function prepareBacklog(
  assembly: DemoAssembly,
  options: PoisonOptions,
  withPoison: boolean,
): Promise<Backlog> {
  const pq = await startPoisonQuarantine(
    assembly,
    withPoison ? 'BenchPoison' : 'BenchHealthy',
    options.timings,
  );
  const watch = watchMessages(pq.pipeline.runner);
  const stop = async () => {
    watch.close();
    await pq.stop();
  };
  try {
    await pq.consume(false);
    await waitUntil('poison: the runner stopped polling', () => !pq.pipeline.runner.stats().polling, {
      timeoutMs: 10_000,
    });
    await sleep(LONG_POLL_END_MS);
    const bodies = Array.from({ length: options.healthyMessages }, (_, index) =>
      JSON.stringify({ id: `H${index + 1}` }),
    );
    const middle = Math.floor(bodies.length / 2);
    if (withPoison) bodies.splice(middle, 0, JSON.stringify({ id: 'POISON', behaviour: 'crash-in-parser' }));
    const messageIds = await pq.send(bodies);
    if (withPoison) watch.poisonId = messageIds[middle];
    const healthy = messageIds.filter((id) => id !== watch.poisonId);
    const consume = async (): Promise<Run> => {
      const startedAt = Date.now();
      await pq.consume(true);
      // Generous: a loaded machine has been seen to take 0.4 s per healthy message.
      const timeoutMs = (healthy.length + 4 * options.timings.visibilityTimeoutSeconds + 120) * 1000;
      await waitUntil(
        `poison: every healthy message completed${withPoison ? ' and the poison message quarantined' : ''}`,
        () =>
          healthy.every((id) => watch.completedAt.has(id)) &&
          (!withPoison || watch.quarantined !== undefined),
        { timeoutMs },
      );
      const lastHealthy = Math.max(...healthy.map((id) => watch.completedAt.get(id) ?? 0));
      const healthySeconds = (lastHealthy - startedAt) / 1000;
      const { quarantined, firstDelivery, deaths } = watch;
      if (quarantined === undefined || firstDelivery === undefined) return { healthySeconds };
      return {
        healthySeconds,
        poison: {
          quarantineSeconds: (quarantined.at - firstDelivery) / 1000,
          reason: quarantined.reason,
          crashes: deaths.length,
          healthyHeldBack: await heldBack(pq.probe, deaths, watch.poisonId),
        },
      };
    };
    return { consume, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface MessageWatch {
  /** Set once the poison message is sent. */
  poisonId?: string;
  /** SQS message id -> when the consumer first logged it completed. */
  readonly completedAt: Map<string, number>;
  firstDelivery?: number;
  /** Worker processes that died holding the poison message: when, and their batch. */
  readonly deaths: { readonly at: number; readonly messageIds: readonly string[] }[];
  quarantined?: { readonly at: number; readonly reason: string };
  close(): void;
}

/** When each message completed, and the poison message's deliveries, deaths and quarantine. */
function watchMessages(runner: EventSourceRunner): MessageWatch {
  const stops: (() => void)[] = [];
  const watch: MessageWatch = {
    completedAt: new Map(),
    deaths: [],
    close: () => {
      for (const stop of stops) stop();
    },
  };
  const isPoison = (messageId: string) => messageId === watch.poisonId;
  const log = watchConsumerLog(runner, {
    record: ({ messageId, outcome }) => {
      if (outcome.kind === 'completed' && !watch.completedAt.has(messageId))
        watch.completedAt.set(messageId, Date.now());
    },
    quarantined: ({ messageId, reason }) => {
      if (isPoison(messageId)) watch.quarantined = { at: Date.now(), reason };
    },
    death: ({ messageIds }) => {
      if (messageIds.some(isPoison)) watch.deaths.push({ at: Date.now(), messageIds });
    },
  });
  stops.push(
    () => log.close(),
    runner.on('invoke', ({ messageIds }) => {
      if (watch.firstDelivery === undefined && messageIds.some(isPoison)) watch.firstDelivery = Date.now();
    }),
  );
  return watch;
}

/**
 * Healthy messages of a batch the poison message crashed that completed only after the crash
 * (their ledger's end time; a log line written just before the kill may arrive after it).
 */
async function heldBack(
  probe: PipelineProbe,
  deaths: MessageWatch['deaths'],
  poisonId: string | undefined,
): Promise<number> {
  const held = new Set<string>();
  for (const death of deaths) {
    const items = await probe.ledgerItems(death.messageIds.filter((id) => id !== poisonId));
    for (const [id, item] of items) {
      if (item?.lastEndedAt !== undefined && Date.parse(item.lastEndedAt) > death.at) held.add(id);
    }
  }
  return held.size;
}
