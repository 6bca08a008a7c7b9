/**
 * Rule 13: a message already completed or quarantined that is delivered again is acknowledged
 * without new work. With `messageKeyPath: 'id'` two SQS messages with the same body id share
 * one ledger key, so a re-send is a duplicate delivery of the same message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoBody, startTestPipeline, type TestPipeline, waitFor, waitUntilSettled } from './support';

let test: TestPipeline;

beforeAll(async () => {
  // Nothing here should come back on its own, so a roomy timeout costs nothing and keeps a busy
  // machine from turning a slow invocation into a crash.
  test = await startTestPipeline({ consumerTimeoutSeconds: 5, pipeline: { messageKeyPath: 'id' } });
});
afterAll(async () => {
  await test?.stop();
});

/** Sends `body` again and waits until that copy has been acknowledged (deleted from the queue). */
async function sendCopy(body: string) {
  const copy = await test.probe.send(body);
  const line = await waitFor(`the copy ${copy} processed`, () => test.log.recordsOf(copy)[0]);
  await waitFor('the queue empty', async () => (await test.probe.queueDepth()).total === 0);
  return { copy, line };
}

describe('a completed message delivered again', () => {
  it('does no new work: the ledger still shows one attempt and the copy is acknowledged', async () => {
    // Prepare
    const body = demoBody('D1', 'succeed-with-external');
    const original = await test.probe.send(body);
    await waitUntilSettled(test.probe, ['D1']);
    // Act
    const { copy, line } = await sendCopy(body);
    // Assess
    expect(line.outcome).toStrictEqual({ kind: 'duplicate' });
    // One refused conditional write, nothing else: no work, no external call.
    expect(line.calls).toMatchObject({ dynamodbWrites: 1, dynamodbReads: 0, s3: 0, sqs: 0, sfn: 0 });
    expect(await test.probe.ledger.get('D1')).toMatchObject({
      state: 'completed',
      attempts: 1,
      messageId: original,
    });
    expect(test.pipeline.outside.counts()).toStrictEqual({ D1: 1 });
    expect(test.invocationsOf(copy)).toHaveLength(1);
  });
});

describe('a quarantined message delivered again', () => {
  it('is acknowledged without a new attempt or a second quarantine record', async () => {
    const body = demoBody('D2', 'throw-permanent');
    await test.probe.send(body);
    await waitUntilSettled(test.probe, ['D2']);
    const before = await test.probe.ledger.get('D2');

    const { line } = await sendCopy(body);

    expect(line.outcome).toStrictEqual({ kind: 'duplicate' });
    expect(await test.probe.ledger.get('D2')).toStrictEqual(before);
    expect(before).toMatchObject({ state: 'quarantined', attempts: 1 });
    const records = await test.probe.quarantineRecords();
    expect(records.filter((record) => record.messageKey === 'D2')).toHaveLength(1);
  });
});
