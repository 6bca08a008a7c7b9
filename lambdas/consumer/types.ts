/**
 * What a user writes: a processing module exporting `process(message, ctx)`, and optionally a
 * classifier for their own errors. The consumer wrapper records every attempt before calling it.
 */
import type { ErrorClass } from '../core/types';
import type { KafkaRecordDetails } from '../ports/source';

export type { KafkaHeader, KafkaRecordDetails } from '../ports/source';

/** One message (an SQS message or a Kafka record) as the user's code sees it. */
export interface QueueMessage {
  /** The SQS message id; a Kafka record's `topic-partition-offset`. */
  readonly messageId: string;
  /** The message key the ledger uses (default: messageId). */
  readonly key: string;
  /** The body exactly as SQS delivered it; a Kafka record's value decoded as UTF-8. */
  readonly body: string;
  /** SQS's system attributes of the message; a Kafka record's topic, partition, offset, timestamp. */
  readonly attributes: Readonly<Record<string, string | undefined>>;
  /** The SQS message attributes, as the event delivered them; a Kafka record's headers as String attributes. */
  readonly messageAttributes: Readonly<Record<string, unknown>>;
  /** Attempts started for this key, this one included. */
  readonly attempt: number;
  /** A Kafka record as Lambda delivered it (key, value and header values base64); absent for SQS. */
  readonly kafka?: KafkaRecordDetails;
}

/** Options of {@link WorkContext.external}. */
export interface ExternalCallOptions {
  /**
   * An idempotency key the outside system honours. With it, a call whose outcome is unknown may
   * be retried automatically; without it, it never is (rule 8).
   */
  readonly idempotencyKey?: string;
}

/** What the consumer gives `process` beside the message: durable stages, outside calls, time left. */
export interface WorkContext {
  /** Durably records the last known stage (one DynamoDB write); survives a crash. */
  stage(name: string): Promise<void>;
  /**
   * Declares a call to an outside system: its pending state is written before `call` runs and its
   * result after. If the worker dies in between, the message is quarantined as "outcome unknown".
   * A call still unanswered when only the time guard's margin of the invocation is left is given
   * up with a `CallUnansweredError` (a TransientError), so its end is recorded before the kill.
   */
  external<T>(name: string, call: () => Promise<T>, options?: ExternalCallOptions): Promise<T>;
  /** Milliseconds left before the invocation times out. */
  remainingTimeMs(): number;
}

/**
 * The user's work on one message: resolving completes it; throwing fails the attempt, as the
 * error classifies.
 */
export type Processor = (message: QueueMessage, ctx: WorkContext) => Promise<void>;

/** The shape of the module a user points the construct at (`processorEntry`). */
export interface ProcessorModule {
  /** Does the work of one message. */
  readonly process: Processor;
  /** Overrides the default error classification; `undefined` falls back to it. */
  readonly classify?: (error: unknown) => ErrorClass | undefined;
}
