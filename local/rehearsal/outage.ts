/**
 * Rule 7 in a rehearsal: plays a shared dependency's outage (the outside system answers 503 from
 * the scenario's `outage.startAfterMs` after the first send, for `outage.durationMs` or, with
 * `until: 'mapping-disabled'`, until the runner reads the event source mapping Disabled, then 200
 * again) and keeps what the pause and the resume looked like, from where each step is recorded:
 * - first failure: the earliest failure event the consumer wrote to the control table;
 * - outage detected, breaker tripped: the consumer's `outage-detected` and `paused` log lines;
 * - mapping Disabled: the runner's reading of the event source mapping (it stops polling then);
 * - half-open: the breaker item's `halfOpenAt`, written by the state machine just before it enables
 *   the mapping at the probe's footprint (sampled while it lasts: the close removes it);
 * - resumed: the breaker item's `closedAt`, written once the mapping got its own settings back;
 * - all completed: the latest `lastEndedAt` of the messages in the ledger.
 * Times are epoch milliseconds here; the timeline reports them as milliseconds from the outage start.
 */

import type { ObservedRunner } from '../../tools/local-aws/runner';
import type { ConsumerLog } from '../consumer-log';
import type { LocalPipeline } from '../local-pipeline';
import type { PipelineProbe } from './pipeline-probe';
import type { Outage } from './scenario';

/** Milliseconds from the outage start; null where the step was not seen. */
export interface OutageTimeline {
  readonly outageStart: number;
  readonly firstFailure: number | null;
  readonly outageDetected: number | null;
  readonly breakerTripped: number | null;
  readonly mappingDisabled: number | null;
  readonly dependencyBack: number | null;
  readonly halfOpen: number | null;
  readonly resumed: number | null;
  readonly allCompleted: number | null;
  /** From the consumer's detection to the mapping reported Disabled. */
  readonly detectionToDisabledMs: number | null;
}

/** The steps that must all be seen, in this order (each at or after the one before). */
export const TIMELINE_ORDER = [
  'outageStart',
  'firstFailure',
  'outageDetected',
  'breakerTripped',
  'mappingDisabled',
  'halfOpen',
  'resumed',
] as const satisfies readonly (keyof OutageTimeline)[];

/** Between two looks at the breaker item while the outage plays. */
const BREAKER_SAMPLE_MS = 250;

export class OutagePlay {
  private startedAt: number | undefined;
  private endedAt: number | undefined;
  private halfOpenAt: number | undefined;
  private readonly mappingStates: { readonly at: number; readonly state: string }[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly unsubscribe: () => void;
  private sampling = true;
  private readonly sampler: Promise<void>;

  constructor(
    private readonly outage: Outage,
    private readonly pipeline: LocalPipeline<ObservedRunner>,
    private readonly probe: PipelineProbe,
    private readonly say: (line: string) => void,
  ) {
    this.unsubscribe = pipeline.runner.on('mapping-state', ({ state, batchSize, maximumConcurrency }) => {
      this.mappingStates.push({ at: Date.now(), state });
      say(`event source mapping ${state} (batch size ${batchSize}, concurrency ${maximumConcurrency})`);
      if (this.endsNow(state)) this.end();
    });
    this.sampler = this.sampleBreaker();
  }

  /** Call just before the first message is sent: an outage starting at 0 is on before it arrives. */
  beforeFirstSend(): void {
    const { startAfterMs, durationMs } = this.outage;
    if (startAfterMs === 0) this.begin();
    else this.timers.push(setTimeout(() => this.begin(), startAfterMs));
    if (durationMs !== undefined) this.timers.push(setTimeout(() => this.end(), startAfterMs + durationMs));
  }

  /** An outage `until: 'mapping-disabled'` ends at the first Disabled reading while it is on. */
  private endsNow(state: string): boolean {
    const on = this.startedAt !== undefined && this.endedAt === undefined;
    return on && this.outage.until === 'mapping-disabled' && state === 'Disabled';
  }

  /** Whether the outside system answers 200 again. */
  over(): boolean {
    return this.endedAt !== undefined;
  }

  /** Stops the timers and the sampling; an outage still on is ended (the pipeline is about to stop). */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.unsubscribe();
    this.sampling = false;
    await this.sampler;
  }

  /** The timeline so far; read it once the scenario has settled. */
  async timeline(log: ConsumerLog, keys: readonly string[]): Promise<OutageTimeline | undefined> {
    const origin = this.startedAt;
    if (origin === undefined) return undefined;
    const after = (at: number | undefined) => (at !== undefined && at >= origin ? at : undefined);
    const [failures, breaker, items] = await Promise.all([
      // Every event since the start: the first failure is the oldest.
      this.probe.control.failuresSince(new Date(origin), Number.POSITIVE_INFINITY),
      this.probe.breaker(),
      this.probe.ledgerItems(keys),
    ]);
    const control = (event: string) => after(log.controls.find((line) => line.event === event)?.at);
    const disabledAt = this.mappingStates.find(
      (reading) => reading.at >= origin && reading.state === 'Disabled',
    )?.at;
    const enabledAgain =
      disabledAt === undefined
        ? undefined
        : this.mappingStates.find((reading) => reading.at > disabledAt && reading.state === 'Enabled')?.at;
    const ended = [...items.values()].map((item) =>
      item?.state === 'completed' && item.lastEndedAt ? Date.parse(item.lastEndedAt) : Number.NaN,
    );
    const detected = control('outage-detected');
    const epochMs = {
      outageStart: origin,
      firstFailure: after(min(failures.map((event) => event.at))),
      outageDetected: detected,
      breakerTripped: control('paused'),
      mappingDisabled: disabledAt,
      dependencyBack: this.endedAt,
      halfOpen: after(this.halfOpenAt ?? enabledAgain),
      resumed: breaker?.state === 'closed' ? after(breaker.closedAt) : undefined,
      allCompleted: ended.every(Number.isFinite) ? after(Math.max(...ended)) : undefined,
    };
    const since = (at: number | undefined) => (at === undefined ? null : at - origin);
    return {
      outageStart: 0,
      firstFailure: since(epochMs.firstFailure),
      outageDetected: since(epochMs.outageDetected),
      breakerTripped: since(epochMs.breakerTripped),
      mappingDisabled: since(epochMs.mappingDisabled),
      dependencyBack: since(epochMs.dependencyBack),
      halfOpen: since(epochMs.halfOpen),
      resumed: since(epochMs.resumed),
      allCompleted: since(epochMs.allCompleted),
      detectionToDisabledMs:
        detected === undefined || disabledAt === undefined ? null : disabledAt - detected,
    };
  }

  private begin(): void {
    this.pipeline.outside.setStatus(503);
    this.startedAt = Date.now();
    this.say(`outage: the outside system answers 503 ${outageLength(this.outage)}`);
  }

  private end(): void {
    this.pipeline.outside.setStatus(200);
    this.endedAt = Date.now();
    this.say('outage over: the outside system answers 200 again');
  }

  /** `halfOpenAt` lives on the breaker item only while half-open, so it is caught while it lasts. */
  private async sampleBreaker(): Promise<void> {
    while (this.sampling) {
      try {
        const breaker = await this.probe.breaker();
        if (breaker?.halfOpenAt !== undefined && this.halfOpenAt === undefined) {
          this.halfOpenAt = breaker.halfOpenAt;
          this.say('breaker half-open: probing one record at a time');
        }
      } catch {
        // A failed read is a gap in the samples; the next one may see it.
      }
      await new Promise((resolve) => setTimeout(resolve, BREAKER_SAMPLE_MS));
    }
  }
}

function min(values: readonly number[]): number | undefined {
  return values.length === 0 ? undefined : Math.min(...values);
}

/** How long the outside system answers 503: "for 5.0 s", or until the pause. */
export function outageLength(outage: Outage): string {
  return outage.durationMs === undefined
    ? 'until the pause has disabled the event source mapping'
    : `for ${seconds(outage.durationMs)}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
