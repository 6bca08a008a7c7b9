/**
 * A tiny in-memory stand-in for the consumer's edge (docs/design.md, "The consumer, per
 * record"): it applies the core's decisions as the DynamoDB writes would, so properties and the
 * rehearsal can be checked without AWS. One delivery = start write (or decision on refusal),
 * work, end write. Crashes leave the item in flight, exactly as a dead worker does.
 */
import { classifyError, classifyExternalFailure } from '../../lambdas/core/classify';
import { type CrashAttribution, decideDelivery } from '../../lambdas/core/delivery';
import { PermanentError, TransientError } from '../../lambdas/core/errors';
import { decideFailure } from '../../lambdas/core/failure';
import { quarantineId } from '../../lambdas/core/ids';
import {
  afterCompletedMessage,
  afterCrash,
  effectiveConcurrency,
  type IsolationTrial,
  NO_TRIAL,
  startTrial,
} from '../../lambdas/core/isolation';
import type { ExternalRecord, LedgerItem, Policy, QuarantineReason } from '../../lambdas/core/types';

/** What the user's work does on one attempt. */
export type Behaviour =
  | { readonly kind: 'succeed' }
  | { readonly kind: 'throw'; readonly error: 'transient' | 'permanent' | 'unknown' }
  /** The worker dies with `inFlight` messages in flight (1 = alone). */
  | { readonly kind: 'crash'; readonly inFlight: number }
  /** The worker dies after recording a pending external call and sending it. */
  | { readonly kind: 'crash-after-external'; readonly idempotent: boolean }
  /** A non-idempotent external call is sent and times out. */
  | { readonly kind: 'external-timeout' };

export interface SimMessage {
  readonly messageId: string;
  readonly body: string;
}

export interface DeliveryReport {
  readonly path: 'started' | 'duplicate' | 'quarantined';
  readonly workStarted: boolean;
  readonly acknowledged: boolean;
  /** What the delivery decision charged for the previous attempt (not the work's own failure). */
  readonly charge: number;
  readonly chargedBefore: number;
  readonly chargedAfter: number;
  readonly crash: CrashAttribution | 'none';
}

export interface QuarantineRecord {
  readonly id: string;
  readonly reason: QuarantineReason;
  readonly body: string;
  readonly attemptsStarted: number;
  readonly attemptsCharged: number;
}

/** Messages crashing alongside ours, when the configured concurrency allows any. */
const CONFIGURED_CONCURRENCY = 10;

export class LedgerSimulator {
  readonly ledger = new Map<string, LedgerItem>();
  readonly quarantine = new Map<string, QuarantineRecord>();
  readonly externalCalls = new Map<string, number>();
  /** The `crash/<envId>` items: how many messages each dead environment had in flight. */
  private readonly crashes = new Map<string, number>();
  attemptsStarted = 0;
  trial: IsolationTrial = NO_TRIAL;
  private clock = Date.UTC(2025, 0, 1);
  private sequence = 0;

  constructor(
    private readonly policy: Policy,
    private readonly random: () => number = () => 0.5,
  ) {}

  deliver(message: SimMessage, behaviour: Behaviour): DeliveryReport {
    // Each delivery comes after a visibility timeout, at least 6x the function timeout.
    this.clock += this.policy.attemptTimeoutSeconds * 6 * 1000;
    const previous = this.ledger.get(message.messageId);
    const chargedBefore = previous?.charged ?? 0;
    const report = (
      path: DeliveryReport['path'],
      acknowledged: boolean,
      crash: DeliveryReport['crash'],
      charge = 0,
    ): DeliveryReport => ({
      path,
      workStarted: path === 'started',
      acknowledged,
      charge,
      chargedBefore,
      chargedAfter: this.ledger.get(message.messageId)?.charged ?? 0,
      crash,
    });
    // Start write: `attribute_not_exists(pk) OR state = ready` succeeds without a decision.
    if (previous === undefined || previous.state === 'ready') {
      return report('started', this.attempt(message, previous, 0, behaviour), 'none');
    }
    let decision = decideDelivery(previous, undefined, this.policy, this.clock);
    if (decision.kind === 'need-crash-context') {
      decision = decideDelivery(
        previous,
        { inFlight: this.crashes.get(decision.envId) ?? 1 },
        this.policy,
        this.clock,
      );
    }
    switch (decision.kind) {
      case 'duplicate':
        return report('duplicate', true, 'none');
      case 'outcome-unknown':
        this.quarantineItem(message, previous, 'outcome-unknown', previous);
        return report('quarantined', true, 'none');
      case 'quarantine':
        this.quarantineItem(message, previous, decision.reason, {
          ...previous,
          charged: previous.charged + decision.charge,
        });
        return report('quarantined', true, decision.crash, decision.charge);
      case 'proceed':
        if (decision.startIsolation) this.trial = startTrial(this.clock, this.policy);
        if (decision.crash === 'attributable') this.trial = afterCrash(this.trial, this.clock, this.policy);
        return report(
          'started',
          this.attempt(message, previous, decision.charge, behaviour),
          decision.crash,
          decision.charge,
        );
      case 'need-crash-context':
        throw new Error('the core asked for crash context twice');
      case 'busy':
        // Deliveries here come a visibility timeout apart: an attempt is never still running.
        throw new Error('a delivery found an attempt still running');
    }
  }

  /** Settle-and-start write, then the work and its end write. Returns whether SQS got an ack. */
  private attempt(
    message: SimMessage,
    previous: LedgerItem | undefined,
    charge: number,
    behaviour: Behaviour,
  ) {
    const at = new Date(this.clock).toISOString();
    // `external` belongs to an attempt: a new attempt starts without the old one's record.
    const { external: _previousCall, ...carried } = previous ?? {};
    const item: LedgerItem = {
      ...carried,
      key: message.messageId,
      state: 'in-flight',
      attempts: (previous?.attempts ?? 0) + 1,
      charged: (previous?.charged ?? 0) + charge,
      transientFailures: previous?.transientFailures ?? 0,
      unknownFailures: previous?.unknownFailures ?? 0,
      generation: previous?.generation ?? 0,
      attemptId: this.nextId('attempt'),
      envId: this.nextId('env'),
      messageId: message.messageId,
      stage: 'started',
      firstAttemptAt: previous?.firstAttemptAt ?? at,
      lastAttemptAt: at,
    };
    this.ledger.set(message.messageId, item);
    this.attemptsStarted += 1;
    return this.work(message, item, behaviour);
  }

  private work(message: SimMessage, item: LedgerItem, behaviour: Behaviour): boolean {
    switch (behaviour.kind) {
      case 'succeed':
        this.callExternal(message);
        this.end(message, { ...item, state: 'completed', envId: undefined });
        this.trial = afterCompletedMessage(this.trial);
        return true;
      case 'throw':
        return this.fail(message, item, classifyError(thrown(behaviour.error)));
      case 'external-timeout': {
        this.callExternal(message);
        const timeout = Object.assign(new Error('socket timed out'), { name: 'TimeoutError' });
        const errorClass = classifyExternalFailure(timeout, classifyError(timeout), false);
        return this.fail(message, { ...item, external: this.pending(false) }, errorClass);
      }
      case 'crash-after-external':
        this.ledger.set(message.messageId, { ...item, external: this.pending(behaviour.idempotent) });
        this.callExternal(message);
        this.crash(item, 1);
        return false;
      case 'crash':
        this.crash(
          item,
          Math.min(behaviour.inFlight, effectiveConcurrency(this.trial, CONFIGURED_CONCURRENCY)),
        );
        return false;
    }
  }

  private fail(message: SimMessage, item: LedgerItem, errorClass: ReturnType<typeof classifyError>): boolean {
    const decision = decideFailure(item, errorClass, this.policy, this.random());
    this.trial = afterCompletedMessage(this.trial);
    switch (decision.kind) {
      case 'retry':
        this.end(message, { ...item, ...decision.counters, state: 'ready', envId: undefined });
        return false;
      case 'quarantine':
        this.quarantineItem(message, item, decision.reason, { ...item, ...decision.counters });
        return true;
      case 'outcome-unknown':
        this.quarantineItem(message, item, 'outcome-unknown', item);
        return true;
    }
  }

  /** The dead environment's count is fixed by the first discoverer; here, at the crash. */
  private crash(item: LedgerItem, inFlight: number): void {
    this.crashes.set(item.envId ?? '', Math.max(1, inFlight));
  }

  /** Body first, then the record, then the ledger item, then the ack (rule 3). */
  private quarantineItem(
    message: SimMessage,
    item: LedgerItem,
    reason: QuarantineReason,
    settled: LedgerItem,
  ) {
    const id = quarantineId(item.key, item.generation, item.attempts);
    this.quarantine.set(id, {
      id,
      reason,
      body: message.body,
      attemptsStarted: settled.attempts,
      attemptsCharged: settled.charged,
    });
    this.end(message, { ...settled, state: 'quarantined', envId: undefined, quarantineId: id });
  }

  private end(message: SimMessage, item: LedgerItem): void {
    const { envId, ...rest } = item;
    this.ledger.set(message.messageId, envId === undefined ? rest : item);
  }

  private callExternal(message: SimMessage): void {
    this.externalCalls.set(message.messageId, (this.externalCalls.get(message.messageId) ?? 0) + 1);
  }

  private pending(idempotent: boolean): ExternalRecord {
    const record = {
      name: 'charge-card',
      status: 'pending' as const,
      at: new Date(this.clock).toISOString(),
    };
    return idempotent ? { ...record, idempotencyKey: this.nextId('idem') } : record;
  }

  private nextId(prefix: string): string {
    this.sequence += 1;
    return `${prefix}-${this.sequence}`;
  }
}

function thrown(error: 'transient' | 'permanent' | 'unknown'): unknown {
  switch (error) {
    case 'transient':
      return new TransientError('dependency busy');
    case 'permanent':
      return new PermanentError('amount is negative');
    case 'unknown':
      return new TypeError("Cannot read properties of undefined (reading 'id')");
  }
}
