/**
 * Every error the AWS adapters raise. An SDK failure never leaves an adapter as an SDK error:
 * it becomes one of these, with the SDK error as `cause` (except where the cause could carry a
 * secret, see TaskTokenRejectedError). Messages name the table, bucket or queue and the
 * operation, never a message body or a task token.
 */

import { PoisonQuarantineError } from '../core/errors';
import type { LedgerItem } from '../core/types';

/** Base class: `instanceof AdapterError` catches every failure at the AWS boundary. */
export class AdapterError extends PoisonQuarantineError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AdapterError';
  }
}

/** The attempts table could not be read or written: fail closed, the work must not start (rule 1). */
export class LedgerUnavailableError extends AdapterError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LedgerUnavailableError';
  }
}

/** A write named an attempt that is no longer the latest in flight; `current` is the item as it is. */
export class StaleAttemptError extends AdapterError {
  readonly current: LedgerItem | undefined;

  constructor(message: string, current: LedgerItem | undefined) {
    super(message);
    this.name = 'StaleAttemptError';
    this.current = current;
  }
}

/** An operator write expected the ledger item in another state; `current` is the item as it is. */
export class LedgerStateMismatchError extends AdapterError {
  readonly current: LedgerItem | undefined;

  constructor(message: string, current: LedgerItem | undefined) {
    super(message);
    this.name = 'LedgerStateMismatchError';
    this.current = current;
  }
}

/** An item read from a table lacks an attribute or holds the wrong type: it was not written by us. */
export class MalformedItemError extends AdapterError {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedItemError';
  }
}

/** The control table (breaker, isolation trial, failure window, freeze) could not be read or written. */
export class ControlStateUnavailableError extends AdapterError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ControlStateUnavailableError';
  }
}

/** Our own attempts or control table could not be reached (throttled, down): not the message's fault. */
export function isOwnTableUnavailable(error: unknown): boolean {
  return error instanceof LedgerUnavailableError || error instanceof ControlStateUnavailableError;
}

/** An operator's answer to a pause found the breaker closed: there is no pause left to answer. */
export class BreakerNotPausedError extends AdapterError {
  constructor(message: string) {
    super(message);
    this.name = 'BreakerNotPausedError';
  }
}

/** Quarantine content or its record could not be written: stop the consumer (rule 11a). */
export class QuarantineWriteError extends AdapterError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'QuarantineWriteError';
  }
}

/** Rule 11a's count of open records could not be kept with a record's write, or recounted. */
export class OpenRecordsCountError extends AdapterError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'OpenRecordsCountError';
  }
}

/** An operator read or update of the quarantine failed. */
export class QuarantineReadError extends AdapterError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'QuarantineReadError';
  }
}

/** No quarantine record (or content object) with this id. */
export class QuarantineNotFoundError extends QuarantineReadError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'QuarantineNotFoundError';
  }
}

/** For `.catch`: a missing record or object reads as `value`; any other failure is a failure. */
export function absentAs<T>(value: T) {
  return (error: unknown): T => {
    if (error instanceof QuarantineNotFoundError) return value;
    throw error;
  };
}

/** A status change expected the record in another status (another operator acted first). */
export class QuarantineStatusConflictError extends QuarantineReadError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'QuarantineStatusConflictError';
  }
}

/** The operator CLI could not look its deployment up (Lambda, STS). */
export class DeploymentLookupError extends AdapterError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DeploymentLookupError';
  }
}

/** Step Functions could not be reached or refused a call. */
export class OperationsUnavailableError extends AdapterError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'OperationsUnavailableError';
  }
}

/**
 * Step Functions refused a task token (invalid, timed out, already answered). No `cause`: the SDK
 * error's message may quote the token, a bearer secret.
 */
export class TaskTokenRejectedError extends AdapterError {
  constructor(message: string) {
    super(message);
    this.name = 'TaskTokenRejectedError';
  }
}

/** The source queue refused a call (visibility change, replay, attributes). */
export class SourceQueueError extends AdapterError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SourceQueueError';
  }
}

/** A Kafka cluster could not be reached, or refused a metadata request or a produce (operator replay). */
export class KafkaTopicError extends AdapterError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'KafkaTopicError';
  }
}
