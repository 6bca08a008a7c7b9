/**
 * What to do with a delivery whose start write was refused (docs/design.md, consumer step 2):
 * the condition `attribute_not_exists(pk) OR state = ready` failed, and DynamoDB returned the
 * previous item. Timeline of the item: start (in-flight) -> end (completed | ready |
 * quarantined); an in-flight item seen by a new delivery means the previous attempt crashed.
 */
import { LEDGER_STATE } from '../../contract/ledger';
import type { LedgerItem, Policy, QuarantineIntent } from './types';

/** What the edge learns about an attempt found in flight past its time. */
export interface CrashContext {
  /** How many messages the dead execution environment had in flight (the `crash/<envId>` item). */
  readonly inFlight: number;
  /**
   * The attempt of this key whose work succeeded but whose completion write was lost (the
   * `lost-completion/<key>` item), if any.
   */
  readonly completedAttemptId?: string;
}

/** The delivered message, as far as telling a redelivery from another message goes. */
export interface Delivered {
  readonly messageId: string;
  readonly bodyDigest: string;
  /**
   * SQS's last receive before the backstop (core/receive-limit.ts). Absent: not the last.
   */
  readonly lastReceive?: boolean;
  /** The operator's replay it carries the mark of (`pq-replay-of`). Absent: no replay. */
  readonly replayOf?: string;
}

/** Rule 5: one message in flight, the crash is its own. Rule 6: several, nobody is blamed. */
export type CrashAttribution = 'attributable' | 'unattributable';

export type DeliveryDecision =
  /**
   * The attempt in flight may still be running (a duplicate delivery, or a second message with
   * the same business key): nothing is charged and nothing starts; try again once it must be over.
   */
  | {
      readonly kind: 'busy';
      readonly retryInSeconds: number;
      /** Epoch ms: when it must be over (its lease or its timeout ends), so a wait may end there. */
      readonly until: number;
    }
  /** Rule 13: acknowledge without work. */
  | {
      readonly kind: 'duplicate';
      readonly state: typeof LEDGER_STATE.completed | typeof LEDGER_STATE.quarantined;
    }
  /**
   * Another message (another messageId, other bytes) under the key of a finished one: a
   * producer's corrected resend or a key clash. Never dropped: quarantined with its own bytes.
   */
  | { readonly kind: 'key-collision' }
  /**
   * Rule 3: the previous delivery began a quarantine and did not finish it (it died, or a write
   * failed): finish that one, under its id, so a message is quarantined once.
   */
  | { readonly kind: 'finish-quarantine'; readonly quarantine: QuarantineIntent }
  /** The previous attempt's work succeeded and only its completion write was lost: complete it. */
  | { readonly kind: 'lost-completion' }
  /** Rule 8: quarantine and ask a person; no new attempt, the external call is never repeated. */
  | { readonly kind: 'outcome-unknown'; readonly failureEvent: string }
  /** Count the dead environment's in-flight messages, then decide again with the count. */
  | { readonly kind: 'need-crash-context'; readonly envId: string }
  /**
   * Rule 2: the limit is used up; or a message that crashed is on its last receive, where a
   * crash would carry it past the quarantine to the backstop. Quarantine without another attempt.
   */
  | {
      readonly kind: 'quarantine';
      readonly reason: 'crash-limit' | 'receive-limit';
      readonly charge: number;
      readonly crash: CrashAttribution | 'none';
      readonly failureEvent?: string;
    }
  /**
   * Settle the crashed attempt (charge it or not) and start a new one, conditioned on the old
   * attemptId; after a crash, `startIsolation` (rule 6).
   */
  | {
      readonly kind: 'proceed';
      readonly charge: number;
      readonly crash: CrashAttribution | 'none';
      readonly startIsolation: boolean;
      readonly failureEvent?: string;
    };

export function decideDelivery(
  previous: LedgerItem,
  crash: CrashContext | undefined,
  policy: Policy,
  now: number,
  delivered: Delivered,
): DeliveryDecision {
  switch (previous.state) {
    case LEDGER_STATE.completed:
    case LEDGER_STATE.quarantined:
      return isOtherMessage(previous, delivered)
        ? { kind: 'key-collision' }
        : { kind: 'duplicate', state: previous.state };
    case LEDGER_STATE.ready:
    case LEDGER_STATE.inFlight:
      if (delivered.replayOf !== previous.replayOf) return notTheReplay(previous, delivered);
      return ownSettlement(
        previous,
        delivered,
        crashOnLastReceive(previous, delivered, decideOpen(previous, crash, policy, now)),
      );
  }
}

/**
 * An item an operator reset for a replay belongs to that replay: only deliveries with its mark
 * start, retry or settle attempts in the generation (issue 38); an item never reset, only
 * deliveries without one (the consumer ignores a mark no reset made before it asks here). A
 * delivery of the original (Kafka redelivers a failed batch from its first uncommitted offset,
 * SQS may deliver twice) is a duplicate: its work ended in the quarantine being replayed. Another
 * message under the key is kept apart as a collision, as after a completion.
 */
function notTheReplay(previous: LedgerItem, delivered: Delivered): DeliveryDecision {
  return isOtherMessage(previous, delivered)
    ? { kind: 'key-collision' }
    : { kind: 'duplicate', state: LEDGER_STATE.quarantined };
}

/**
 * A replay whose mark names another quarantine than the one the item was reset for: the item ran
 * it already when a later replay reset it again (a redelivery of the earlier replay: a duplicate),
 * or no operator ever made it (a producer's attributes, ignored).
 */
export function replayAlreadyStarted(previous: LedgerItem | undefined, replayOf: string): boolean {
  return previous?.replaysStarted?.includes(replayOf) === true;
}

/** Decisions that settle the previous attempt's message: quarantining it, or completing it. */
const SETTLES_ITS_MESSAGE = new Set<DeliveryDecision['kind']>([
  'quarantine',
  'outcome-unknown',
  'finish-quarantine',
  'lost-completion',
]);

/**
 * Only a delivery of the message whose attempt it settles may settle it: a quarantine holds that
 * message's bytes, and a lost completion acknowledges the delivery as done. Another message under
 * the same key (other id, other bytes) arriving first is quarantined on its own, never
 * acknowledged through the first one's work; the original is still in the queue and comes back.
 * So is another message that must wait for the attempt in flight but is on its last receive:
 * handed back, SQS would move it to the backstop, past any record.
 */
function ownSettlement(
  previous: LedgerItem,
  delivered: Delivered,
  decision: DeliveryDecision,
): DeliveryDecision {
  const settles =
    SETTLES_ITS_MESSAGE.has(decision.kind) || (decision.kind === 'busy' && delivered.lastReceive === true);
  return settles && isOtherMessage(previous, delivered) ? { kind: 'key-collision' } : decision;
}

/**
 * A message that crashed is not run again on its last receive: a caught failure there is
 * quarantined, but a second crash would leave SQS to move it to the backstop, past any evidence
 * and any `pq`. It is quarantined instead, its crash settled as the crash limit would. A crash
 * an outage settled uncharged (`lastAttemptCrashed`) is a crash all the same.
 */
function crashOnLastReceive(
  previous: LedgerItem,
  delivered: Delivered,
  decision: DeliveryDecision,
): DeliveryDecision {
  if (delivered.lastReceive !== true || decision.kind !== 'proceed') return decision;
  if (decision.crash === 'none' && previous.lastAttemptCrashed !== true) return decision;
  const { charge, crash, failureEvent } = decision;
  return {
    kind: 'quarantine',
    reason: 'receive-limit',
    charge,
    crash,
    ...(failureEvent === undefined ? {} : { failureEvent }),
  };
}

function decideOpen(
  previous: LedgerItem,
  crash: CrashContext | undefined,
  policy: Policy,
  now: number,
): DeliveryDecision {
  if (previous.state === LEDGER_STATE.ready) {
    if (previous.quarantining !== undefined)
      return { kind: 'finish-quarantine', quarantine: previous.quarantining };
    // The start write admits `ready` only below the limit, without an unrepeatable call and
    // without a quarantine begun.
    if (previous.unrepeatable !== undefined) {
      return { kind: 'outcome-unknown', failureEvent: failureEventForMessage(previous.key) };
    }
    return previous.charged >= policy.attemptLimit
      ? { kind: 'quarantine', reason: 'crash-limit', charge: 0, crash: 'none' }
      : { kind: 'proceed', charge: 0, crash: 'none', startIsolation: false };
  }
  const until = runningUntil(previous, policy);
  if (until > now) return { kind: 'busy', retryInSeconds: Math.ceil((until - now) / 1000), until };
  // The attempt died quarantining: the decision was made; the crash is ours, not the message's.
  if (previous.quarantining !== undefined)
    return { kind: 'finish-quarantine', quarantine: previous.quarantining };
  return decideAfterCrash(previous, crash, policy);
}

/**
 * Until when an attempt in flight may be alive. An attempt younger than the function timeout may
 * be (on SQS a crash is seen only after the visibility timeout, >= 6x the function timeout); one
 * with a lease (Kafka, which delivers again at once) is dead once its worker stopped renewing it.
 */
function runningUntil(previous: LedgerItem, policy: Policy): number {
  const timeout = Date.parse(previous.lastAttemptAt) + policy.attemptTimeoutSeconds * 1000;
  return previous.aliveUntil === undefined ? timeout : Math.min(timeout, Date.parse(previous.aliveUntil));
}

function decideAfterCrash(
  previous: LedgerItem,
  crash: CrashContext | undefined,
  policy: Policy,
): DeliveryDecision {
  if (crash === undefined && previous.envId !== undefined) {
    return { kind: 'need-crash-context', envId: previous.envId };
  }
  // The work succeeded; only its completion write was lost: nothing to redo, nothing to charge.
  if (crash?.completedAttemptId === previous.attemptId) return { kind: 'lost-completion' };
  // A non-idempotent call that is pending may have happened; one that is done did happen, and
  // redoing the work would repeat it. Either way only a person may decide (rule 8).
  if (unrepeatableCall(previous) !== undefined) {
    return { kind: 'outcome-unknown', failureEvent: failureEventForMessage(previous.key) };
  }
  // Without an environment id nobody can count; charging is the choice that cannot loop forever.
  const attribution: CrashAttribution = (crash?.inFlight ?? 1) > 1 ? 'unattributable' : 'attributable';
  const charge = attribution === 'attributable' ? 1 : 0;
  const event = crashEventOf(previous, attribution);
  if (previous.charged + charge >= policy.attemptLimit) {
    return { kind: 'quarantine', reason: 'crash-limit', charge, crash: attribution, ...event };
  }
  return { kind: 'proceed', charge, crash: attribution, startIsolation: true, ...event };
}

/**
 * How a crash feeds rule 7. A crash several messages shared is no failure event: it blames
 * nobody yet, and the isolation trial it starts will run each of them alone, so the next crash
 * points at one message. A message's first crash alone is an event, keyed by the message: a
 * dependency that kills workers kills every message that runs, alone or not, and three of them
 * crashing alone in a minute pause consumption. Its later crashes alone are not: it is the
 * cause (rule 5), and counting it again would let a few poison messages trip the breaker on
 * every delivery, each crash settled uncharged, until they cycle to their last receive. And a
 * crash after which a message passed the trial stops counting at all (core/outage.ts): workers
 * that finish other messages are not down.
 */
function crashEventOf(
  previous: LedgerItem,
  attribution: CrashAttribution,
): { readonly failureEvent?: string } {
  if (attribution === 'unattributable' || (previous.crashes ?? 0) > 0) return {};
  return { failureEvent: failureEventForMessage(previous.key) };
}

/**
 * The keyless call of the latest attempt that may have reached the outside system: the sticky
 * record, or (for items written before it existed) the latest call if it was not proven unsent.
 */
export function unrepeatableCall(item: LedgerItem): LedgerItem['external'] {
  if (item.unrepeatable !== undefined) return item.unrepeatable;
  const external = item.external;
  return external !== undefined && external.status !== 'not-sent' && external.idempotencyKey === undefined
    ? external
    : undefined;
}

/**
 * Rule 13 is about the same message delivered again: the same SQS messageId, or the same bytes
 * under the same business key. Items written before digests existed count as the same message.
 */
function isOtherMessage(previous: LedgerItem, delivered: Delivered): boolean {
  return (
    previous.messageId !== delivered.messageId &&
    previous.bodyDigest !== undefined &&
    previous.bodyDigest !== delivered.bodyDigest
  );
}

/** Rule 7 event key of a caught error: repeated failures of one message are one key. */
export function failureEventForMessage(messageKey: string): string {
  return `msg:${messageKey}`;
}
