/**
 * The outage, side by side (issue 10): the same messages and the same outage of the outside
 * system, longer than maxReceiveCount x the visibility timeout, against a plain consumer with
 * native redrive (maxReceiveCount 3 to a DLQ) and against poison-quarantine, both in one local
 * AWS, each consumed by the project's runner, at the same time. The outside systems answer 503
 * from before the first message is sent until the outage ends, then 200. For each: what the DLQ
 * and the quarantine hold, the charged attempts, the requests the outside system received, and
 * the time from the dependency's return to an empty source queue (0 when it was empty already).
 */
import { DEFAULTS } from '../../contract/defaults';
import { DemoAssembly } from '../../local/demo-assembly';
import { type OutsideSystem, startOutsideSystem } from '../../local/outside-system';
import { type DependencyOutage, playOutage } from '../pipeline/dependency-outage';
import {
  NATIVE_MAX_RECEIVE_COUNT,
  type NativeConsumer,
  startNativeConsumer,
} from '../pipeline/native-consumer';
import { type PoisonQuarantineRun, startPoisonQuarantine } from '../pipeline/poison-quarantine';
import type { PipelineTimings } from '../pipeline/timings';
import { waitUntil } from '../pipeline/wait';
import { round } from '../stats';

export interface OutageOptions {
  readonly messages: number;
  readonly timings: PipelineTimings;
  /** How long the outside system answers 503: longer than maxReceiveCount x the visibility timeout. */
  readonly outageSeconds: number;
  /** Progress lines (no newline). @default - silent */
  readonly progress?: (line: string) => void;
}

export interface NativeOutcome {
  readonly deadLettered: number;
  readonly externalRequests: number;
  readonly drainSeconds: number;
}

export interface PoisonQuarantineOutcome extends NativeOutcome {
  readonly quarantined: number;
  readonly charged: number;
}

export interface OutageResult {
  readonly native: NativeOutcome;
  readonly poisonQuarantine: PoisonQuarantineOutcome;
  readonly messages: number;
  readonly outageSeconds: number;
  readonly nativeMaxReceiveCount: number;
  readonly timings: PipelineTimings;
}

/** The outage for these timings: one consumer timeout longer than the native redrive needs. */
export function outageOptions(timings: PipelineTimings, messages = 20): OutageOptions {
  const outageSeconds =
    NATIVE_MAX_RECEIVE_COUNT * timings.visibilityTimeoutSeconds + timings.consumerTimeoutSeconds;
  return { messages, timings, outageSeconds };
}

/**
 * How long a queue may take to drain after the return: a cool-down in effect then is at most
 * twice the outage (it doubles per failed probe), then a probe window and the backlog.
 */
function drainTimeoutMs(options: OutageOptions): number {
  const { breakerCooldownSeconds, breakerProbeSeconds } = options.timings;
  return (2 * options.outageSeconds + breakerCooldownSeconds + breakerProbeSeconds + 60) * 1000;
}

export async function measureOutage(options: OutageOptions): Promise<OutageResult> {
  const say = options.progress ?? (() => {});
  const { timings } = options;
  const assembly = new DemoAssembly();
  const stops: (() => Promise<void> | void)[] = [() => assembly.remove()];
  try {
    const pq = await startPoisonQuarantine(assembly, 'BenchOutage', timings);
    stops.push(() => pq.stop());
    const { pipeline } = pq;
    const [mapping] = pipeline.stack.eventSourceMappings;
    const nativeOutside = await startOutsideSystem();
    stops.push(() => nativeOutside.stop());
    const native = await startNativeConsumer({
      clients: pipeline.clients,
      region: pipeline.aws.region,
      name: 'bench-native',
      outsideSystemUrl: nativeOutside.url,
      timeoutSeconds: timings.consumerTimeoutSeconds,
      visibilityTimeoutSeconds: timings.visibilityTimeoutSeconds,
      batchSize: mapping.batchSize,
      maxConcurrency: mapping.maximumConcurrency ?? DEFAULTS.maxConcurrency,
      memoryMiB: pipeline.consumer.memoryMiB,
      runtime: pipeline.consumer.runtime,
    });
    stops.push(() => native.stop());

    const outage = playOutage([pipeline.outside, nativeOutside], options.outageSeconds);
    stops.push(() => outage.cancel());
    say(
      `outage: ${options.messages} messages to each consumer, the outside system answering 503 for ` +
        `${options.outageSeconds} s, then draining`,
    );
    const [nativeOutcome, pqOutcome] = await Promise.all([
      outageOnNative(native, nativeOutside, outage, options.messages, drainTimeoutMs(options)),
      outageOnPoisonQuarantine(pq, outage, options),
    ]);
    return {
      native: nativeOutcome,
      poisonQuarantine: pqOutcome,
      messages: options.messages,
      outageSeconds: options.outageSeconds,
      nativeMaxReceiveCount: NATIVE_MAX_RECEIVE_COUNT,
      timings,
    };
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

/** The native side: its messages sent as the outage starts, counted once its queue is empty. */
export async function outageOnNative(
  native: NativeConsumer,
  outside: OutsideSystem,
  outage: DependencyOutage,
  messages: number,
  drainTimeoutMs: number,
): Promise<NativeOutcome> {
  await native.send(labels('N', messages).map((id) => JSON.stringify({ id })));
  const drainSeconds = await drained('native redrive', native.queued, outage, drainTimeoutMs);
  return {
    deadLettered: await native.deadLettered(),
    externalRequests: outside.requests().length,
    drainSeconds,
  };
}

async function outageOnPoisonQuarantine(
  pq: PoisonQuarantineRun,
  outage: DependencyOutage,
  options: OutageOptions,
): Promise<PoisonQuarantineOutcome> {
  const bodies = labels('P', options.messages).map((id) =>
    JSON.stringify({ id, behaviour: 'succeed-with-external' }),
  );
  const messageIds = await pq.send(bodies);
  const drainSeconds = await drained('poison-quarantine', pq.queued, outage, drainTimeoutMs(options));
  return {
    quarantined: await pq.quarantined(),
    charged: await pq.charged(messageIds),
    deadLettered: await pq.deadLettered(),
    externalRequests: pq.pipeline.outside.requests().length,
    drainSeconds,
  };
}

/** Seconds from the dependency's return to the first look that finds the queue empty. */
async function drained(
  what: string,
  queued: () => Promise<number>,
  outage: DependencyOutage,
  timeoutMs: number,
): Promise<number> {
  const backAt = await outage.back;
  const emptyAt = await waitUntil(
    `${what}: an empty queue after the outage`,
    async () => (await queued()) === 0,
    {
      timeoutMs,
    },
  );
  return round((emptyAt - backAt) / 1000, 1);
}

/** P01, P02, ...: the body's "id", which the outside system counts requests by. */
function labels(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => `${prefix}${String(index + 1).padStart(2, '0')}`);
}
