/**
 * The 'busy' decision (lambdas/core/delivery.ts): a second SQS message with the same business key
 * (`messageKeyPath: 'id'`) reaches a second execution environment while the first copy's attempt
 * is still running, its external call pending. An attempt younger than the consumer timeout may
 * be alive: the second copy must not settle it as a crash (no charge, no crash item, no isolation,
 * no quarantine as outcome unknown) and must not start the work again (one external request). It
 * comes back after a visibility delay, finds the first copy completed and is acknowledged as a
 * duplicate (rule 13).
 *
 * The outside system answers K1 after 3 s, so the first attempt is surely running when the copy
 * arrives; a 6 s consumer timeout leaves that call well inside its deadline on a busy machine.
 */
import { type AttributeValue, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../contract/env';
import type { LedgerEntry } from '../../lambdas/ports/ledger';
import type { RecordLine } from '../../local/consumer-log';
import { demoBody, startTestPipeline, type TestPipeline, waitFor, waitUntilSettled } from './support';

const KEY = 'K1';
const ANSWER_DELAY_MS = 3_000;
const CONSUMER_TIMEOUT_SECONDS = 6;

let test: TestPipeline;
let original: string;
let copy: string;
/** K1's ledger item while the original's external call was pending. */
let running: LedgerEntry | undefined;
/** The copy's first record line, and whether the original had finished when it was logged. */
let copyFirst: RecordLine;
let originalFinishedBeforeCopy: boolean;
let settled: Map<string, LedgerEntry | undefined>;

/** Every control-table item under one partition (`crash`, `failure`, `isolation`, ...). */
async function controlItems(pk: string): Promise<Record<string, AttributeValue>[]> {
  const { Items = [] } = await test.pipeline.clients.dynamodb.send(
    new QueryCommand({
      TableName: test.pipeline.env(ENV.controlTable),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: pk } },
      ConsistentRead: true,
    }),
  );
  return Items;
}

beforeAll(async () => {
  test = await startTestPipeline({
    consumerTimeoutSeconds: CONSUMER_TIMEOUT_SECONDS,
    environments: 2,
    pipeline: { messageKeyPath: 'id' },
  });
  test.pipeline.outside.answerFor(KEY, { delayMs: ANSWER_DELAY_MS });
  const body = demoBody(KEY, 'succeed-with-external');

  original = await test.probe.send(body);
  // The request has reached the outside system: the original's attempt is running, its call pending.
  await waitFor('the original calling the outside system', () => test.pipeline.outside.counts()[KEY] === 1);
  running = await test.probe.ledgerItem(KEY);

  copy = await test.probe.send(body);
  copyFirst = await waitFor('the copy processed once', () => test.log.recordsOf(copy)[0], 10_000);
  originalFinishedBeforeCopy = test.log.recordsOf(original).length > 0;

  // Not settling is reported by the assertions below (what happened instead), not as a timeout here.
  settled = await waitUntilSettled(test.probe, [KEY], 20_000).catch(() => test.probe.ledgerItems([KEY]));
  await waitFor(
    'the copy acknowledged as a duplicate',
    () => test.log.recordsOf(copy).some((line) => line.outcome.kind === 'duplicate'),
    5_000,
  ).catch(() => undefined);
}, 90_000);
afterAll(async () => {
  await test?.stop();
});

describe('a copy of a message delivered while its first attempt is still running', () => {
  it('reaches a second execution environment while the first attempt is in flight', () => {
    expect(running).toMatchObject({
      state: 'in-flight',
      attempts: 1,
      charged: 0,
      messageId: original,
      external: { status: 'pending' },
    });
    const [originalInvocation] = test.invocationsOf(original);
    const [copyInvocation] = test.invocationsOf(copy);
    expect(copyInvocation.envId).not.toBe(originalInvocation.envId);
    expect(originalFinishedBeforeCopy).toBe(false);
  });

  it('waits: the copy goes back with a visibility delay, nothing charged, no new attempt', () => {
    expect(copyFirst.outcome.kind).toBe('retry');
    const { delaySeconds } = copyFirst.outcome as { delaySeconds: number };
    expect(delaySeconds).toBeGreaterThanOrEqual(1);
    expect(delaySeconds).toBeLessThanOrEqual(CONSUMER_TIMEOUT_SECONDS);
    // The refused start, then the visibility change: no settle-and-start write, no crash count.
    expect(copyFirst.calls).toMatchObject({ dynamodbWrites: 1, s3: 0, sfn: 0, sqs: 1 });
  });

  it('treats nothing as a crash: no crash item, no failure event, no trial, no death', async () => {
    expect(running?.envId).toBeDefined();
    expect(await controlItems('crash')).toStrictEqual([]);
    expect(await controlItems('failure')).toStrictEqual([]);
    const [isolation] = await controlItems('isolation');
    expect(isolation?.active?.BOOL ?? false).toBe(false);
    expect(test.log.deaths).toStrictEqual([]);
  });

  it('quarantines nothing and calls the outside system exactly once', async () => {
    expect(await test.probe.quarantineRecords()).toStrictEqual([]);
    expect(test.log.quarantined).toStrictEqual([]);
    expect(test.pipeline.outside.counts()).toStrictEqual({ [KEY]: 1 });
  });

  it('completes the original once and acknowledges the copy as a duplicate; the queue empties', async () => {
    expect(settled.get(KEY)).toMatchObject({
      state: 'completed',
      attempts: 1,
      charged: 0,
      messageId: original,
      external: { status: 'done' },
    });
    expect(test.log.recordsOf(original).map((line) => line.outcome.kind)).toStrictEqual(['completed']);
    expect(test.log.recordsOf(copy).map((line) => line.outcome.kind)).toStrictEqual(['retry', 'duplicate']);
    expect(await test.probe.queueDepth()).toMatchObject({ total: 0 });
  });
});
