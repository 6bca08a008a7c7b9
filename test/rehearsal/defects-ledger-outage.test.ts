/**
 * Issue 7, end to end: an attempts table that refuses start writes (docs/behaviour.md, "Outages
 * of our own and of hanging dependencies"). The real consumer bundle runs with a fault injector
 * that throttles every `ledger.start`, whatever the message, for longer than this test lasts; in a
 * real Node process against moto. Each refused start is a rule 7 failure event, so consumption
 * pauses instead of handing the messages back round after round until SQS moves them to the
 * backstop queue.
 */
import { GetEventSourceMappingCommand } from '@aws-sdk/client-lambda';
import { GetQueueAttributesCommand, GetQueueUrlCommand } from '@aws-sdk/client-sqs';
import { Duration } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../contract/env';
import { SourceQueue } from '../../lambdas/adapters/source-queue';
import { type LocalPipeline, startLocalPipeline } from '../../local/local-pipeline';
import { PipelineProbe } from '../../local/rehearsal/pipeline-probe';
import { holdsFor } from './e2e-support';
import { demoBody, waitFor } from './support';

const LABELS = ['T1', 'T2', 'T3', 'T4', 'T5'];

let pipeline: LocalPipeline;
let probe: PipelineProbe;
let invocations = 0;

beforeAll(async () => {
  pipeline = await startLocalPipeline({
    pipeline: {
      consumerTimeout: Duration.seconds(3),
      batchSize: 10,
      maxBatchingWindow: Duration.seconds(1),
      inProcessConcurrency: 1,
    },
    environments: 1,
    // More refusals than the test can use up: the table stays down throughout.
    faults: [{ at: 'ledger.start', error: 'throttle', times: 100 }],
  });
  probe = new PipelineProbe(pipeline);
  pipeline.runner.on('invoke', () => {
    invocations += 1;
  });
});
afterAll(async () => {
  await pipeline?.stop();
});

async function mappingState(): Promise<string | undefined> {
  const [mapping] = pipeline.stack.eventSourceMappings;
  const read = await pipeline.clients.lambda.send(new GetEventSourceMappingCommand({ UUID: mapping.uuid }));
  return read.State;
}

/** The source queue's dead-letter target, as SQS itself knows it. */
async function backstop(): Promise<SourceQueue> {
  const { sqs } = pipeline.clients;
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: pipeline.env(ENV.sourceQueueUrl),
      AttributeNames: ['RedrivePolicy'],
    }),
  );
  const { deadLetterTargetArn } = JSON.parse(Attributes?.RedrivePolicy ?? '{}') as {
    deadLetterTargetArn: string;
  };
  const { QueueUrl } = await sqs.send(
    new GetQueueUrlCommand({ QueueName: deadLetterTargetArn.split(':').at(-1) }),
  );
  return new SourceQueue(sqs, QueueUrl as string);
}

describe('given the attempts table refuses every start write', () => {
  it('when five messages arrive together, then consumption pauses after three refusals and none reaches the backstop', async () => {
    // Act
    const ids = await probe.sendBatch(LABELS.map((id) => demoBody(id, 'succeed')));
    await waitFor('the mapping disabled by the pause', async () => (await mappingState()) === 'Disabled');

    // Assess: three refused keys trip the breaker; the rest of the batch is not even tried.
    expect(pipeline.faults?.fired().map((fault) => fault.fired)).toStrictEqual([3]);
    expect(await probe.executions()).toStrictEqual([{ name: 'pause-1', status: 'RUNNING' }]);
    expect((await probe.breaker())?.state).toBe('open');
    // Paused: nobody receives them any more, so no receive count climbs toward the backstop.
    const before = invocations;
    await holdsFor('the pause', 3_000, mappingState, (state) => state === 'Disabled');
    expect(invocations).toBe(before);
    expect((await probe.queueDepth()).total).toBe(LABELS.length);
    const dead = await (await backstop()).depth();
    expect(dead.visible + dead.inFlight + dead.delayed).toBe(0);
    // Fail closed (rule 1): no work started, nothing charged, nothing quarantined.
    expect([...(await probe.ledgerItems(ids)).values()]).toStrictEqual(ids.map(() => undefined));
    expect(await probe.quarantineRecords()).toStrictEqual([]);
  });
});
