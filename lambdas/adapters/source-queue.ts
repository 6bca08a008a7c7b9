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
import { type MessageAttribute, type MessageAttributes, replayAttributes } from '../core/replay-message';
import { SQS_MAX_VISIBILITY_SECONDS } from '../core/types';
import { SourceQueueError } from '../ports/errors';
import { describeSdkError } from './sdk-errors';

/**
 * SQS counts its 12 h visibility limit from the RECEIVE, not from this call ("Total
 * VisibilityTimeout for the message is beyond the limit"), and a Lambda record may have been
 * received up to 20 min earlier (15 min function timeout + 5 min batching window). So the
 * longest delay that cannot be refused is 12 h minus 20 min.
 */
export const MAX_DELAY_SECONDS = SQS_MAX_VISIBILITY_SECONDS - 20 * 60;

export { MESSAGE_KEY_ATTRIBUTE, REPLAY_OF_ATTRIBUTE };

/** A message attribute as the Lambda SQS event (and so the quarantine envelope) holds it. */
export type RecordedMessageAttribute = MessageAttribute;

export interface ReplayInput {
  /** The quarantined body, exactly. */
  readonly body: string;
  /** As recorded; the replay's marks are added (core/replay-message.ts `replayAttributes`). */
  readonly messageAttributes: MessageAttributes;
  /** FIFO queues only, with `deduplicationId`. */
  readonly messageGroupId?: string;
  /**
   * FIFO: one per replay, never per record. SQS drops, for five minutes, a send whose id it has
   * seen, even once that message was deleted: an undone replay's copy would swallow the next one.
   * The SDK's own retries of this send keep it, so a send that reached SQS twice is one message.
   */
  readonly deduplicationId?: string;
  /** The quarantine id replayed. */
  readonly replayOf: string;
  /** The key the replay is worked on under (core/replay-message.ts `replayKeyOf`), its ledger item reset. */
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
   * Sends the quarantined message again, marked with `pq-replay-of` and `pq-message-key`. The
   * replay flow has checked that SQS takes it (core/replay-message.ts `refusalBySqs`).
   */
  async replay(input: ReplayInput): Promise<{ readonly messageId: string }> {
    const attributes: Record<string, MessageAttributeValue> = {};
    for (const [name, value] of Object.entries(replayAttributes(input.messageAttributes, input)))
      attributes[name] = toSdkAttribute(value);
    const fifo =
      input.messageGroupId === undefined
        ? {}
        : { MessageGroupId: input.messageGroupId, MessageDeduplicationId: input.deduplicationId };
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

  /** The queue's MaximumMessageSize: SQS refuses a larger message (body plus attributes, in bytes). */
  async maxMessageBytes(): Promise<number> {
    const result = await this.send('GetQueueAttributes', () =>
      this.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: this.queueUrl, AttributeNames: ['MaximumMessageSize'] }),
      ),
    );
    const bytes = Number(result.Attributes?.MaximumMessageSize);
    if (!Number.isSafeInteger(bytes) || bytes <= 0) {
      throw new SourceQueueError(`Queue ${this.queueUrl}: GetQueueAttributes gave no MaximumMessageSize`);
    }
    return bytes;
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

/** A recorded attribute (Lambda's shape, binary in base64) as the SDK sends it. */
export function toSdkAttribute(value: MessageAttribute): MessageAttributeValue {
  return {
    DataType: value.dataType,
    ...(value.stringValue === undefined ? {} : { StringValue: value.stringValue }),
    ...(value.binaryValue === undefined ? {} : { BinaryValue: Buffer.from(value.binaryValue, 'base64') }),
  };
}
