/**
 * The default rehearsal runs four pipelines at once, each with its own local AWS, on whatever
 * machine the user has. A healthy message's first invocation in a fresh execution environment
 * (after a crash) makes the SDK's first requests; on a 2-core machine that took over 1 s, so a
 * 1 s consumer timeout killed it and charged a crash (`npm run rehearsal` failed about 1 run in 3).
 *
 * Issue 22, defect 16: on a loaded 2-core machine 2-3 s deadlines still killed invocations, and the
 * outage's fixed 5 s ended, on a quick run, before three different messages had failed. A default
 * scenario is defined by counts (what the consumer has seen), not by how fast the machine is.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LocalPipeline } from '../../local/local-pipeline';
import { DEFAULT_SCENARIOS, OUTAGE } from '../../local/rehearsal/default-scenarios';
import { OutagePlay } from '../../local/rehearsal/outage';
import type { PipelineProbe } from '../../local/rehearsal/pipeline-probe';
import type { Outage } from '../../local/rehearsal/scenario';

/**
 * The slowest invocation seen on a loaded 2-core machine, per scenario (issue 22: killed at 2-3 s
 * deadlines). The outage's two workers start side by side into a failing dependency, trip the
 * breaker and start the pause: beside a CPU-heavy process its slowest took 2.9 s of 5 s, and on
 * one run of four two of its first invocations outlived 5 s, were killed, and re-tripped the
 * breaker when they came back. The report gives the figure (`deadline:` line, slowestAnsweredMs).
 */
const SLOWEST_LOADED_INVOCATION_SECONDS: Readonly<Record<string, number>> = {
  seed: 2.5,
  'seed-variant': 2.5,
  outage: 5,
  'seed-variant-verified': 2.5,
};

describe('the default rehearsal scenarios', () => {
  it.each(DEFAULT_SCENARIOS.map((scenario) => [scenario.name, scenario] as const))(
    'defect 16: given %s, then its deadline is twice the slowest invocation of a loaded 2-core machine',
    (name, scenario) => {
      // Assess
      expect(scenario.consumerTimeoutSeconds).toBeGreaterThanOrEqual(
        2 * SLOWEST_LOADED_INVOCATION_SECONDS[name],
      );
    },
  );
});

describe('defect 16: the outage scenario lasts until the breaker has seen what it needs', () => {
  /** A pipeline that only records the outside system's status and lets the test report mapping states. */
  function fakePipeline() {
    const statuses: number[] = [];
    let reportState: (state: string) => void = () => {};
    const pipeline = {
      outside: { setStatus: (status: number) => statuses.push(status) },
      runner: {
        on: (_event: string, listener: (reading: { state: string }) => void) => {
          reportState = (state) => listener({ state, batchSize: 1, maximumConcurrency: 2 } as never);
          return () => {};
        },
      },
    } as unknown as LocalPipeline;
    const probe = { breaker: async () => undefined } as unknown as PipelineProbe;
    return { pipeline, probe, statuses, reportState: (state: string) => reportState(state) };
  }

  /** Stops the play; its breaker sampling sleeps on the fake clock between looks. */
  async function stop(play: OutagePlay): Promise<void> {
    const stopping = play.stop();
    await vi.advanceTimersByTimeAsync(1_000);
    await stopping;
  }

  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('given a machine too slow to trip the breaker within a minute, then the outside system still fails', async () => {
    // Prepare
    const { pipeline, probe, statuses } = fakePipeline();
    const play = new OutagePlay(OUTAGE.outage as Outage, pipeline, probe, () => {});
    // Act
    play.beforeFirstSend();
    await vi.advanceTimersByTimeAsync(60_000);
    // Assess
    expect(statuses).toStrictEqual([503]);
    expect(play.over()).toBe(false);
    await stop(play);
  });

  it('given the pause disabled the mapping, then the outside system recovers at once', async () => {
    // Prepare
    const { pipeline, probe, statuses, reportState } = fakePipeline();
    const play = new OutagePlay(OUTAGE.outage as Outage, pipeline, probe, () => {});
    play.beforeFirstSend();
    await vi.advanceTimersByTimeAsync(1_000);
    // Act
    reportState('Disabled');
    // Assess
    expect(statuses).toStrictEqual([503, 200]);
    expect(play.over()).toBe(true);
    await stop(play);
  });
});
