/**
 * Issue 7, end to end: the promises about settle writes, keyless calls and the invocation's time
 * (docs/behaviour.md, "Where the contract is silent"). The real consumer bundle runs with a fault
 * injector over its ports (sim/faults), in real Node processes against moto; the crash is a real
 * SIGKILL. One message per defect, so each outcome is told apart; only K1 makes a rule 7
 * failure event (one key), so no pause can blur the figures.
 */
import { Duration } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import type { LedgerEntry } from '../../lambdas/ports/ledger';
import { type LocalPipeline, startLocalPipeline } from '../../local/local-pipeline';
import { PipelineProbe } from '../../local/rehearsal/pipeline-probe';
import type { RunnerEvents } from '../../tools/local-aws/runner';
import { demoBody, waitUntilSettled } from './support';

const MESSAGES = [
  // The completion write fails every settle try (4), and once more at the redelivery.
  { id: 'C1', behaviour: 'succeed-with-external' },
  // The `done` write of its keyless call fails every settle try.
  { id: 'R1', behaviour: 'succeed-with-external' },
  // 2 s of work each: two in one 4 s invocation would outlast it.
  { id: 'S1', behaviour: 'slow' },
  { id: 'S2', behaviour: 'slow' },
  { id: 'S3', behaviour: 'slow' },
  // A keyless call, then a keyed one, then SIGKILL.
  { id: 'K1', behaviour: 'external-then-keyed-then-crash' },
];
const SLOW = ['S1', 'S2', 'S3'];

let pipeline: LocalPipeline;
let probe: PipelineProbe;
/** Label -> SQS messageId (the ledger key). */
let sent: Map<string, string>;
const results: RunnerEvents['result'][] = [];
const crashes: RunnerEvents['crash'][] = [];
const logs: RunnerEvents['log'][] = [];
let items: Map<string, LedgerEntry | undefined>;
let records: QuarantineRecord[];

beforeAll(async () => {
  pipeline = await startLocalPipeline({
    pipeline: {
      // 4 s (visibility 24 s): the settle tries and their sleeps (0.7 s) fit twice over on a
      // loaded machine (at 3 s, one invocation timed out while other suites ran).
      consumerTimeout: Duration.seconds(4),
      // A batch of several records, one at a time: the time guard decides which of them start.
      batchSize: 10,
      maxBatchingWindow: Duration.seconds(1),
      inProcessConcurrency: 1,
    },
    environments: 1,
    faults: [
      { at: 'ledger.recordExternal:done', error: 'throttle', times: 4, message: 'R1' },
      { at: 'ledger.complete', error: 'server-error', times: 5, message: 'C1' },
    ],
  });
  pipeline.runner.on('result', (result) => results.push(result));
  pipeline.runner.on('crash', (crash) => crashes.push(crash));
  pipeline.runner.on('log', (line) => logs.push(line));
  probe = new PipelineProbe(pipeline);
  // One request: the first receive takes them all, so the slow ones share invocations.
  const ids = await probe.sendBatch(MESSAGES.map(({ id, behaviour }) => demoBody(id, behaviour)));
  sent = new Map(MESSAGES.map(({ id }, index) => [id, ids[index]]));
  // C1 comes back twice and K1 once, a visibility timeout (24 s) each.
  items = await waitUntilSettled(probe, ids, 100_000);
  records = await probe.quarantineRecords();
}, 180_000);
afterAll(async () => {
  await pipeline?.stop();
});

const key = (id: string) => sent.get(id) ?? id;
const item = (id: string) => items.get(key(id));
const record = (id: string) => records.find((candidate) => candidate.messageKey === key(id));
const requests = (id: string) => pipeline.outside.counts()[id] ?? 0;
const label = (messageId: string) => MESSAGES.find(({ id }) => key(id) === messageId)?.id ?? messageId;
/** What a crash held and how it died, with its environment's last stderr lines: a failure explains itself. */
const crashReport = () =>
  JSON.stringify(
    crashes.map((crash) => ({
      ...crash,
      messageIds: crash.messageIds.map(label),
      stderr: logs.filter((line) => line.envId === crash.envId && line.stream === 'stderr').slice(-8),
    })),
    null,
    1,
  );
const fired = () => pipeline.faults?.fired().map((fault) => [fault.at, fault.message, fault.fired]);

describe('given settle writes that fail, a crash after a keyed call, and slow records', () => {
  it('when a keyless call, then a keyed call, then a crash, then the next delivery quarantines K1 as outcome unknown', () => {
    expect(
      crashes.map((crash) => crash.messageIds.includes(key('K1'))),
      crashReport(),
    ).toStrictEqual([true]);
    // Rule 8: the keyed call's result must not hide the keyless one; no second attempt starts.
    expect(item('K1')).toMatchObject({ state: 'quarantined', attempts: 1, charged: 0 });
    expect(record('K1')).toMatchObject({ reason: 'outcome-unknown', attemptsStarted: 1 });
    // Both calls count under K1, the keyless one first: a second attempt would make it 4.
    expect(requests('K1')).toBe(2);
  });

  it('when the done write of a keyless call fails every settle try, then R1 completes without a person and is not called again', () => {
    // Issue 22, defect 8: the call returned; the attempt knows it, so nobody is asked.
    expect(fired()).toContainEqual(['ledger.recordExternal:done', 'R1', 4]);
    expect(item('R1')).toMatchObject({ state: 'completed', attempts: 1, charged: 0 });
    expect(record('R1')).toBeUndefined();
    expect(requests('R1')).toBe(1);
  });

  it('when slow records would outlast the invocation together, then the extra ones go back uncharged and all complete', () => {
    const isSlow = (messageId: string) => SLOW.some((id) => key(id) === messageId);
    const together = results.filter((result) => result.messageIds.filter(isSlow).length >= 2);
    // The guard acted: each invocation that held several slow records finished one of them.
    expect(together.length).toBeGreaterThan(0);
    for (const result of together) expect(result.deleted.filter(isSlow).length).toBeLessThanOrEqual(1);
    expect(pipeline.runner.stats().timeouts).toBe(0);
    for (const id of SLOW) expect(item(id)).toMatchObject({ state: 'completed', attempts: 1, charged: 0 });
  });

  it('when the completion write fails more than the settle tries, then C1 is completed uncharged and its work not redone', () => {
    expect(fired()).toContainEqual(['ledger.complete', 'C1', 5]);
    expect(item('C1')).toMatchObject({ state: 'completed', attempts: 1, charged: 0 });
    expect(record('C1')).toBeUndefined();
    expect(requests('C1')).toBe(1);
  });

  it('when it has settled, then only the outcome-unknown message waits for a person and nothing paused', async () => {
    expect(records.map((entry) => entry.reason)).toStrictEqual(['outcome-unknown']);
    const executions = await probe.executions();
    expect(executions.filter((execution) => execution.name.startsWith('pause-'))).toStrictEqual([]);
    expect(executions.map((execution) => execution.status)).toStrictEqual(['RUNNING']);
  });
});
