/**
 * The local event-source runner against moto: real queues, real SDK calls, real child processes
 * running test/integration/fixtures/scripted-handler.js (each body scripts what happens to it).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UpdateEventSourceMappingCommand } from '@aws-sdk/client-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AwsClients, createClients } from '../../lambdas/adapters/clients';
import { LOCAL_CREDENTIALS, type LocalAws, startLocalAws } from '../../tools/local-aws/moto';
import {
  type EventSourceRunner,
  type RunnerOptions,
  startEventSourceRunner,
} from '../../tools/local-aws/runner';
import { settleBatch } from '../../tools/local-aws/runner/batch-response';
import { createDecoyMapping } from './fixtures/decoy-mapping';
import {
  collect,
  createQueue,
  messagesInQueue,
  readInvocations,
  sendMessages,
  startsOf,
  type TestQueue,
  waitFor,
} from './fixtures/runner-harness';

const SCRIPTED_HANDLER = join(__dirname, 'fixtures', 'scripted-handler.js');
const script = (action: string, extra: Record<string, unknown> = {}) => JSON.stringify({ action, ...extra });

let aws: LocalAws;
let clients: AwsClients;
let runner: EventSourceRunner | undefined;
let invocationLog: string;
let queueCount = 0;

beforeAll(async () => {
  aws = await startLocalAws();
  clients = createClients({ region: aws.region, endpoint: aws.endpoint, credentials: LOCAL_CREDENTIALS });
});
afterEach(async () => {
  await runner?.stop();
  runner = undefined;
});
afterAll(async () => {
  await aws?.stop();
});

async function newQueue(fifo = false): Promise<TestQueue> {
  queueCount += 1;
  invocationLog = join(mkdtempSync(join(tmpdir(), 'pq-runner-')), 'invocations.jsonl');
  return createQueue(clients.sqs, `runner-${queueCount}${fifo ? '.fifo' : ''}`);
}

async function startRunner(queue: TestQueue, overrides: Partial<RunnerOptions> = {}) {
  runner = await startEventSourceRunner({
    clients,
    queueUrl: queue.url,
    queueArn: queue.arn,
    region: aws.region,
    fifo: queue.url.endsWith('.fifo'),
    handler: { file: SCRIPTED_HANDLER, exportName: 'handler' },
    environment: { INVOCATION_LOG: invocationLog, CUSTOM_SETTING: 'from-options' },
    functionName: 'runner-test',
    functionTimeoutMs: 2_000,
    batchSize: 10,
    maximumBatchingWindowMs: 0,
    maximumConcurrency: 1,
    waitTimeSeconds: 1,
    forwardLogs: false,
    ...overrides,
  });
  return runner;
}

describe('the event-source runner', () => {
  it("delivers Lambda's SQS event and context and deletes what succeeded", async () => {
    // Prepare
    const queue = await newQueue();
    const [textId, rawId] = await sendMessages(clients.sqs, queue, [
      {
        body: script('ok'),
        attributes: {
          Text: { DataType: 'String', StringValue: 'hello' },
          Blob: { DataType: 'Binary', BinaryValue: Uint8Array.from([1, 2, 3]) },
        },
      },
      { body: 'not json \u00e9' },
    ]);
    // Act
    const started = await startRunner(queue);
    await waitFor('both messages deleted', () => started.stats().messagesDeleted === 2);
    // Assess
    const [start] = startsOf(invocationLog);
    expect(start.event.Records.map((record) => record.messageId)).toStrictEqual([textId, rawId]);
    expect(start.event.Records[0]).toStrictEqual({
      messageId: textId,
      receiptHandle: expect.any(String),
      body: script('ok'),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: expect.stringMatching(/^\d+$/),
        SenderId: expect.any(String),
        ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d+$/),
      },
      messageAttributes: {
        Text: { stringValue: 'hello', stringListValues: [], binaryListValues: [], dataType: 'String' },
        Blob: { binaryValue: 'AQID', stringListValues: [], binaryListValues: [], dataType: 'Binary' },
      },
      md5OfBody: createHash('md5').update(script('ok')).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: queue.arn,
      awsRegion: 'us-east-1',
    });
    expect(start.event.Records[1].body).toBe('not json \u00e9');
    expect(start.context).toStrictEqual({
      callbackWaitsForEmptyEventLoop: true,
      functionName: 'runner-test',
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:runner-test',
      memoryLimitInMB: '128',
      awsRequestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      logGroupName: '/aws/lambda/runner-test',
      logStreamName: expect.stringMatching(/^\d{4}\/\d{2}\/\d{2}\/\[\$LATEST\][0-9a-f]{32}$/),
      remainingTimeMs: expect.any(Number),
    });
    expect(start.context.remainingTimeMs).toBeGreaterThan(1_000);
    expect(start.env).toStrictEqual({ region: 'us-east-1', endpoint: aws.endpoint, custom: 'from-options' });
    expect(await messagesInQueue(clients.sqs, queue)).toBe(0);
  });

  it('leaves reported batchItemFailures in the queue; they come back with receive count 2', async () => {
    const queue = await newQueue();
    const [okId, failId] = await sendMessages(clients.sqs, queue, [
      { body: script('ok') },
      { body: script('fail', { times: 1 }) },
    ]);
    const started = await startRunner(queue);
    const results = collect(started, 'result');
    await waitFor('both messages deleted', () => started.stats().messagesDeleted === 2);
    expect(results[0]).toMatchObject({ batchItemFailures: [failId], deleted: [okId], returned: [failId] });
    const second = startsOf(invocationLog)[1].event.Records;
    expect(
      second.map((record) => [record.messageId, record.attributes.ApproximateReceiveCount]),
    ).toStrictEqual([[failId, '2']]);
  });

  it('returns the whole batch on an empty itemIdentifier', async () => {
    const queue = await newQueue();
    const ids = await sendMessages(clients.sqs, queue, [
      { body: script('ok') },
      { body: script('bad-id', { times: 1 }) },
    ]);
    const started = await startRunner(queue);
    const results = collect(started, 'result');
    await waitFor('both messages deleted', () => started.stats().messagesDeleted === 2, 8_000);
    expect(results[0]).toMatchObject({
      deleted: [],
      returned: ids,
      wholeBatchFailure: 'invalid itemIdentifier ""',
    });
    const counts = startsOf(invocationLog)[1].event.Records.map(
      (record) => record.attributes.ApproximateReceiveCount,
    );
    expect(counts).toStrictEqual(['2', '2']);
  });

  it('returns the whole batch on a function error and keeps the environment warm', async () => {
    const queue = await newQueue();
    const ids = await sendMessages(clients.sqs, queue, [
      { body: script('ok') },
      { body: script('throw', { times: 1 }) },
    ]);
    const started = await startRunner(queue);
    const errors = collect(started, 'function-error');
    await waitFor('both messages deleted', () => started.stats().messagesDeleted === 2, 8_000);
    expect(errors).toMatchObject([{ messageIds: ids, error: { name: 'Error' } }]);
    const [first, second] = startsOf(invocationLog);
    expect(second.pid).toBe(first.pid);
    expect(started.stats()).toMatchObject({ functionErrors: 1, crashes: 0, environmentsStarted: 1 });
  });

  it('returns the whole batch on a crash and replaces the environment', async () => {
    const queue = await newQueue();
    const ids = await sendMessages(clients.sqs, queue, [
      { body: script('ok') },
      { body: script('crash', { times: 1 }) },
      { body: script('ok') },
    ]);
    const started = await startRunner(queue);
    const crashes = collect(started, 'crash');
    const replaced = collect(started, 'env-replaced');
    await waitFor('all three deleted', () => started.stats().messagesDeleted === 3, 8_000);
    const [first, second] = startsOf(invocationLog);
    expect(crashes).toMatchObject([{ pid: first.pid, messageIds: ids, signal: 'SIGKILL', exitCode: null }]);
    expect(replaced).toMatchObject([{ reason: 'crash', pid: second.pid }]);
    expect(second.pid).not.toBe(first.pid);
    expect(second.event.Records.map((record) => record.attributes.ApproximateReceiveCount)).toStrictEqual([
      '2',
      '2',
      '2',
    ]);
    // The first record was handled before the crash, yet Lambda deletes nothing of a crashed batch.
    expect(readInvocations(invocationLog).filter((line) => line.phase === 'end')).toHaveLength(1);
  });

  it('kills an invocation that outlives the function timeout and returns its batch', async () => {
    const queue = await newQueue();
    const [hangId] = await sendMessages(clients.sqs, queue, [{ body: script('hang', { times: 1 }) }]);
    const started = await startRunner(queue, { functionTimeoutMs: 700 });
    const timeouts = collect(started, 'timeout');
    const replaced = collect(started, 'env-replaced');
    await waitFor('the message deleted', () => started.stats().messagesDeleted === 1, 8_000);
    const [first, second] = startsOf(invocationLog);
    expect(timeouts).toMatchObject([{ pid: first.pid, messageIds: [hangId], timeoutMs: 700 }]);
    expect(replaced).toMatchObject([{ reason: 'timeout', pid: second.pid }]);
    expect(second.pid).not.toBe(first.pid);
    expect(first.context.remainingTimeMs).toBeLessThanOrEqual(700);
  });

  it("says how long each answered invocation took, so a report can tell a deadline's margin", async () => {
    const queue = await newQueue();
    await sendMessages(clients.sqs, queue, [{ body: script('sleep', { ms: 400 }) }]);
    const started = await startRunner(queue);
    const results = collect(started, 'result');
    await waitFor('the message deleted', () => started.stats().messagesDeleted === 1);
    expect(results).toHaveLength(1);
    expect(results[0].durationMs).toBeGreaterThanOrEqual(400);
  });

  it('honours the batch size and the concurrency', async () => {
    const queue = await newQueue();
    await sendMessages(
      clients.sqs,
      queue,
      Array.from({ length: 12 }, () => ({ body: script('sleep', { ms: 300 }) })),
    );
    const started = await startRunner(queue, { batchSize: 2, maximumConcurrency: 3 });
    await waitFor('all twelve deleted', () => started.stats().messagesDeleted === 12);
    const lines = readInvocations(invocationLog);
    const starts = lines.filter((line) => line.phase === 'start');
    expect(Math.max(...starts.map((line) => line.event.Records.length))).toBeLessThanOrEqual(2);
    expect(new Set(starts.map((line) => line.pid)).size).toBe(3);
    expect(maximumOverlap(lines)).toBe(3);
  });

  it('gathers a batch larger than 10 from several receives within the batching window', async () => {
    const queue = await newQueue();
    await sendMessages(
      clients.sqs,
      queue,
      Array.from({ length: 25 }, () => ({ body: script('ok') })),
    );
    const started = await startRunner(queue, { batchSize: 15, maximumBatchingWindowMs: 1_000 });
    await waitFor('all deleted', () => started.stats().messagesDeleted === 25);
    expect(startsOf(invocationLog).map((line) => line.event.Records.length)).toStrictEqual([15, 10]);
  });

  it('delivers the FIFO attributes and applies a FIFO response as returned', async () => {
    const queue = await newQueue(true);
    const ids = await sendMessages(clients.sqs, queue, [
      { body: script('ok'), groupId: 'g1', deduplicationId: 'd1' },
      { body: script('fail', { times: 1 }), groupId: 'g1', deduplicationId: 'd2' },
      { body: script('ok'), groupId: 'g1', deduplicationId: 'd3' },
    ]);
    const started = await startRunner(queue);
    const results = collect(started, 'result');
    await waitFor('all deleted', () => started.stats().messagesDeleted === 3, 8_000);
    const [first] = startsOf(invocationLog);
    expect(first.event.Records[0].attributes).toStrictEqual({
      ApproximateReceiveCount: '1',
      SentTimestamp: expect.stringMatching(/^\d+$/),
      SequenceNumber: expect.stringMatching(/^\d+$/),
      MessageGroupId: 'g1',
      SenderId: expect.any(String),
      MessageDeduplicationId: 'd1',
      ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d+$/),
    });
    expect(results[0]).toMatchObject({ deleted: [ids[0], ids[2]], returned: [ids[1]] });
  });

  it('follows the mapping in moto: its batch size, and no polling while it is disabled', async () => {
    const queue = await newQueue();
    const { uuid } = await createDecoyMapping(clients, aws.endpoint, { batchSize: 1 });
    const started = await startRunner(queue, { mapping: { uuid, pollStateEveryMs: 100 } });
    await sendMessages(clients.sqs, queue, [{ body: script('ok') }, { body: script('ok') }]);
    await waitFor('two deleted', () => started.stats().messagesDeleted === 2);
    expect(startsOf(invocationLog).map((line) => line.event.Records.length)).toStrictEqual([1, 1]);

    await clients.lambda.send(new UpdateEventSourceMappingCommand({ UUID: uuid, Enabled: false }));
    await waitFor('the runner to stop polling', () => !started.stats().polling);
    // A long poll already under way when the mapping was disabled may still take a message.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await sendMessages(clients.sqs, queue, [{ body: script('ok') }]);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(started.stats().invocations).toBe(2);
    expect(await messagesInQueue(clients.sqs, queue)).toBe(1);

    await clients.lambda.send(new UpdateEventSourceMappingCommand({ UUID: uuid, Enabled: true }));
    await waitFor('the third deleted', () => started.stats().messagesDeleted === 3);
    await waitFor('the queue empty', async () => (await messagesInQueue(clients.sqs, queue)) === 0);
  });

  it("follows the mapping's ScalingConfig.MaximumConcurrency, adding environments when it grows", async () => {
    const queue = await newQueue();
    const { uuid } = await createDecoyMapping(clients, aws.endpoint, {
      batchSize: 10,
      maximumConcurrency: 2,
    });
    const started = await startRunner(queue, {
      maximumConcurrency: 1,
      mapping: { uuid, pollStateEveryMs: 100 },
    });
    expect(started.stats()).toMatchObject({ maximumConcurrency: 2, environmentsStarted: 2 });

    await clients.lambda.send(
      new UpdateEventSourceMappingCommand({ UUID: uuid, ScalingConfig: { MaximumConcurrency: 3 } }),
    );
    await waitFor('a third environment', () => started.stats().environments.length === 3);
  });

  it('kills every environment it started when stopped', async () => {
    const queue = await newQueue();
    const started = await startRunner(queue, { maximumConcurrency: 2 });
    const pids = started.stats().environments.map((environment) => environment.pid);
    expect(pids).toHaveLength(2);
    await started.stop();
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
  });

  it('refuses to start when the handler cannot be loaded, or the options are impossible', async () => {
    const queue = await newQueue();
    await expect(startRunner(queue, { functionTimeoutMs: 2_500 })).rejects.toThrow(
      "the function timeout (2500 ms) exceeds the queue's visibility timeout (2 s)",
    );
    await expect(
      startRunner(queue, { handler: { file: SCRIPTED_HANDLER, exportName: 'missing' } }),
    ).rejects.toThrow(/does not export a function named "missing"/);
    await expect(startRunner(queue, { batchSize: 20, maximumConcurrency: 0 })).rejects.toThrow(
      /batchSize 20 > 10 needs a batching window >= 1000 ms \(given 0\)[\s\S]*maximumConcurrency must be an integer >= 1 \(given 0\)/,
    );
  });
});

describe("Lambda's partial batch response rules", () => {
  const ids = ['a', 'b', 'c'];
  it.each([undefined, null, 'done', {}, { batchItemFailures: null }, { batchItemFailures: [] }])(
    'counts %j as all succeeded',
    (response) => {
      expect(settleBatch(ids, response)).toStrictEqual({ kind: 'partial', failed: [], succeeded: ids });
    },
  );

  it('keeps the listed records, in batch order, and deletes the rest', () => {
    const response = { batchItemFailures: [{ itemIdentifier: 'c' }, { itemIdentifier: 'a' }] };
    expect(settleBatch(ids, response)).toStrictEqual({
      kind: 'partial',
      failed: ['a', 'c'],
      succeeded: ['b'],
    });
  });

  it.each([
    [{ batchItemFailures: [{ itemIdentifier: '' }] }, 'invalid itemIdentifier ""'],
    [{ batchItemFailures: [{ itemIdentifier: null }] }, 'invalid itemIdentifier null'],
    [{ batchItemFailures: [{ id: 'a' }] }, 'invalid itemIdentifier undefined'],
    [{ batchItemFailures: [{ itemIdentifier: 'z' }] }, 'itemIdentifier z is not a message of this batch'],
    [{ batchItemFailures: 'a' }, 'batchItemFailures is not a list'],
  ])('fails the whole batch for %j', (response, reason) => {
    expect(settleBatch(ids, response)).toStrictEqual({ kind: 'whole-batch-failed', reason });
  });
});

/** The most invocations that ran at the same moment, from the log's start and end lines. */
function maximumOverlap(lines: ReturnType<typeof readInvocations>): number {
  const edges = lines.map((line) => ({ at: line.at, delta: line.phase === 'start' ? 1 : -1 }));
  edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let running = 0;
  let most = 0;
  for (const edge of edges) {
    running += edge.delta;
    most = Math.max(most, running);
  }
  return most;
}
