/**
 * Recovery (issue 10): how soon a backlog drains once the outside system is back, with the
 * construct's default timings (consumer timeout 30 s, so a visibility timeout of 180 s; cool-down
 * 60 s; probe window 30 s). The outside system answers 503 while the messages arrive; it comes
 * back the moment the breaker has tripped, the longest wait a first cool-down can impose. Drained:
 * the source queue empty and every message completed in the ledger. The goal is the cool-down
 * plus the probe window plus 10 s: records a paused consumer handed back must be there for the
 * probe, not wait out their 180 s visibility timeout. The mapping's states, as the runner read
 * them, show where the time went (the backlog drains during the probe window, at the probe's
 * footprint, once a probe succeeded).
 */
import { BREAKER_STATE } from '../../contract/control';
import { DemoAssembly } from '../../local/demo-assembly';
import { startPoisonQuarantine } from '../pipeline/poison-quarantine';
import { DEFAULT_TIMINGS, type PipelineTimings } from '../pipeline/timings';
import { waitUntil } from '../pipeline/wait';
import { round } from '../stats';

/** Slack the goal allows over a cool-down and a probe window: the backlog's own processing. */
const GOAL_SLACK_SECONDS = 10;

export interface RecoveryOptions {
  readonly messages: number;
  readonly timings: PipelineTimings;
  /** Progress lines (no newline). @default - silent */
  readonly progress?: (line: string) => void;
}

export const RECOVERY_DEFAULTS: RecoveryOptions = { messages: 20, timings: DEFAULT_TIMINGS };

/** Seconds from the dependency's return; null where the step was not seen. */
export interface RecoveryTimeline {
  readonly mappingDisabled: number | null;
  /** Enabled again at the probe footprint (one record per invocation): the cool-down is over. */
  readonly probeStarted: number | null;
  readonly drained: number;
}

export interface RecoveryResult {
  readonly seconds: number;
  readonly goalSeconds: number;
  readonly messages: number;
  /** The breaker tripped this long after the first message was sent. */
  readonly trippedAfterSeconds: number;
  readonly timeline: RecoveryTimeline;
  readonly timings: PipelineTimings;
}

export async function measureRecovery(options: RecoveryOptions): Promise<RecoveryResult> {
  const { timings } = options;
  const say = options.progress ?? (() => {});
  const goalSeconds = timings.breakerCooldownSeconds + timings.breakerProbeSeconds + GOAL_SLACK_SECONDS;
  const assembly = new DemoAssembly();
  try {
    const pq = await startPoisonQuarantine(assembly, 'BenchRecovery', timings);
    try {
      const { pipeline, probe } = pq;
      const mappingStates: { readonly at: number; readonly state: string }[] = [];
      pipeline.runner.on('mapping-state', ({ state }) => mappingStates.push({ at: Date.now(), state }));
      pipeline.outside.setStatus(503);
      const sentAt = Date.now();
      const bodies = Array.from({ length: options.messages }, (_, index) =>
        JSON.stringify({ id: `R${index + 1}`, behaviour: 'succeed-with-external' }),
      );
      const messageIds = await pq.send(bodies);
      say(`recovery: ${options.messages} messages sent during an outage; waiting for the breaker to trip`);
      const trippedAt = await waitUntil(
        'recovery: the breaker open',
        async () => (await probe.breaker())?.state === BREAKER_STATE.open,
        { timeoutMs: 60_000 },
      );
      pipeline.outside.setStatus(200);
      const backAt = Date.now();
      say(`recovery: the outside system is back; the goal is ${goalSeconds} s`);
      // Long enough to see a miss: records waiting out their whole visibility timeout.
      const timeoutMs = (goalSeconds + timings.visibilityTimeoutSeconds + 30) * 1000;
      const drainedAt = await waitUntil(
        'recovery: the backlog drained',
        async () => {
          if ((await pq.queued()) > 0) return false;
          const items = await probe.ledgerItems(messageIds);
          return [...items.values()].every((item) => item?.state === 'completed');
        },
        { timeoutMs, everyMs: 500 },
      );
      const after = (at: number) => round((at - backAt) / 1000, 1);
      const since = (at: number | undefined) => (at === undefined ? null : after(at));
      const disabled = mappingStates.find((reading) => reading.state === 'Disabled');
      const probing = mappingStates.find(
        (reading) => reading.state === 'Enabled' && disabled !== undefined && reading.at > disabled.at,
      );
      return {
        seconds: after(drainedAt),
        goalSeconds,
        messages: options.messages,
        trippedAfterSeconds: round((trippedAt - sentAt) / 1000, 1),
        timeline: {
          mappingDisabled: since(disabled?.at),
          probeStarted: since(probing?.at),
          drained: after(drainedAt),
        },
        timings,
      };
    } finally {
      await pq.stop();
    }
  } finally {
    assembly.remove();
  }
}
