/**
 * The plain consumer of the outage comparison in the local AWS: a queue whose native redrive
 * moves a message to a DLQ at its fourth receive (maxReceiveCount 3), and the project's runner
 * playing the event source mapping with bench/handlers/native-redrive.ts as the function, with
 * the same batch size, concurrency, timeout and memory as the poison-quarantine consumer.
 */
import * as path from 'node:path';
import { CreateQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { AwsClients } from '../../lambdas/adapters/clients';
import { SourceQueue } from '../../lambdas/adapters/source-queue';
import { DEMO_OUTSIDE_SYSTEM_URL_ENV } from '../../lambdas/demo/worker';
import { queueArn } from '../../tools/local-aws/deploy/sqs';
import { startEventSourceRunner } from '../../tools/local-aws/runner';
import { queueTotal, sendBodies } from './queues';

/** SQS's native redrive in the comparison: the fourth receive moves the message to the DLQ. */
export const NATIVE_MAX_RECEIVE_COUNT = 3;

const HANDLER = path.join(__dirname, '..', 'handlers', 'native-redrive.ts');

export interface NativeConsumerOptions {
  readonly clients: AwsClients;
  readonly region: string;
  /** Tells queues of several runs in one local AWS apart. */
  readonly name: string;
  readonly outsideSystemUrl: string;
  readonly timeoutSeconds: number;
  /** The queue's visibility timeout. */
  readonly visibilityTimeoutSeconds: number;
  readonly batchSize: number;
  readonly maxConcurrency: number;
  readonly memoryMiB: number;
  /** Lambda's runtime identifier, as the poison-quarantine consumer's. */
  readonly runtime: string;
}

export interface NativeConsumer {
  /** Sends the bodies in order, ten per request. */
  send(bodies: readonly string[]): Promise<string[]>;
  /** Messages in the source queue: visible, in flight or delayed. */
  queued(): Promise<number>;
  /** Messages the native redrive moved to the DLQ. */
  deadLettered(): Promise<number>;
  stop(): Promise<void>;
}

export async function startNativeConsumer(options: NativeConsumerOptions): Promise<NativeConsumer> {
  const { clients } = options;
  const dlqUrl = await createQueue(clients.sqs, `${options.name}-dlq`, {});
  const queueUrl = await createQueue(clients.sqs, options.name, {
    VisibilityTimeout: String(options.visibilityTimeoutSeconds),
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: await queueArn(clients.sqs, dlqUrl),
      maxReceiveCount: NATIVE_MAX_RECEIVE_COUNT,
    }),
  });
  const runner = await startEventSourceRunner({
    clients,
    queueUrl,
    queueArn: await queueArn(clients.sqs, queueUrl),
    region: options.region,
    fifo: false,
    runtime: options.runtime,
    handler: { file: HANDLER, exportName: 'handler' },
    environment: { [DEMO_OUTSIDE_SYSTEM_URL_ENV]: options.outsideSystemUrl },
    functionName: options.name,
    functionTimeoutMs: options.timeoutSeconds * 1000,
    memoryMiB: options.memoryMiB,
    batchSize: options.batchSize,
    maximumBatchingWindowMs: 0,
    maximumConcurrency: options.maxConcurrency,
    waitTimeSeconds: 1,
    forwardLogs: false,
  });
  return {
    send: (bodies) => sendBodies(clients.sqs, queueUrl, bodies),
    queued: () => queueTotal(new SourceQueue(clients.sqs, queueUrl)),
    deadLettered: () => queueTotal(new SourceQueue(clients.sqs, dlqUrl)),
    stop: () => runner.stop(),
  };
}

async function createQueue(
  sqs: SQSClient,
  name: string,
  attributes: Record<string, string>,
): Promise<string> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  if (!QueueUrl) throw new Error(`SQS answered without a URL for queue ${name}`);
  return QueueUrl;
}
