/**
 * The backstop queue (issue 21): SQS moves a message there after `backstopMaxReceiveCount`
 * receives, past our ledger, when the consumer could not decide it in time (it could not record,
 * or its stop outlasted the receives). There it has no record, no evidence and no replay, so an
 * operator takes it into quarantine (`pq backstop take`): a record with reason `backstop` and the
 * message's exact bytes, then the usual cause / replay / discard. These are the take's decisions;
 * the CLI reads and writes (cli/commands/backstop.ts).
 */
import { LEDGER_STATE } from '../../contract/ledger';
import { MESSAGE_KEY_ATTRIBUTE, REPLAY_OF_ATTRIBUTE } from '../../contract/message-attributes';
import { QUARANTINE_STATUS } from '../../contract/quarantine';
import { backstopQuarantineId } from './ids';
import { type RecordKey, recordKey } from './message-key';
import { type Refusal, refuse } from './operator';
import type { NewQuarantineRecord } from './quarantine-record';
import type { MessageAttributes } from './replay-message';
import type { LedgerItem } from './types';

/** A message as the backstop queue holds it, in the shape of a Lambda SQS record. */
export interface BackstopMessage {
  readonly messageId: string;
  readonly receiptHandle: string;
  /** Exactly as SQS holds it. */
  readonly body: string;
  readonly md5OfBody: string;
  /** SQS's own attributes: ApproximateReceiveCount, SentTimestamp, MessageGroupId, ... */
  readonly attributes: Readonly<Record<string, string>>;
  readonly messageAttributes: MessageAttributes;
}

/** Every backstop record groups together (`pq list --group`): they failed in no one way we saw. */
export const BACKSTOP_ERROR_SIGNATURE = 'backstop';
export const BACKSTOP_TAKE_AUDIT = 'backstop-take';

/** The ledger key the consumer would have worked the message under (core/message-key.ts). */
export function backstopKey(message: BackstopMessage, keyPath: string | undefined): RecordKey {
  const attribute = (name: string) => message.messageAttributes[name]?.stringValue;
  return recordKey(
    {
      messageId: message.messageId,
      body: message.body,
      replay: {
        ...optional('messageKey', attribute(MESSAGE_KEY_ATTRIBUTE)),
        ...optional('replayOf', attribute(REPLAY_OF_ATTRIBUTE)),
      },
    },
    keyPath,
  );
}

/**
 * What the take does to the message's ledger item, so that the record's replay finds it
 * quarantined by this record (cli/replay-flow.ts resets only such an item):
 * - `create`: no item (the consumer never recorded it): a quarantined one is made;
 * - `mark`: an attempt that ended or whose environment is dead: quarantined by this record;
 * - `keep`: already quarantined by this record (a take run again) or by another record, or
 *   completed: left as it is, and said (a replay of this record is then refused by the ledger);
 * - refused: an attempt started less than the consumer's timeout ago may still be running.
 */
export type LedgerHold =
  | { readonly kind: 'create' }
  | { readonly kind: 'mark'; readonly attemptId: string; readonly state: string }
  | { readonly kind: 'keep'; readonly note?: string };

export function decideLedgerHold(
  item: LedgerItem | undefined,
  quarantineId: string,
  now: Date,
  attemptTimeoutSeconds: number,
): LedgerHold | Refusal {
  if (item === undefined) return { kind: 'create' };
  switch (item.state) {
    case LEDGER_STATE.quarantined:
      return item.quarantineId === quarantineId
        ? { kind: 'keep' }
        : {
            kind: 'keep',
            note: `its key is already quarantined by record ${item.quarantineId}: this is a copy, discard one of them`,
          };
    case LEDGER_STATE.completed:
      return {
        kind: 'keep',
        note: 'its key completed: this copy was done already; discard it unless you know it was not',
      };
    case LEDGER_STATE.inFlight: {
      const runningUntil = Date.parse(item.lastAttemptAt) + attemptTimeoutSeconds * 1000;
      if (now.getTime() < runningUntil) {
        return refuse(
          `an attempt of its key started at ${item.lastAttemptAt} may still be running: take it after ${new Date(runningUntil).toISOString()}`,
        );
      }
      return { kind: 'mark', attemptId: item.attemptId, state: item.state };
    }
    default:
      return { kind: 'mark', attemptId: item.attemptId, state: item.state };
  }
}

/**
 * Rule 11a: the consumer stops quarantining at `capacity` open records, so a take that would
 * reach it is refused before anything is written.
 */
export function refuseOverCapacity(open: number, taking: number, capacity: number): Refusal | undefined {
  if (open + taking < capacity) return undefined;
  return refuse(
    `the quarantine holds ${open} open record(s) of the ${capacity} at which the consumer stops; ` +
      `taking ${taking} would reach it: replay or discard some first (pq list)`,
  );
}

export interface BackstopTake {
  /** The record, but for where its content was put (QuarantineWriter.putContent). */
  readonly record: Omit<NewQuarantineRecord, 'bodyKey' | 'envelopeKey' | 'bodyBytes'>;
  /** What the quarantine bucket keeps beside the body. */
  readonly envelope: Record<string, unknown>;
}

/** The record a take writes, from the message and its ledger item as they are. */
export function backstopTake(input: {
  readonly message: BackstopMessage;
  readonly key: RecordKey;
  readonly item: LedgerItem | undefined;
  readonly sourceQueueArn: string;
  readonly backstopQueueArn: string;
  readonly now: Date;
}): BackstopTake {
  const { message, item, now } = input;
  const sent = Number(message.attributes.SentTimestamp);
  const sentAt = Number.isSafeInteger(sent) ? new Date(sent).toISOString() : now.toISOString();
  const group = message.attributes.MessageGroupId;
  const evidence = {
    id: backstopQuarantineId(message.messageId),
    reason: 'backstop' as const,
    messageKey: input.key.key,
    messageId: message.messageId,
    generation: item?.generation ?? 0,
    attemptsStarted: item?.attempts ?? 0,
    attemptsCharged: item?.charged ?? 0,
    stage: item?.stage ?? 'not-started',
    ...optional('lastError', item?.lastError),
    ...optional('external', item?.external),
    firstAttemptAt: item?.firstAttemptAt ?? sentAt,
    lastAttemptAt: item?.lastAttemptAt ?? sentAt,
    sourceQueueArn: input.sourceQueueArn,
    ...(group === undefined ? {} : { messageGroupId: group, orderBroken: true }),
  };
  return {
    record: {
      ...evidence,
      status: QUARANTINE_STATUS.open,
      cause: 'unidentified',
      errorSignature: BACKSTOP_ERROR_SIGNATURE,
      createdAt: now.toISOString(),
    },
    envelope: {
      ...evidence,
      quarantineId: evidence.id,
      backstopQueueArn: input.backstopQueueArn,
      ...optional('keyFallback', input.key.fallback),
      ledgerState: item?.state ?? 'none',
      attributes: message.attributes,
      messageAttributes: message.messageAttributes,
      md5OfBody: message.md5OfBody,
    },
  };
}

function optional<K extends string, V>(name: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [name]: value }) as { [P in K]?: V };
}
