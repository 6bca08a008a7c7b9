/**
 * An SQS queue in memory: visibility timeouts, receive counts, a fresh receipt handle on every
 * receive (only the latest one may change visibility), and the native redrive to a backstop
 * queue once a message is received more than `maxReceiveCount` times. A send SQS refuses is
 * refused (more than 10 message attributes, a message over the size limit counted in bytes, body
 * plus attributes), and a FIFO queue drops a send whose deduplication id it accepted in the last
 * 5 minutes, deleted or not. moto enforces neither the count nor the bytes, nor remembers a
 * deleted message's id (docs/local-differences.md, "SQS"). FIFO group order is not modelled.
 */
import { DEFAULTS } from '../../contract/defaults';
import { MAX_DELAY_SECONDS } from '../../lambdas/adapters/source-queue';
import {
  type MessageAttributes,
  messageBytes,
  SQS_DEDUPLICATION_SECONDS,
  SQS_MAX_MESSAGE_ATTRIBUTES,
} from '../../lambdas/core/replay-message';
import type { SourceQueuePort } from '../../lambdas/ports/consumer-ports';
import { SourceQueueError } from '../../lambdas/ports/errors';
import type { Clock } from './clock';

export interface QueuedMessage {
  readonly messageId: string;
  readonly body: string;
  readonly messageAttributes: MessageAttributes;
  readonly sentAt: number;
  receiveCount: number;
  /** Epoch ms from which the message can be received again. */
  visibleAt: number;
  receiptHandle?: string;
}

export interface QueueSettings {
  /** A FIFO queue without content-based deduplication: every send names its group and id. @default false */
  readonly fifo?: boolean;
  /** The queue's MaximumMessageSize. @default the construct's, 1 MiB */
  readonly maxMessageBytes?: number;
}

/** What a SendMessage gives; `messageId` stands for the id SQS would assign. */
export type SentMessage = Pick<QueuedMessage, 'messageId' | 'body'> &
  Partial<Pick<QueuedMessage, 'messageAttributes'>> & {
    readonly groupId?: string;
    readonly deduplicationId?: string;
  };

export class MemoryQueue implements SourceQueuePort {
  readonly messages = new Map<string, QueuedMessage>();
  readonly backstop: QueuedMessage[] = [];
  private handles = 0;
  /** FIFO: deduplication id -> the message id it was first accepted as, and when. */
  private readonly deduplicated = new Map<string, { readonly messageId: string; readonly at: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly maxReceiveCount: number,
    private readonly settings: QueueSettings = {},
  ) {}

  /** SendMessage: the message id SQS reports, the first one's for a deduplicated send. */
  send({ groupId, deduplicationId, ...message }: SentMessage): string {
    const messageAttributes = message.messageAttributes ?? {};
    this.refuseWhatSqsRefuses(message.body, messageAttributes, groupId, deduplicationId);
    const now = this.clock.now();
    if (deduplicationId !== undefined) {
      const first = this.deduplicated.get(deduplicationId);
      if (first !== undefined && now - first.at < SQS_DEDUPLICATION_SECONDS * 1000) return first.messageId;
      this.deduplicated.set(deduplicationId, { messageId: message.messageId, at: now });
    }
    this.messages.set(message.messageId, {
      ...message,
      messageAttributes,
      sentAt: now,
      receiveCount: 0,
      visibleAt: now,
    });
    return message.messageId;
  }

  private refuseWhatSqsRefuses(
    body: string,
    attributes: MessageAttributes,
    groupId: string | undefined,
    deduplicationId: string | undefined,
  ): void {
    const count = Object.keys(attributes).length;
    if (count > SQS_MAX_MESSAGE_ATTRIBUTES) {
      throw new SourceQueueError(
        `SendMessage failed: Number of message attributes [${count}] exceeds the allowed maximum [${SQS_MAX_MESSAGE_ATTRIBUTES}].`,
      );
    }
    const limit = this.settings.maxMessageBytes ?? DEFAULTS.maxMessageSizeBytes;
    if (messageBytes(body, attributes) > limit) {
      throw new SourceQueueError(
        `SendMessage failed: One or more parameters are invalid. Reason: Message must be shorter than ${limit} bytes.`,
      );
    }
    const fifo = this.settings.fifo === true;
    if (fifo !== (groupId !== undefined) || fifo !== (deduplicationId !== undefined)) {
      throw new SourceQueueError(
        fifo
          ? 'SendMessage failed: a FIFO queue needs MessageGroupId and MessageDeduplicationId'
          : 'SendMessage failed: MessageGroupId and MessageDeduplicationId are not valid for this queue type',
      );
    }
  }

  /** Up to `max` visible messages, oldest first, each hidden for `visibilitySeconds`. */
  receive(max: number, visibilitySeconds: number): QueuedMessage[] {
    const now = this.clock.now();
    const received: QueuedMessage[] = [];
    for (const message of [...this.messages.values()].sort((a, b) => a.sentAt - b.sentAt)) {
      if (received.length === max) break;
      if (message.visibleAt > now) continue;
      if (message.receiveCount >= this.maxReceiveCount) {
        // SQS moves it on the receive that would exceed the count.
        this.messages.delete(message.messageId);
        this.backstop.push(message);
        continue;
      }
      message.receiveCount += 1;
      message.visibleAt = now + visibilitySeconds * 1000;
      message.receiptHandle = `rh-${++this.handles}`;
      received.push({ ...message });
    }
    return received;
  }

  /** DeleteMessage: a stale receipt handle succeeds but deletes nothing, as SQS documents. */
  delete(receiptHandle: string): void {
    for (const message of this.messages.values()) {
      if (message.receiptHandle === receiptHandle) this.messages.delete(message.messageId);
    }
  }

  /**
   * ChangeMessageVisibility as SQS behaves: only the latest receipt handle of a message still in
   * flight. SQS refuses a handle replaced by a later receive ("Message does not exist or is not
   * available for visibility timeout change") and a message visible again (MessageNotInflight);
   * moto accepts both (see test/integration/ports-contract-source-queue.test.ts). The seconds are clamped as
   * SourceQueue.delay clamps them.
   */
  async acknowledge(receiptHandle: string): Promise<void> {
    this.delete(receiptHandle);
  }

  async delay(receiptHandle: string, seconds: number): Promise<void> {
    const message = [...this.messages.values()].find(
      (candidate) => candidate.receiptHandle === receiptHandle,
    );
    if (message === undefined || message.visibleAt <= this.clock.now()) {
      throw new SourceQueueError(`ChangeMessageVisibility failed: the receipt handle is not in flight`);
    }
    const visibility = Number.isFinite(seconds)
      ? Math.min(Math.max(Math.floor(seconds), 0), MAX_DELAY_SECONDS)
      : 0;
    message.visibleAt = this.clock.now() + visibility * 1000;
  }

  /** When the next message becomes visible, if any is waiting. */
  nextVisibleAt(): number | undefined {
    const times = [...this.messages.values()].map((message) => message.visibleAt);
    return times.length === 0 ? undefined : Math.min(...times);
  }
}
