/**
 * Acceptance 3, rule 7 (branch C), end to end: five different messages call the outside system
 * while it answers 503 (a shared dependency is down). The consumer records failure events, trips
 * the breaker once and starts one pause execution; the state machine disables the mapping in moto
 * and the runner stops polling. Nothing is charged and nothing is quarantined. When the outside
 * system is back, the cool-down ends in a half-open probe at the smallest footprint, the probe
 * succeeds (on a sixth message that arrived during the pause), the mapping gets its own batch size
 * and concurrency back, the breaker closes, and every message completes, uncharged. The timeline
 * is printed so its figures can be quoted.
 */
import { Duration } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bool,
  demoBody,
  type E2e,
  epochMs,
  holdsFor,
  type Item,
  type MappingSample,
  num,
  startE2e,
  str,
} from './e2e-support';
import { waitFor } from './support';

/** The five that fail during the outage. */
const OUTAGE_KEYS = ['O1', 'O2', 'O3', 'O4', 'O5'];
/** Arrives while consumption is paused: the half-open probe finds it waiting. */
const LATE_KEY = 'O6';
const KEYS = [...OUTAGE_KEYS, LATE_KEY];
/** Distinct from the probe footprint (batch 1, concurrency 2), so a restore is visible. */
const ORIGINAL = { batchSize: 2, maxConcurrency: 3 };
const COOLDOWN_SECONDS = 8;
const PROBE_SECONDS = 4;

let e2e: E2e;
let mappingSamples: MappingSample[];
/** Breaker readings while the test runs: the probe counters exist only while it is half-open. */
const breakerSamples: { at: number; item: Item | undefined }[] = [];
let watchingBreaker = true;

const timeline: Record<string, number | undefined> = {};

beforeAll(async () => {
  e2e = await startE2e({
    // 3 s: a batch of two, the trip and the pause's StartExecution finish well inside it on a busy
    // machine (a timeout would be a crash: charged, or "outcome unknown" mid-call).
    consumerTimeoutSeconds: 3,
    pipeline: {
      messageKeyPath: 'id',
      ...ORIGINAL,
      // Longer than the consumer's 5 s control cache, so the probe is not refused from a stale "open".
      breakerCooldown: Duration.seconds(COOLDOWN_SECONDS),
      breakerProbeWindow: Duration.seconds(PROBE_SECONDS),
    },
  });
  mappingSamples = e2e.watchMapping(100).samples;
  void (async () => {
    while (watchingBreaker) {
      try {
        breakerSamples.push({ at: Date.now(), item: await e2e.breaker() });
      } catch {
        // a gap in the samples
      }
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  })();
});
afterAll(async () => {
  watchingBreaker = false;
  await e2e?.stop();
});

describe('a shared dependency outage across five messages', () => {
  it('starts with the mapping enabled at its own settings', async () => {
    expect(await e2e.mapping()).toStrictEqual({ state: 'Enabled', ...ORIGINAL });
  });

  it('pauses: one trip, one pause execution, the mapping disabled, nothing charged or quarantined', async () => {
    e2e.outside.setStatus(503);
    timeline.outageStarted = Date.now();
    await e2e.send(...OUTAGE_KEYS.map((id) => demoBody(id, 'succeed-with-external')));

    const disabled = await waitFor(
      'the mapping reported Disabled',
      () =>
        mappingSamples.find(
          (sample) => sample.at > (timeline.outageStarted ?? 0) && sample.state === 'Disabled',
        ),
      30_000,
    );
    timeline.mappingDisabled = disabled.at;

    const breaker = await waitFor('the breaker recorded open by the pause', async () => {
      const item = await e2e.breaker();
      return item?.disabledAt ? item : undefined;
    });
    expect(str(breaker, 'state')).toBe('open');
    expect(str(breaker, 'reason')).toBe('outage');
    expect(bool(breaker, 'stop')).toBe(false);
    expect(num(breaker, 'epoch')).toBe(1);
    expect(num(breaker, 'originalBatchSize')).toBe(ORIGINAL.batchSize);
    expect(num(breaker, 'originalMaxConcurrency')).toBe(ORIGINAL.maxConcurrency);
    timeline.disabledAtBySm = epochMs(breaker.disabledAt);

    // The consumer's view: failure events on at least 3 distinct messages, then the trip.
    const events = await e2e.failureEvents();
    expect(new Set(events.map((event) => event.key)).size).toBeGreaterThanOrEqual(3);
    expect(events.every((event) => event.kind === 'transient')).toBe(true);
    timeline.firstFailure = events[0].at;
    timeline.firstOutsideError = e2e.outside.requests().find((request) => request.status === 503)?.at;
    const detected = e2e.controlLines.find((line) => line.event === 'outage-detected');
    const paused = e2e.controlLines.filter((line) => line.event === 'paused');
    expect(detected).toBeDefined();
    // Exactly one environment won the trip and started the pause.
    expect(paused).toHaveLength(1);
    expect(paused[0].fields).toMatchObject({ reason: 'outage', stop: false, epoch: 1 });
    timeline.outageDetected = detected?.loggedAt ?? detected?.receivedAt;
    timeline.breakerTripped = paused[0].loggedAt ?? paused[0].receivedAt;
    // The trip as the consumer wrote it (epoch ms), before the state machine rewrote openedAt.
    const tripped = breakerSamples.find((sample) => sample.item?.openedAt?.N !== undefined);
    timeline.breakerTrippedItem = epochMs(tripped?.item?.openedAt);

    expect((await e2e.executions()).map((execution) => execution.name)).toStrictEqual(['pause-1']);
    expect(await e2e.executionStatus('pause-1')).toBe('RUNNING');

    // While paused: the mapping stays disabled, nothing is quarantined, nothing charged.
    await holdsFor(
      'the pause',
      2_000,
      () => e2e.mapping(),
      (mapping) => mapping.state === 'Disabled',
    );
    expect(await e2e.quarantineRecords()).toStrictEqual([]);
    const items = await e2e.ledgerItems(OUTAGE_KEYS);
    for (const [key, item] of items) {
      if (item === undefined) continue; // never received before the pause: nothing to charge
      expect({ key, charged: item.charged, state: item.state }).toMatchObject({ charged: 0 });
      expect(item.state).not.toBe('quarantined');
    }
    expect((await e2e.queueDepth()).total).toBe(OUTAGE_KEYS.length);
  }, 45_000);

  it('half-opens after the cool-down once the dependency is back, the probe succeeds, and the mapping is restored', async () => {
    e2e.outside.setStatus(200);
    timeline.dependencyBack = Date.now();
    // New traffic keeps arriving while paused; nobody receives it until the probe.
    await e2e.send(demoBody(LATE_KEY, 'succeed-with-external'));

    const probe = await waitFor(
      'the mapping enabled at the probe footprint',
      () =>
        mappingSamples.find(
          (sample) => sample.at > (timeline.mappingDisabled ?? 0) && sample.state === 'Enabled',
        ),
      COOLDOWN_SECONDS * 1000 + 15_000,
    );
    timeline.consumptionResumed = probe.at;
    expect(probe).toMatchObject({ state: 'Enabled', batchSize: 1, maxConcurrency: 2 });

    const restored = await waitFor(
      'the mapping restored to its own settings',
      () =>
        mappingSamples.find(
          (sample) =>
            sample.at > probe.at && sample.state === 'Enabled' && sample.batchSize === ORIGINAL.batchSize,
        ),
      PROBE_SECONDS * 1000 + 15_000,
    );
    timeline.mappingRestored = restored.at;
    expect(restored).toMatchObject({ state: 'Enabled', ...ORIGINAL });
    await waitFor('pause-1 succeeded', async () => (await e2e.executionStatus('pause-1')) === 'SUCCEEDED');

    const closed = await e2e.breaker();
    expect(str(closed, 'state')).toBe('closed');
    expect(num(closed, 'epoch')).toBe(1); // tripped once
    // The probe: at least one success counted while half-open, no failure.
    const halfOpen = breakerSamples.filter((sample) => str(sample.item, 'state') === 'half-open');
    expect(halfOpen.length).toBeGreaterThan(0);
    const successes = Math.max(...halfOpen.map((sample) => num(sample.item, 'probeSuccesses') ?? 0));
    const failures = Math.max(...halfOpen.map((sample) => num(sample.item, 'probeFailures') ?? 0));
    expect({ successes, failures }).toMatchObject({ failures: 0 });
    expect(successes).toBeGreaterThanOrEqual(1);
    // The message that waited out the pause went through as the probe, first time.
    const late = await e2e.ledger.get(LATE_KEY);
    expect(late).toMatchObject({ state: 'completed', attempts: 1, charged: 0 });
    expect(Date.parse(late?.lastEndedAt ?? '')).toBeLessThanOrEqual(restored.at);
  }, 45_000);

  it('completes every message, loses none, charges none, quarantines none', async () => {
    const items = await waitFor(
      'all six completed and the queue empty',
      async () => {
        const [ledger, depth] = await Promise.all([e2e.ledgerItems(KEYS), e2e.queueDepth()]);
        const done = [...ledger.values()].every((item) => item?.state === 'completed');
        if (done && depth.total === 0) return ledger;
        const states = [...ledger].map(([key, item]) => `${key}:${item?.state}/${item?.transientFailures}`);
        throw new Error(`${states.join(' ')}; queue ${JSON.stringify(depth)}`);
      },
      30_000,
    ).catch((error: unknown) => {
      console.log(e2e.trace.join('\n'));
      throw error;
    });
    for (const item of items.values()) {
      expect(item).toMatchObject({ state: 'completed', charged: 0 });
    }
    timeline.firstCompletion = Math.min(
      ...[...items.values()].map((item) => Date.parse(item?.lastEndedAt ?? '')),
    );
    expect(await e2e.quarantineRecords()).toStrictEqual([]);
    expect((await e2e.executions()).map((execution) => execution.name)).toStrictEqual(['pause-1']);
    // Each message reached the outside system at least once more after the outage, with a 200.
    const ok = e2e.outside.requests().filter((request) => request.status === 200);
    expect(new Set(ok.map((request) => request.messageId))).toStrictEqual(new Set(KEYS));

    // The timeline, in order.
    const t = timeline as Record<string, number>;
    expect(t.firstFailure).toBeLessThanOrEqual(t.outageDetected);
    expect(t.outageDetected).toBeLessThanOrEqual(t.breakerTripped);
    expect(t.breakerTripped).toBeLessThan(t.mappingDisabled);
    expect(t.mappingDisabled).toBeLessThan(t.dependencyBack);
    expect(t.dependencyBack).toBeLessThan(t.consumptionResumed);
    expect(t.consumptionResumed).toBeLessThan(t.mappingRestored);
    expect(t.consumptionResumed).toBeLessThanOrEqual(t.firstCompletion);
    printTimeline();
  }, 40_000);
});

function printTimeline(): void {
  const t = timeline as Record<string, number>;
  const origin = t.outageStarted;
  const at = (name: string) =>
    t[name] === undefined
      ? 'n/a'
      : `+${String(t[name] - origin).padStart(5)} ms  ${new Date(t[name]).toISOString()}`;
  const rows = [
    ['outage started (outside system answers 503)', 'outageStarted'],
    ['first 503 answered by the outside system', 'firstOutsideError'],
    ['first failure event (control table)', 'firstFailure'],
    ['outage detected (consumer log)', 'outageDetected'],
    ['breaker tripped, pause-1 started (consumer log)', 'breakerTripped'],
    ['breaker tripped (breaker item openedAt, consumer clock)', 'breakerTrippedItem'],
    ['mapping disabled (state machine, disabledAt)', 'disabledAtBySm'],
    ['mapping reported Disabled (GetEventSourceMapping)', 'mappingDisabled'],
    ['outside system back (200)', 'dependencyBack'],
    ['consumption resumed: half-open, mapping Enabled, BatchSize 1', 'consumptionResumed'],
    ['first message completed (ledger lastEndedAt)', 'firstCompletion'],
    ['mapping restored to its own batch size and concurrency', 'mappingRestored'],
  ];
  const lines = rows.map(([label, name]) => `  ${label.padEnd(62)} ${at(name)}`);
  const figure = (from: string, to: string) => `${t[to] - t[from]} ms`;
  lines.push(
    '',
    `  first failure -> breaker tripped:             ${figure('firstFailure', 'breakerTripped')}`,
    `  outage detection -> mapping reported Disabled: ${figure('outageDetected', 'mappingDisabled')}`,
    `  first failure -> mapping reported Disabled:    ${figure('firstFailure', 'mappingDisabled')}`,
    `  mapping Disabled -> consumption resumed:       ${figure('mappingDisabled', 'consumptionResumed')} (cool-down ${COOLDOWN_SECONDS} s)`,
  );
  console.log(`outage timeline (rule 7, acceptance 3):\n${lines.join('\n')}`);
}
