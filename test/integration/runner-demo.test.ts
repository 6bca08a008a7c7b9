/**
 * The demo worker's crashing behaviours, through the runner: real SIGKILLs and real timeouts in
 * a child process, and "the outside system" counting what actually reached it.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AwsClients, createClients } from '../../lambdas/adapters/clients';
import { DEMO_OUTSIDE_SYSTEM_URL_ENV } from '../../lambdas/demo/worker';
import { type OutsideSystem, startOutsideSystem } from '../../local/outside-system';
import { LOCAL_CREDENTIALS, type LocalAws, startLocalAws } from '../../tools/local-aws/moto';
import { type EventSourceRunner, startEventSourceRunner } from '../../tools/local-aws/runner';
import { collect, createQueue, sendMessages, waitFor } from './fixtures/runner-harness';

const DEMO_HANDLER = join(__dirname, 'fixtures', 'demo-handler.ts');

let aws: LocalAws;
let clients: AwsClients;
let outside: OutsideSystem;
let runner: EventSourceRunner | undefined;

beforeAll(async () => {
  aws = await startLocalAws();
  clients = createClients({ region: aws.region, endpoint: aws.endpoint, credentials: LOCAL_CREDENTIALS });
  outside = await startOutsideSystem();
});
afterEach(async () => {
  await runner?.stop();
  runner = undefined;
});
afterAll(async () => {
  await outside?.stop();
  await aws?.stop();
});

/** Runs one demo message through a fresh queue and runner until the runner has deleted it. */
async function runDemoMessage(body: object, functionTimeoutMs = 2_000) {
  const queue = await createQueue(clients.sqs, `demo-${Object.values(body)[0]}`);
  const [messageId] = await sendMessages(clients.sqs, queue, [{ body: JSON.stringify(body) }]);
  runner = await startEventSourceRunner({
    clients,
    queueUrl: queue.url,
    queueArn: queue.arn,
    region: aws.region,
    fifo: false,
    handler: { file: DEMO_HANDLER, exportName: 'handler' },
    environment: { [DEMO_OUTSIDE_SYSTEM_URL_ENV]: outside.url },
    functionName: 'demo-worker',
    functionTimeoutMs,
    batchSize: 1,
    maximumBatchingWindowMs: 0,
    maximumConcurrency: 1,
    waitTimeSeconds: 1,
    forwardLogs: false,
  });
  const events = {
    crash: collect(runner, 'crash'),
    timeout: collect(runner, 'timeout'),
    result: collect(runner, 'result'),
  };
  const started = runner;
  await waitFor('the message deleted', () => started.stats().messagesDeleted === 1);
  return { messageId, events };
}

describe('the demo worker in a real execution environment', () => {
  it('crash-in-parser: SIGKILLs the process before any external call', async () => {
    const { messageId, events } = await runDemoMessage({ id: 'P1', behaviour: 'crash-in-parser', times: 1 });
    expect(events.crash).toMatchObject([{ messageIds: [messageId], signal: 'SIGKILL' }]);
    expect(outside.counts().P1).toBeUndefined();
  });

  it('crash-after-external: the request reaches the outside system once, then the process dies', async () => {
    const { messageId, events } = await runDemoMessage({
      id: 'X1',
      behaviour: 'crash-after-external',
      times: 1,
    });
    expect(events.crash).toMatchObject([{ messageIds: [messageId], signal: 'SIGKILL' }]);
    // The second attempt is past "times" and plainly succeeds, without a second request.
    expect(outside.counts().X1).toBe(1);
  });

  it('hang: outlives the function timeout and is killed', async () => {
    const { messageId, events } = await runDemoMessage({ id: 'H1', behaviour: 'hang', times: 1 }, 1_000);
    expect(events.timeout).toMatchObject([{ messageIds: [messageId], timeoutMs: 1_000 }]);
    expect(events.crash).toStrictEqual([]);
  });

  it('succeed-with-external: one request, and the message is deleted', async () => {
    const { messageId, events } = await runDemoMessage({ id: 'S1', behaviour: 'succeed-with-external' });
    expect(events.result).toMatchObject([{ deleted: [messageId] }]);
    expect(outside.counts().S1).toBe(1);
  });
});
