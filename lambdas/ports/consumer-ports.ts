/**
 * What the consumer's orchestration needs from the outside world, as interfaces. The AWS
 * adapters (lambdas/adapters) implement them against DynamoDB, S3, Step Functions and SQS; an
 * in-memory world with the same semantics (sim/world) implements them for fast tests
 * and the fault campaign, so both drive the very same handleBatch/processRecord.
 *
 * The adapters implement them structurally: create-consumer.ts assigns them to `ConsumerPorts`,
 * so the compiler checks every signature without the adapters importing this file (no cycle).
 *
 * Every method either does what it says or throws (an AdapterError for an AWS failure); none
 * returns a silent partial result.
 */

import type { ProbeResult } from '../core/breaker';
import type { IsolationTrial } from '../core/isolation';
import type { FailureEvent } from '../core/outage';
import type { NewQuarantineRecord } from '../core/quarantine-record';
import type { LedgerGlance } from '../core/suspects';
import type { ExternalRecord, QuarantineIntent } from '../core/types';
import type { ControlSnapshot } from './control';
import type {
  FailureRecord,
  LedgerEntry,
  QuarantineMark,
  RestartInput,
  StartInput,
  StartResult,
} from './ledger';
import type { PauseInput, StartOutcome } from './operations';

/** The attempts table: one conditional write per transition of a message's ledger item. */
export interface LedgerPort {
  start(input: StartInput): Promise<StartResult>;
  restartAfterCrash(input: RestartInput): Promise<StartResult>;
  recordStage(key: string, attemptId: string, stage: string): Promise<LedgerEntry>;
  /** The attempt in flight is still alive until `aliveUntil` (LedgerItem.aliveUntil). */
  renewLease(key: string, attemptId: string, aliveUntil: Date): Promise<LedgerEntry>;
  recordExternal(
    key: string,
    attemptId: string,
    external: ExternalRecord,
    unrepeatable?: ExternalRecord,
  ): Promise<LedgerEntry>;
  complete(key: string, attemptId: string, now: Date): Promise<LedgerEntry>;
  recordFailure(key: string, attemptId: string, failure: FailureRecord): Promise<LedgerEntry>;
  beginQuarantine(key: string, attemptId: string, intent: QuarantineIntent): Promise<LedgerEntry>;
  markQuarantined(key: string, mark: QuarantineMark): Promise<LedgerEntry>;
  inFlightKeysOf(envId: string): Promise<string[]>;
  /** State and charges of these keys, eventually consistent, for ordering; absent keys are left out. */
  glance(keys: readonly string[]): Promise<ReadonlyMap<string, LedgerGlance>>;
}

/** The control table: breaker, isolation trial, failure window and crash counts. */
export interface ControlPort {
  snapshot(): Promise<ControlSnapshot>;
  recordFailureEvent(event: {
    readonly key: string;
    readonly kind: 'transient' | 'crash';
    readonly at: Date;
    readonly eventId: string;
    readonly expiresAt: number;
  }): Promise<void>;
  /**
   * The failure window's events at or after `since`, newest first: at least until
   * `distinctKeysEnough` distinct keys are among them, or all of them (the verdict needs no more).
   */
  failuresSince(since: Date, distinctKeysEnough: number, lastPassAt?: number): Promise<FailureEvent[]>;
  crashInFlight(envId: string, countIfFirst: () => Promise<number>, expiresAt: number): Promise<number>;
  /** The work of `attemptId` succeeded but its completion write was lost (kept for a redelivery). */
  recordLostCompletion(lost: {
    readonly key: string;
    readonly attemptId: string;
    readonly expiresAt: number;
  }): Promise<void>;
  /** The attempt of `key` whose completion was lost, if any. */
  lostCompletion(key: string): Promise<string | undefined>;
  tripBreaker(trip: {
    readonly reason: string;
    readonly now: Date;
    readonly stop: boolean;
  }): Promise<{ readonly tripped: boolean; readonly epoch: number }>;
  recordProbe(result: ProbeResult): Promise<{ readonly counted: boolean }>;
  /** Starts or restarts the trial, once per `cause` (the crashed environment); the trial as it stands. */
  startIsolation(start: {
    readonly now: Date;
    readonly messages: number;
    readonly cause: string;
    /** TTL of the crash's record that it started the trial (epoch seconds). */
    readonly expiresAt: number;
    readonly reason?: string;
  }): Promise<IsolationTrial>;
  /** One message passed the trial at `now` (kept as its last pass); the last one ends it. */
  isolationMessagePassed(now: Date): Promise<IsolationTrial>;
}

/** The quarantine's write side: content to S3, records to the quarantine table, create-only. */
export interface QuarantineStorePort {
  /** `body` is text, or with `encoding: 'base64'` the exact bytes of a body text cannot hold. */
  putContent(
    id: string,
    content: { readonly body: string; readonly encoding?: 'utf8' | 'base64'; readonly envelope: object },
  ): Promise<{ readonly bodyKey: string; readonly envelopeKey: string; readonly bodyBytes: number }>;
  putRecord(record: NewQuarantineRecord): Promise<{ readonly created: boolean }>;
  openRecordsAtLeast(limit: number): Promise<boolean>;
}

/** The pause and verification state machines: executions with deterministic names. */
export interface OperationsPort {
  startOutcomeUnknown(input: {
    readonly quarantineId: string;
    readonly messageKey: string;
  }): Promise<StartOutcome>;
  startPause(input: PauseInput): Promise<StartOutcome>;
}

/** The source queue, as the consumer touches it: visibility changes and early acknowledgements. */
export interface SourceQueuePort {
  delay(receiptHandle: string, seconds: number): Promise<void>;
  /** Deletes a finished message now, ahead of the batch response (a batch that may crash again). */
  acknowledge(receiptHandle: string): Promise<void>;
}

/** Every port the consumer uses, as one bundle (a fault injector wraps them all at once). */
export interface ConsumerPorts {
  readonly ledger: LedgerPort;
  readonly control: ControlPort;
  readonly quarantine: QuarantineStorePort;
  readonly operations: OperationsPort;
  readonly queue: SourceQueuePort;
}
