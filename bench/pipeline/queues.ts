/** The bench's few SQS needs: send a run's messages, count what a queue holds, find its DLQ. */
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SourceQueue } from '../../lambdas/adapters/source-queue';

/** SQS takes at most 10 messages per SendMessageBatch. */
const PER_SEND = 10;

/** Sends the bodies in order, ten per request; returns their SQS message ids in the same order. */
export async function sendBodies(
  sqs: SQSClient,
  queueUrl: string,
  bodies: readonly string[],
): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < bodies.length; start += PER_SEND) {
    const chunk = bodies.slice(start, start + PER_SEND);
    const output = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: chunk.map((body, index) => ({ Id: String(index), MessageBody: body })),
      }),
    );
    if (output.Failed?.length) throw new Error(`SendMessageBatch failed: ${JSON.stringify(output.Failed)}`);
    const byEntry = new Map((output.Successful ?? []).map((entry) => [entry.Id, entry.MessageId]));
    for (const index of chunk.keys()) {
      const id = byEntry.get(String(index));
      if (!id) throw new Error(`SendMessageBatch returned no MessageId for entry ${start + index}`);
      ids.push(id);
    }
  }
  return ids;
}

/** Every message the queue holds: visible, in flight (hidden by a receive or a delay) or delayed. */
export async function queueTotal(queue: SourceQueue): Promise<number> {
  const depth = await queue.depth();
  return depth.visible + depth.inFlight + depth.delayed;
}

/** The URL of the queue a queue's redrive policy moves messages to. */
export async function deadLetterQueueUrl(sqs: SQSClient, queueUrl: string): Promise<string> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['RedrivePolicy'] }),
  );
  const policy = Attributes?.RedrivePolicy;
  if (!policy) throw new Error(`${queueUrl} has no redrive policy`);
  const arn = (JSON.parse(policy) as { deadLetterTargetArn?: string }).deadLetterTargetArn ?? '';
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: arn.split(':').pop() }));
  if (!QueueUrl) throw new Error(`no queue found for the redrive target ${arn}`);
  return QueueUrl;
}
