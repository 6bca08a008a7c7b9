/** A local pipeline's SQS source queue in moto: send, the queue's depth, its backstop's depth. */
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { SourceQueue } from '../../lambdas/adapters/source-queue';
import { type PipelineSource, type QueueDepth, withTotal } from './pipeline-source';

export class SqsPipelineSource implements PipelineSource {
  readonly kind = 'sqs';
  private readonly queue: SourceQueue;

  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {
    this.queue = new SourceQueue(sqs, queueUrl);
  }

  async send(body: string): Promise<string> {
    const output = await this.sqs.send(
      new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: body }),
    );
    if (!output.MessageId) throw new Error('SendMessage returned no MessageId');
    return output.MessageId;
  }

  async sendBatch(bodies: readonly string[]): Promise<string[]> {
    if (bodies.length === 0 || bodies.length > 10)
      throw new Error(`sendBatch takes 1 to 10 bodies (given ${bodies.length})`);
    const output = await this.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: this.queueUrl,
        Entries: bodies.map((body, index) => ({ Id: String(index), MessageBody: body })),
      }),
    );
    if (output.Failed?.length) throw new Error(`SendMessageBatch failed: ${JSON.stringify(output.Failed)}`);
    const ids = new Map((output.Successful ?? []).map((entry) => [entry.Id, entry.MessageId]));
    return bodies.map((_, index) => {
      const id = ids.get(String(index));
      if (!id) throw new Error(`SendMessageBatch returned no MessageId for entry ${index}`);
      return id;
    });
  }

  async depth(): Promise<QueueDepth> {
    return withTotal(await this.queue.depth());
  }

  /**
   * The backstop's depth: the dead-letter queue the source queue's RedrivePolicy names, where SQS
   * moves a message at its last receive whatever our ledger says. Found from the queue itself,
   * not from the stack, so the figure is the queue SQS really redrives to.
   */
  async backstopDepth(): Promise<QueueDepth> {
    const { Attributes } = await this.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: this.queueUrl, AttributeNames: ['RedrivePolicy'] }),
    );
    if (Attributes?.RedrivePolicy === undefined)
      throw new Error(`the source queue ${this.queueUrl} has no RedrivePolicy: no backstop to read`);
    const { deadLetterTargetArn } = JSON.parse(Attributes.RedrivePolicy) as { deadLetterTargetArn: string };
    // arn:aws:sqs:<region>:<account>:<queue name>
    const [, , , , account, name] = deadLetterTargetArn.split(':');
    const { QueueUrl } = await this.sqs.send(
      new GetQueueUrlCommand({ QueueName: name, QueueOwnerAWSAccountId: account }),
    );
    if (QueueUrl === undefined) throw new Error(`GetQueueUrl returned no URL for ${deadLetterTargetArn}`);
    // SourceQueue's depth reads any queue's three counts.
    return withTotal(await new SourceQueue(this.sqs, QueueUrl).depth());
  }
}
