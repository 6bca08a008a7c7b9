/**
 * Rule 6 in a rehearsal: when each isolation trial started and ended. The control table's
 * isolation item keeps the start of the trial's last (re)start, exactly, but no end: a trial ends
 * by turning `active` off. So the item is read every SAMPLE_MS while the scenario plays; an end is
 * the first read that found the trial over (at most SAMPLE_MS late), and a trial that started
 * and ended between two reads is still seen by its new start. A start that replaces the one of a
 * trial still running is a restart: a crash during the trial (rule 6 starts the count again); a
 * trial that ended and a next one that started between the same two reads look the same.
 *
 * Only a scenario that can start a trial is watched: one with several records in flight per
 * worker, since a crash with one message in flight is pinned on it.
 */
import type { PipelineProbe } from './pipeline-probe';
import type { Scenario } from './scenario';

/** Milliseconds from the first send. */
export interface IsolationTrialView {
  readonly startedAt: number;
  readonly reason: string;
  /** Starts of the count again, after crashes during the trial. */
  readonly restartedAt: readonly number[];
  /** The first read that found the trial over; null: still running at the last read. */
  readonly endedBy: number | null;
}

/** Between two reads of the isolation item. */
export const SAMPLE_MS = 100;

interface Trial {
  firstStart: number;
  lastStart: number;
  reason: string;
  restarts: number[];
  endedBy?: number;
}

export class IsolationWatch {
  private readonly trials: Trial[] = [];
  private sampling = true;
  private readonly sampler: Promise<void>;

  /** Watches the scenario's trials, or undefined for a scenario that cannot start one. */
  static start(
    scenario: Pick<Scenario, 'inFlight'>,
    probe: Pick<PipelineProbe, 'isolation'>,
    now: () => number = Date.now,
  ): IsolationWatch | undefined {
    return scenario.inFlight > 1 ? new IsolationWatch(probe, now) : undefined;
  }

  private constructor(
    private readonly probe: Pick<PipelineProbe, 'isolation'>,
    private readonly now: () => number,
  ) {
    this.sampler = this.sample();
  }

  async stop(): Promise<void> {
    this.sampling = false;
    await this.sampler;
  }

  /**
   * Every trial seen so far, in order, in milliseconds from `origin` (epoch milliseconds), after
   * one more read so that a trial started since the last one is among them.
   */
  async trialsSince(origin: number): Promise<IsolationTrialView[]> {
    await this.look().catch(() => undefined);
    return this.trials.map((trial) => ({
      startedAt: trial.firstStart - origin,
      reason: trial.reason,
      restartedAt: trial.restarts.map((at) => at - origin),
      endedBy: trial.endedBy === undefined ? null : trial.endedBy - origin,
    }));
  }

  private async sample(): Promise<void> {
    while (this.sampling) {
      // A failed read is a gap in the samples; the next one may see it.
      await this.look().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    }
  }

  private async look(): Promise<void> {
    const readAt = this.now();
    const item = await this.probe.isolation();
    if (item?.startedAt === undefined) return;
    const current = this.trials.at(-1);
    if (current === undefined || item.startedAt !== current.lastStart) {
      if (current !== undefined && current.endedBy === undefined && item.active) {
        current.restarts.push(item.startedAt);
        current.lastStart = item.startedAt;
      } else {
        this.trials.push({
          firstStart: item.startedAt,
          lastStart: item.startedAt,
          reason: item.reason ?? 'unknown',
          restarts: [],
          ...(item.active ? {} : { endedBy: readAt }),
        });
        return;
      }
    }
    const trial = this.trials.at(-1) as Trial;
    if (!item.active && trial.endedBy === undefined) trial.endedBy = readAt;
  }
}
