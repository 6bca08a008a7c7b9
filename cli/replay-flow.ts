/**
 * One replay (rule 4), shared by `replay` and `verify --not-done`. Everything is read first, so a
 * record that cannot be replayed changes nothing: a body SQS cannot carry, or a message that would
 * not fit SQS's limits with the replay's attributes (core/replay-message.ts). Then: a plain replay
 * claims the record (`replaying`); the ledger gets a fresh budget, conditioned on still holding
 * this quarantine, which is what makes a replay happen once (and it comes before the send: the
 * replayed delivery would otherwise meet a `quarantined` item and be acknowledged as a duplicate);
 * the exact body goes to the source queue with its attributes and `pq-replay-of`, a FIFO one with
 * a deduplication id of this replay's own; the record gets its `replay` audit entry. A record
 * awaiting an operator keeps its status: the state machine moves it on when it receives the
 * decision. A failure before the send succeeds is undone.
 *
 * A `key-collision` record's message is replayed under its own identity (`replayKeyOf`): its
 * ledger item is created for the replay, and the other message's item is never touched.
 *
 * A Kafka consumer's record is produced instead of sent (kafka-replay.ts): its key, value bytes and
 * headers, with the replay's two headers, to its topic and partition (or a replay topic), through
 * the same claim, reset, undo and audit.
 *
 * A replay killed half-way (or whose undo failed) leaves its claim: `replay --resume` settles
 * it from the ledger (core/operator.ts `decideResume`), never by sending.
 */
import { randomUUID } from 'node:crypto';
import { LEDGER_STATE } from '../contract/ledger';
import type { RecordedMessageAttribute, ReplayInput } from '../lambdas/adapters/source-queue';
import {
  REPLAY_AUDIT,
  REPLAY_RUNNING_AT_MOST_MINUTES,
  REPLAY_STARTED_AUDIT,
  type ResumePlan,
} from '../lambdas/core/operator';
import type { AuditEntry, QuarantineRecord } from '../lambdas/core/quarantine-record';
import { ownIdentity, refusalBySqs, replayAttributes, replayKeyOf } from '../lambdas/core/replay-message';
import { LedgerStateMismatchError, StaleAttemptError } from '../lambdas/ports/errors';
import type { LedgerEntry } from '../lambdas/ports/ledger';
import { exactUtf8 } from './body';
import type { Deployment } from './deployment';
import { Refused } from './errors';
import { type KafkaReplayMessage, kafkaReplayMessage, produceReplay } from './kafka-replay';

export interface Actor {
  readonly who: string;
  readonly why: string;
  readonly now: Date;
}

/** `replay`: from open, through replaying, to replayed. `verify`: the status is the state machine's. */
export type ReplayVia = 'replay' | 'verify';

export interface ReplayReceipt {
  readonly id: string;
  /** The new message's id: SQS's, or the produced Kafka record's `topic-partition-offset`. */
  readonly messageId: string;
  /** The ledger's generation after the reset: the replay's fresh budget. */
  readonly generation: number;
}

export function auditEntry(actor: Actor, what: string, why = actor.why): AuditEntry {
  return { who: actor.who, when: actor.now.toISOString(), what, why };
}

/** What a replay sends to the source queue (`replayMessage`); each replay adds a deduplication id of its own. */
export type SqsReplayMessage = Omit<ReplayInput, 'deduplicationId'> & { readonly kind: 'sqs' };

/** What a replay sends: a message to the source queue, or a record to a Kafka topic. */
export type ReplayMessage = SqsReplayMessage | KafkaReplayMessage;

/** Replays `record` as `message`, which `replayMessage` built from it. */
export async function replayRecord(
  deployment: Deployment,
  record: QuarantineRecord,
  message: ReplayMessage,
  via: ReplayVia,
  actor: Actor,
): Promise<ReplayReceipt> {
  const { id } = record;
  // The claim's `when` dates the replay: resume waits until it cannot still be running.
  if (via === 'replay') await deployment.claims.claim(id, auditEntry(actor, REPLAY_STARTED_AUDIT));
  let reset: LedgerEntry | undefined;
  let receipt: ReplayReceipt;
  try {
    reset = await resetLedger(deployment, record, actor.now);
    receipt = { id, messageId: await send(deployment, message), generation: reset.generation };
  } catch (error) {
    await undo(deployment, record, via, actor, { reset, failure: (error as Error).message });
    if (error instanceof LedgerStateMismatchError) {
      throw new Refused(
        `record ${id}: the attempts ledger no longer holds this quarantine, nothing was sent (${error.message})`,
      );
    }
    throw error;
  }
  try {
    const entry = auditEntry(actor, REPLAY_AUDIT);
    if (via === 'replay') await deployment.claims.finish(id, entry);
    else await deployment.records.appendAudit(id, { ...entry, when: actor.now });
  } catch (error) {
    throw new Error(
      `record ${id} WAS replayed as message ${receipt.messageId}, but its replay was not recorded ` +
        `(${(error as Error).message}): do not replay it again${via === 'replay' ? `; ${settleLater(id)}` : ''}`,
    );
  }
  return receipt;
}

/** Sends the replay; the new message's id. */
async function send(deployment: Deployment, message: ReplayMessage): Promise<string> {
  if (message.kind === 'kafka') return produceReplay(deployment, message);
  const { kind: _sqs, ...input } = message;
  // One id per replay: SQS would drop, for five minutes, a replay under an undone one's id.
  return (await deployment.queue.replay({ ...input, deduplicationId: `replay-${randomUUID()}` })).messageId;
}

/**
 * What the replay would send, read from the record's content, or why it cannot be sent. Shared by
 * the replay and its dry run, so the dry run refuses what the replay would. `replayTopic`: a
 * Kafka replay's topic instead of the record's own.
 */
export async function replayMessage(
  deployment: Deployment,
  record: QuarantineRecord,
  replayTopic?: string,
): Promise<ReplayMessage | { readonly refused: string }> {
  if (deployment.kafka !== undefined)
    return kafkaReplayMessage(deployment.kafka, deployment, record, replayTopic);
  const body = exactUtf8(await deployment.records.readBody(record.id));
  if (body === undefined) {
    return { refused: 'its body is not UTF-8 text, which SQS cannot carry exactly (show --body-out)' };
  }
  const messageAttributes = recordedAttributes(await deployment.records.readEnvelope(record.id));
  const message: SqsReplayMessage = {
    kind: 'sqs',
    body,
    messageAttributes,
    ...(record.messageGroupId === undefined ? {} : { messageGroupId: record.messageGroupId }),
    replayOf: record.id,
    messageKey: replayKeyOf(record),
  };
  const sent = replayAttributes(messageAttributes, message);
  const refusal = refusalBySqs(body, sent, await deployment.queue.maxMessageBytes());
  return refusal === undefined ? message : { refused: refusal.reason };
}

/**
 * A fresh budget on the item the replay runs under, while it still holds this quarantine. A
 * collision's message has no item until its first replay; after an undone one it has, quarantined
 * by this record, and is reset as any other.
 */
async function resetLedger(
  deployment: Deployment,
  record: QuarantineRecord,
  now: Date,
): Promise<LedgerEntry> {
  const key = replayKeyOf(record);
  const created = ownIdentity(record)
    ? await deployment.ledger.createForReplay(key, {
        quarantineId: record.id,
        generation: record.generation + 1,
        messageId: record.messageId,
        now,
      })
    : undefined;
  return (
    created ??
    deployment.ledger.resetForReplay(key, {
      expectedState: LEDGER_STATE.quarantined,
      quarantineId: record.id,
      now,
    })
  );
}

/**
 * Puts the ledger and the record back as they were. If the send failed ambiguously and the
 * message did reach the queue, the re-quarantined ledger makes its delivery a duplicate
 * (acknowledged, no work): the record is open again and nothing ran twice. If the consumer has
 * already started it, the replay did happen: nothing is put back, and resume records it.
 */
async function undo(
  deployment: Deployment,
  record: QuarantineRecord,
  via: ReplayVia,
  actor: Actor,
  outcome: { readonly reset: LedgerEntry | undefined; readonly failure: string },
): Promise<void> {
  try {
    if (outcome.reset) await requarantine(deployment, record, outcome.reset, actor.now);
    if (via === 'replay')
      await deployment.claims.release(record.id, auditEntry(actor, 'replay-aborted', outcome.failure));
  } catch (undoError) {
    throw new Error(
      `record ${record.id}: replay failed (${outcome.failure}) and could not be undone ` +
        `(${(undoError as Error).message}); ` +
        (via === 'replay'
          ? `the record stays "replaying": ${settleLater(record.id)}`
          : 'its ledger item may already have a fresh budget: check it (pq show) before answering again'),
    );
  }
}

/**
 * The ledger item this replay reset, back to `quarantined` by the record, only while no attempt
 * has started on it: the attempt id is still the one the reset left (`markQuarantined` with an
 * attempt id), else StaleAttemptError and nothing changes. A copy of the replay that reaches the
 * consumer afterwards is acknowledged as a duplicate.
 */
function requarantine(deployment: Deployment, record: QuarantineRecord, reset: LedgerEntry, now: Date) {
  return deployment.ledger.markQuarantined(replayKeyOf(record), {
    attemptId: reset.attemptId,
    quarantineId: record.id,
    now,
  });
}

function settleLater(id: string): string {
  return `pq replay ${id} --resume --reason "..." settles it from the ledger (${REPLAY_RUNNING_AT_MOST_MINUTES} minutes after it started)`;
}

export interface ResumeReceipt {
  readonly id: string;
  readonly resumed: 'finish' | 'release';
  readonly evidence: string;
}

/**
 * Carries out `decideResume`: records the replay as done, or releases the claim, first putting
 * a reset ledger item back (so a copy of the replay still in the queue does no work). Nothing is
 * sent: after a release, the operator's next `pq replay` is the one that runs.
 */
export async function resumeReplay(
  deployment: Deployment,
  record: QuarantineRecord,
  ledger: LedgerEntry | undefined,
  plan: Exclude<ResumePlan, { readonly kind: 'refuse' }>,
  actor: Actor,
): Promise<ResumeReceipt> {
  const why = `${actor.why}: ${plan.evidence}`;
  if (plan.kind === 'finish') {
    await deployment.claims.finish(record.id, auditEntry(actor, 'replay-confirmed', why));
  } else {
    if (plan.requarantine && ledger !== undefined) {
      try {
        await requarantine(deployment, record, ledger, actor.now);
      } catch (error) {
        if (!(error instanceof StaleAttemptError)) throw error;
        throw new Refused(
          `record ${record.id}: the consumer picked the replay up just now, nothing was changed: resume again to record it`,
        );
      }
    }
    await deployment.claims.release(record.id, auditEntry(actor, 'replay-released', why));
  }
  return { id: record.id, resumed: plan.kind, evidence: plan.evidence };
}

/**
 * The envelope keeps the attributes as the Lambda SQS event delivered them (camelCase, binary
 * values in base64); list values are reserved by SQS and never set.
 */
function recordedAttributes(envelope: Record<string, unknown>): Record<string, RecordedMessageAttribute> {
  const raw = envelope.messageAttributes;
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object') throw new Error("the envelope's messageAttributes is not an object");
  const attributes: Record<string, RecordedMessageAttribute> = {};
  for (const [name, value] of Object.entries(raw as Record<string, Record<string, unknown> | null>)) {
    const { dataType, stringValue, binaryValue } = value ?? {};
    if (typeof dataType !== 'string')
      throw new Error(`the envelope's message attribute ${name} has no dataType`);
    attributes[name] = {
      dataType,
      ...(typeof stringValue === 'string' ? { stringValue } : {}),
      ...(typeof binaryValue === 'string' ? { binaryValue } : {}),
    };
  }
  return attributes;
}
