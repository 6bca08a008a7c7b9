/**
 * poison-quarantine in the local AWS for a bench run: the demo stack with the run's timings,
 * deployed by local/local-pipeline.ts and consumed by the project's runner, and what the bench
 * reads of it (through local/rehearsal's probe: the queues, the ledger, the quarantine).
 */
import { UpdateEventSourceMappingCommand } from '@aws-sdk/client-lambda';
import { ENV } from '../../contract/env';
import { SourceQueue } from '../../lambdas/adapters/source-queue';
import type { DemoAssembly } from '../../local/demo-assembly';
import { type LocalPipeline, startLocalPipeline } from '../../local/local-pipeline';
import { PipelineProbe } from '../../local/rehearsal/pipeline-probe';
import { deadLetterQueueUrl, queueTotal, sendBodies } from './queues';
import { type PipelineTimings, pipelineProps } from './timings';

export interface PoisonQuarantineRun {
  readonly pipeline: LocalPipeline;
  readonly probe: PipelineProbe;
  /** Sends the bodies in order; returns their SQS message ids (the ledger's keys). */
  send(bodies: readonly string[]): Promise<string[]>;
  /** Messages in the source queue: visible, in flight or delayed. */
  queued(): Promise<number>;
  /** Messages SQS's backstop redrive moved to the DLQ. */
  deadLettered(): Promise<number>;
  /** Quarantine records, whatever their status. */
  quarantined(): Promise<number>;
  /** Charged attempts summed over these messages' ledger items. */
  charged(messageIds: readonly string[]): Promise<number>;
  /** Enables or disables the event source mapping, as an operator would (the runner follows it). */
  consume(enabled: boolean): Promise<void>;
  stop(): Promise<void>;
}

export async function startPoisonQuarantine(
  assembly: DemoAssembly,
  stackName: string,
  timings: PipelineTimings,
): Promise<PoisonQuarantineRun> {
  const pipeline = await startLocalPipeline({ assembly, stackName, pipeline: pipelineProps(timings) });
  try {
    const { sqs } = pipeline.clients;
    const queueUrl = pipeline.env(ENV.sourceQueueUrl);
    const backstop = new SourceQueue(sqs, await deadLetterQueueUrl(sqs, queueUrl));
    const probe = new PipelineProbe(pipeline);
    const [mapping] = pipeline.stack.eventSourceMappings;
    return {
      pipeline,
      probe,
      send: (bodies) => sendBodies(sqs, queueUrl, bodies),
      queued: () => queueTotal(new SourceQueue(sqs, queueUrl)),
      deadLettered: () => queueTotal(backstop),
      quarantined: async () => (await probe.quarantineRecords()).length,
      charged: async (messageIds) => {
        const items = await probe.ledgerItems(messageIds);
        return [...items.values()].reduce((sum, item) => sum + (item?.charged ?? 0), 0);
      },
      consume: async (enabled) => {
        await pipeline.clients.lambda.send(
          new UpdateEventSourceMappingCommand({ UUID: mapping.uuid, Enabled: enabled }),
        );
      },
      stop: () => pipeline.stop(),
    };
  } catch (error) {
    await pipeline.stop();
    throw error;
  }
}
