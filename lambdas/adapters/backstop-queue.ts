/**
 * The backstop queue as `pq backstop` and the console reach it: found from the source queue's
 * redrive policy (the same for a queue the construct made and one the user brought), read without
 * hiding anything (`peek`), held while a take or a redrive works on it, and deleted only by them.
 */
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { BackstopMessage } from '../core/backstop';
import { SourceQueueError } from '../ports/errors';
import { describeSdkError } from './sdk-errors';
import { type QueueDepth, toSdkAttribute } from './source-queue';

/** SQS hands out at most this many messages a receive. */
const RECEIVE_MAX = 10;
/** How long a look hides what it saw: they come back by then even if pq dies while listing. */
const PEEK_SECONDS = 30;
/** A receive waits this long: SQS then asks all of its servers, so an empty answer means empty. */
const RECEIVE_WAIT_SECONDS = 1;

export interface BackstopLocation {
  readonly url: string;
  readonly arn: string;
  /** The redrive policy's maxReceiveCount: receives before SQS moves a message there. */
  readonly maxReceiveCount: number;
}

export class BackstopQueue {
  constructor(
    private readonly sqs: SQSClient,
    readonly location: BackstopLocation,
  ) {}

  /**
   * The source queue's dead-letter queue, or undefined when it has no redrive policy (nothing
   * can reach a backstop then).
   */
  static async find(sqs: SQSClient, sourceQueueUrl: string): Promise<BackstopQueue | undefined> {
    const { Attributes } = await call(sourceQueueUrl, 'GetQueueAttributes', () =>
      sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: sourceQueueUrl, AttributeNames: ['RedrivePolicy'] }),
      ),
    );
    if (Attributes?.RedrivePolicy === undefined) return undefined;
    const policy = JSON.parse(Attributes.RedrivePolicy) as {
      deadLetterTargetArn?: string;
      maxReceiveCount?: unknown;
    };
    const arn = policy.deadLetterTargetArn ?? '';
    // arn:aws:sqs:<region>:<account>:<name>
    const [, , , , account, name] = arn.split(':');
    if (!account || !name) {
      throw new SourceQueueError(
        `Queue ${sourceQueueUrl}: its redrive policy names no dead-letter queue (${arn})`,
      );
    }
    const { QueueUrl } = await call(arn, 'GetQueueUrl', () =>
      sqs.send(new GetQueueUrlCommand({ QueueName: name, QueueOwnerAWSAccountId: account })),
    );
    return new BackstopQueue(sqs, {
      url: String(QueueUrl),
      arn,
      maxReceiveCount: Number(policy.maxReceiveCount),
    });
  }

  /**
   * Up to `max` messages, each once, nothing taken: SQS has no listing, so they are received
   * (hidden for PEEK_SECONDS, so that the next receive brings others) until a receive brings none,
   * then all made visible again at once. Each look adds one to a message's receive count, which
   * nothing reads on the backstop.
   */
  async peek(max: number): Promise<BackstopMessage[]> {
    const seen = new Map<string, BackstopMessage>();
    try {
      while (seen.size < max) {
        const received = await this.receive(Math.min(RECEIVE_MAX, max - seen.size), PEEK_SECONDS);
        if (received.length === 0) break;
        for (const message of received) seen.set(message.messageId, message);
      }
    } finally {
      await Promise.allSettled([...seen.values()].map((message) => this.release(message)));
    }
    return [...seen.values()];
  }

  /** Up to ten messages, hidden from everyone else for `seconds` (a take or a redrive holds them). */
  async hold(seconds: number): Promise<BackstopMessage[]> {
    return this.receive(RECEIVE_MAX, seconds);
  }

  /** A held message back to the queue at once (one the take did not take). */
  async release(message: BackstopMessage): Promise<void> {
    await call(this.location.url, 'ChangeMessageVisibility', () =>
      this.sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: this.location.url,
          ReceiptHandle: message.receiptHandle,
          VisibilityTimeout: 0,
        }),
      ),
    );
  }

  /** Only once its record is written, or its copy sent to the source queue. */
  async delete(message: BackstopMessage): Promise<void> {
    await call(this.location.url, 'DeleteMessage', () =>
      this.sqs.send(
        new DeleteMessageCommand({ QueueUrl: this.location.url, ReceiptHandle: message.receiptHandle }),
      ),
    );
  }

  /**
   * The message, unchanged (body, attributes, FIFO group), to `queueUrl`: a redrive. A FIFO copy
   * is deduplicated by its backstop message id, so a redrive run again within SQS's five minutes
   * sends it once.
   */
  async sendCopy(message: BackstopMessage, queueUrl: string): Promise<{ readonly messageId: string }> {
    const group = message.attributes.MessageGroupId;
    const { MessageId } = await call(queueUrl, 'SendMessage', () =>
      this.sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: message.body,
          MessageAttributes: Object.fromEntries(
            Object.entries(message.messageAttributes).map(([name, value]) => [name, toSdkAttribute(value)]),
          ),
          ...(group === undefined
            ? {}
            : { MessageGroupId: group, MessageDeduplicationId: message.messageId }),
        }),
      ),
    );
    return { messageId: String(MessageId) };
  }

  async depth(): Promise<QueueDepth> {
    const { Attributes = {} } = await call(this.location.url, 'GetQueueAttributes', () =>
      this.sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: this.location.url,
          AttributeNames: [
            'ApproximateNumberOfMessages',
            'ApproximateNumberOfMessagesNotVisible',
            'ApproximateNumberOfMessagesDelayed',
          ],
        }),
      ),
    );
    return {
      visible: Number(Attributes.ApproximateNumberOfMessages ?? 0),
      inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
      delayed: Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0),
    };
  }

  private async receive(max: number, visibilitySeconds: number): Promise<BackstopMessage[]> {
    const { Messages = [] } = await call(this.location.url, 'ReceiveMessage', () =>
      this.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: this.location.url,
          MaxNumberOfMessages: max,
          VisibilityTimeout: visibilitySeconds,
          WaitTimeSeconds: RECEIVE_WAIT_SECONDS,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      ),
    );
    return Messages.map(fromSdk);
  }
}

/** In the Lambda event's shape, the one the consumer's records and the replay use. */
function fromSdk(message: Message): BackstopMessage {
  return {
    messageId: String(message.MessageId),
    receiptHandle: String(message.ReceiptHandle),
    body: message.Body ?? '',
    md5OfBody: message.MD5OfBody ?? '',
    attributes: { ...message.Attributes },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        {
          dataType: String(value.DataType),
          ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
          ...(value.BinaryValue === undefined
            ? {}
            : { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }),
        },
      ]),
    ),
  };
}

async function call<T>(queue: string, operation: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    throw new SourceQueueError(`Queue ${queue}: ${operation} failed: ${describeSdkError(error)}`, {
      cause: error,
    });
  }
}
