/**
 * Rule 10 in a batch: ten records per invocation, one at a time, and the fifth crashes the
 * parser on every attempt. Each crash returns the whole batch, so the four records completed
 * before it come back twice more; none is redone (rule 13), the five after it complete once the
 * poison is quarantined, and the poison uses exactly its budget (rules 2 and 5).
 *
 * Limit 2 and a 4 s consumer timeout: a batch of ten must not come near its deadline on a busy
 * machine (a timeout is a crash too, and the time guard hands late records back), and two
 * visibility timeouts of 24 s keep the file short enough.
 */
import { Duration } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../lambdas/ports/ledger';
import { demoBody, startTestPipeline, type TestPipeline, waitUntilSettled } from './support';

const LABELS = ['B1', 'B2', 'B3', 'B4', 'P5', 'B6', 'B7', 'B8', 'B9', 'B10'];
const POISON = 'P5';

let test: TestPipeline;
const keyOf = new Map<string, string>();
let items: Map<string, LedgerEntry | undefined>;

beforeAll(async () => {
  test = await startTestPipeline({
    consumerTimeoutSeconds: 4,
    // The batching window gathers all ten sends into one batch.
    pipeline: {
      batchSize: 10,
      inProcessConcurrency: 1,
      attemptLimit: 2,
      maxBatchingWindow: Duration.seconds(1),
    },
  });
  const keys = await test.probe.sendBatch(
    LABELS.map((label) => demoBody(label, label === POISON ? 'crash-in-parser' : 'succeed')),
  );
  for (const [index, label] of LABELS.entries()) keyOf.set(label, keys[index]);
  items = await waitUntilSettled(test.probe, [...keyOf.values()], 100_000);
}, 150_000);
afterAll(async () => {
  await test?.stop();
});

describe('a batch of ten with a poison message in the middle', () => {
  it('ran the ten as one batch, and the poison crashed the worker twice', () => {
    const poison = keyOf.get(POISON) as string;
    const first = test.invocations[0];
    expect(first.messageIds).toHaveLength(10);
    expect(test.log.deaths.map((death) => death.messageIds.includes(poison))).toStrictEqual([true, true]);
  });

  it('completes every healthy message exactly once (ledger attempts 1)', () => {
    for (const label of LABELS.filter((candidate) => candidate !== POISON)) {
      expect(items.get(keyOf.get(label) as string), label).toMatchObject({
        state: 'completed',
        attempts: 1,
        charged: 0,
      });
    }
  });

  it('acknowledges the records completed before a crash as duplicates when they come back, at once, so they come back only once', () => {
    // The redelivered batch may crash again, so its finished records are deleted right away
    // instead of waiting for a batch response the crash would never send.
    // Judged by the invocations that held each, not by log lines: a line written just before
    // the worker is SIGKILLed may never reach the pipe. On a loaded machine the time guard may
    // hand one back uncharged before its turn, so it can come a third time, never to be redone.
    const heldBy = ['B1', 'B2', 'B3', 'B4'].map(
      (label) => test.invocationsOf(keyOf.get(label) as string).length,
    );
    expect(
      heldBy.every((count) => count >= 2 && count <= 3),
      String(heldBy),
    ).toBe(true);
    expect(heldBy.filter((count) => count === 2).length, String(heldBy)).toBeGreaterThan(0);
    for (const label of ['B1', 'B2', 'B3', 'B4']) {
      const outcomes = test.log.recordsOf(keyOf.get(label) as string).map((line) => line.outcome.kind);
      expect(outcomes[0], label).toBe('completed');
      expect(
        outcomes.slice(1).every((kind) => kind === 'duplicate' || kind === 'returned'),
        label,
      ).toBe(true);
    }
  });

  it('quarantines the poison after two charged attempts, without a third', async () => {
    const poison = keyOf.get(POISON) as string;
    expect(items.get(poison)).toMatchObject({ state: 'quarantined', attempts: 2, charged: 2 });
    const records = await test.probe.quarantineRecords();
    expect(records).toMatchObject([{ messageKey: poison, reason: 'crash-limit', attemptsStarted: 2 }]);
    expect(await test.probe.queueDepth()).toMatchObject({ total: 0 });
  });
});
