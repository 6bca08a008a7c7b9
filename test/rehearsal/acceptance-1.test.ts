/**
 * Acceptance 1 (rule 1): kill the worker right after the counter write, and the counter still
 * shows the attempt. The demo's `crash-in-parser` SIGKILLs its own process after the wrapper's
 * start write and before anything else; the ledger is read before the message comes back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoBody, nextEvent, startTestPipeline, type TestPipeline, waitUntilSettled } from './support';

let test: TestPipeline;

beforeAll(async () => {
  // The ledger is read within a second of the kill; the message comes back after 12 s (6x 2 s).
  test = await startTestPipeline({ consumerTimeoutSeconds: 2 });
});
afterAll(async () => {
  await test?.stop();
});

describe('a worker killed right after the counter write', () => {
  let messageId: string;

  it('leaves the attempt in the ledger: attempts 1, in flight, nothing else recorded', async () => {
    // Prepare
    const crashed = nextEvent(test.pipeline, 'crash');
    // Act
    messageId = await test.probe.send(demoBody('K1', 'crash-in-parser', 1));
    const crash = await crashed;
    const item = await test.probe.ledger.get(messageId);
    const invocationsBeforeRead = test.invocationsOf(messageId).length;
    // Assess
    expect(crash).toMatchObject({ messageIds: [messageId], signal: 'SIGKILL' });
    expect(invocationsBeforeRead).toBe(1); // read before any redelivery
    expect(item).toMatchObject({
      key: messageId,
      state: 'in-flight',
      attempts: 1,
      charged: 0,
      stage: 'started',
    });
    expect(item?.envId).toBeDefined();
    expect(test.log.recordsOf(messageId)).toStrictEqual([]); // no code of ours ran after the kill
    expect((await test.probe.queueDepth()).inFlight).toBe(1);
  });

  it('charges that attempt at the next delivery, which then completes (times 1)', async () => {
    const items = await waitUntilSettled(test.probe, [messageId], 30_000);
    expect(items.get(messageId)).toMatchObject({ state: 'completed', attempts: 2, charged: 1 });
    expect(test.invocationsOf(messageId)).toHaveLength(2);
  }, 40_000);
});
