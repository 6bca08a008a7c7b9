/**
 * An SQS standard queue in memory: visibility timeouts, receive counts, a fresh receipt handle on
 * every receive (only the latest one may change visibility), and the native redrive to a
 * backstop queue once a message is received more than `maxReceiveCount` times.
 */
import { SourceQueueError } from '../../lambdas/adapters/errors';
import { MAX_DELAY_SECONDS } from '../../lambdas/adapters/source-queue';
import type { SourceQueuePort } from '../../lambdas/consumer/ports';
import type { Clock } from './clock';

export interface QueuedMessage {
  readonly messageId: string;
  readonly body: string;
  readonly messageAttributes: Readonly<
    Record<string, { readonly dataType: string; readonly stringValue?: string }>
  >;
  readonly sentAt: number;
  receiveCount: number;
  /** Epoch ms from which the message can be received again. */
  visibleAt: number;
  receiptHandle?: string;
}

export class MemoryQueue implements SourceQueuePort {
  readonly messages = new Map<string, QueuedMessage>();
  readonly backstop: QueuedMessage[] = [];
  private handles = 0;

  constructor(
    private readonly clock: Clock,
    private readonly maxReceiveCount: number,
  ) {}

  send(
    message: Pick<QueuedMessage, 'messageId' | 'body'> & Partial<Pick<QueuedMessage, 'messageAttributes'>>,
  ): void {
    this.messages.set(message.messageId, {
      messageAttributes: {},
      ...message,
      sentAt: this.clock.now(),
      receiveCount: 0,
      visibleAt: this.clock.now(),
    });
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
   * moto accepts both (see test/integration/ports-contract.test.ts). The seconds are clamped as
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
