/**
 * The source queue: backoff through the visibility timeout (rule 9), an operator's replay
 * (rule 4) and the queue depth for status reports.
 */

import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type MessageAttributeValue,
  type QueueAttributeName,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { MESSAGE_KEY_ATTRIBUTE, REPLAY_OF_ATTRIBUTE } from '../../contract/message-attributes';
import { SQS_MAX_VISIBILITY_SECONDS } from '../core/types';
import { describeSdkError, SourceQueueError } from './errors';

/**
 * SQS counts its 12 h visibility limit from the RECEIVE, not from this call ("Total
 * VisibilityTimeout for the message is beyond the limit"), and a Lambda record may have been
 * received up to 20 min earlier (15 min function timeout + 5 min batching window). So the
 * longest delay that cannot be refused is 12 h minus 20 min.
 */
export const MAX_DELAY_SECONDS = SQS_MAX_VISIBILITY_SECONDS - 20 * 60;

export { MESSAGE_KEY_ATTRIBUTE, REPLAY_OF_ATTRIBUTE };

/** A message attribute as the Lambda SQS event (and so the quarantine envelope) holds it. */
export interface RecordedMessageAttribute {
  readonly dataType: string;
  readonly stringValue?: string;
  /** Base64, as Lambda delivers binary attributes. */
  readonly binaryValue?: string;
}

export interface ReplayInput {
  /** The quarantined body, exactly. */
  readonly body: string;
  readonly messageAttributes: Readonly<Record<string, RecordedMessageAttribute>>;
  /** FIFO queues only. */
  readonly messageGroupId?: string;
  /** The quarantine id replayed; also the FIFO deduplication id, so a repeated replay is one message. */
  readonly replayOf: string;
  /** The original's message key: the replay is worked on under it (its ledger item, reset). */
  readonly messageKey: string;
}

export interface QueueDepth {
  readonly visible: number;
  readonly inFlight: number;
  readonly delayed: number;
}

export class SourceQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  /** Returns the message to the queue after `seconds`, clamped to 0..MAX_DELAY_SECONDS. */
  async delay(receiptHandle: string, seconds: number): Promise<void> {
    const visibility = Number.isFinite(seconds)
      ? Math.min(Math.max(Math.floor(seconds), 0), MAX_DELAY_SECONDS)
      : 0;
    await this.send('ChangeMessageVisibility', () =>
      this.sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: this.queueUrl,
          ReceiptHandle: receiptHandle,
          VisibilityTimeout: visibility,
        }),
      ),
    );
  }

  /** A finished message leaves the queue now, not with the batch response. */
  async acknowledge(receiptHandle: string): Promise<void> {
    await this.send('DeleteMessage', () =>
      this.sqs.send(new DeleteMessageCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receiptHandle })),
    );
  }

  /**
   * Sends the quarantined message again, marked with `pq-replay-of` and `pq-message-key`. SQS
   * allows 10 message attributes: a message that had 9 or 10 already cannot be marked and the
   * send is refused.
   */
  async replay(input: ReplayInput): Promise<{ readonly messageId: string }> {
    const attributes: Record<string, MessageAttributeValue> = {};
    for (const [name, value] of Object.entries(input.messageAttributes)) {
      if (name !== REPLAY_OF_ATTRIBUTE && name !== MESSAGE_KEY_ATTRIBUTE)
        attributes[name] = toSdkAttribute(value);
    }
    attributes[REPLAY_OF_ATTRIBUTE] = { DataType: 'String', StringValue: input.replayOf };
    attributes[MESSAGE_KEY_ATTRIBUTE] = { DataType: 'String', StringValue: input.messageKey };
    const fifo =
      input.messageGroupId === undefined
        ? {}
        : { MessageGroupId: input.messageGroupId, MessageDeduplicationId: `replay-${input.replayOf}` };
    const result = await this.send('SendMessage', () =>
      this.sqs.send(
        new SendMessageCommand({
          QueueUrl: this.queueUrl,
          MessageBody: input.body,
          MessageAttributes: attributes,
          ...fifo,
        }),
      ),
    );
    return { messageId: result.MessageId ?? '' };
  }

  /** Approximate counts, as SQS reports them. */
  async depth(): Promise<QueueDepth> {
    const result = await this.send('GetQueueAttributes', () =>
      this.sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: this.queueUrl,
          AttributeNames: [
            'ApproximateNumberOfMessages',
            'ApproximateNumberOfMessagesNotVisible',
            'ApproximateNumberOfMessagesDelayed',
          ],
        }),
      ),
    );
    const count = (name: QueueAttributeName) => Number(result.Attributes?.[name] ?? '0');
    return {
      visible: count('ApproximateNumberOfMessages'),
      inFlight: count('ApproximateNumberOfMessagesNotVisible'),
      delayed: count('ApproximateNumberOfMessagesDelayed'),
    };
  }

  private async send<T>(operation: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new SourceQueueError(`Queue ${this.queueUrl}: ${operation} failed: ${describeSdkError(error)}`, {
        cause: error,
      });
    }
  }
}

function toSdkAttribute(value: RecordedMessageAttribute): MessageAttributeValue {
  return {
    DataType: value.dataType,
    ...(value.stringValue === undefined ? {} : { StringValue: value.stringValue }),
    ...(value.binaryValue === undefined ? {} : { BinaryValue: Buffer.from(value.binaryValue, 'base64') }),
  };
}
