/**
 * The message an operator's replay sends (rule 4): under which key it is worked on, the
 * attributes it carries, and whether SQS will take it. A replay adds two attributes of its own
 * (contract/message-attributes.ts); a message that cannot carry them within SQS's limits is
 * refused before anything changes, never cut down: dropping one of the producer's attributes,
 * or the replay's own, would lose data or the replay's history.
 */
import { MESSAGE_KEY_ATTRIBUTE, REPLAY_OF_ATTRIBUTE } from '../../contract/message-attributes';
import { type Refusal, refuse } from './operator';

/** SendMessage: at most this many message attributes. */
export const SQS_MAX_MESSAGE_ATTRIBUTES = 10;
/** A FIFO queue drops a send whose deduplication id it accepted this recently, even after a delete. */
export const SQS_DEDUPLICATION_SECONDS = 300;

/** A message attribute as the Lambda SQS event (and so the quarantine envelope) holds it. */
export interface MessageAttribute {
  readonly dataType: string;
  readonly stringValue?: string;
  /** Base64, as Lambda delivers binary attributes. */
  readonly binaryValue?: string;
}

export type MessageAttributes = Readonly<Record<string, MessageAttribute>>;

/** What replay and resume read of a quarantine record to tell whose ledger item a replay uses. */
export interface ReplayedRecord {
  readonly reason: string;
  readonly messageKey: string;
  readonly messageId: string;
}

/**
 * The key a replay is worked on under. A `key-collision` record holds a message that arrived
 * under another message's key and never had an item of its own: replayed under that key it
 * would reset the other message's item (or collide again), so it runs under its own identity,
 * its SQS message id, as the consumer would have run it without the business key.
 */
export function replayKeyOf(record: ReplayedRecord): string {
  return ownIdentity(record) ? record.messageId : record.messageKey;
}

/** Whether the replay runs under the message's own id rather than the record's key. */
export function ownIdentity(record: ReplayedRecord): boolean {
  return record.reason === 'key-collision';
}

/**
 * The replayed message's attributes: the producer's, then the replay's marks (an earlier replay's
 * marks are replaced, so a replay of a replay carries one pair).
 */
export function replayAttributes(
  recorded: MessageAttributes,
  marks: { readonly replayOf: string; readonly messageKey: string },
): Record<string, MessageAttribute> {
  const attributes: Record<string, MessageAttribute> = {};
  for (const [name, value] of Object.entries(recorded)) {
    if (name !== REPLAY_OF_ATTRIBUTE && name !== MESSAGE_KEY_ATTRIBUTE) attributes[name] = value;
  }
  attributes[REPLAY_OF_ATTRIBUTE] = { dataType: 'String', stringValue: marks.replayOf };
  attributes[MESSAGE_KEY_ATTRIBUTE] = { dataType: 'String', stringValue: marks.messageKey };
  return attributes;
}

/** A message's size as SQS counts it against the queue's limit: body plus attribute names, types and values, in bytes. */
export function messageBytes(body: string, attributes: MessageAttributes = {}): number {
  let bytes = Buffer.byteLength(body, 'utf8');
  for (const [name, { dataType, stringValue, binaryValue }] of Object.entries(attributes)) {
    bytes += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(dataType, 'utf8');
    if (stringValue !== undefined) bytes += Buffer.byteLength(stringValue, 'utf8');
    if (binaryValue !== undefined) bytes += Buffer.byteLength(binaryValue, 'base64');
  }
  return bytes;
}

/** Why SQS would refuse this message, if it would; the reason says what an operator can do instead. */
export function refusalBySqs(
  body: string,
  attributes: MessageAttributes,
  maxMessageBytes: number,
): Refusal | undefined {
  const instead = 'nothing was sent (pq show ID --body-out FILE keeps the message for a send of your own)';
  const count = Object.keys(attributes).length;
  if (count > SQS_MAX_MESSAGE_ATTRIBUTES) {
    return refuse(
      `the replay would carry ${count} message attributes: SQS allows ${SQS_MAX_MESSAGE_ATTRIBUTES}, and the replay adds 2 of its own; ${instead}`,
    );
  }
  const bytes = messageBytes(body, attributes);
  if (bytes > maxMessageBytes) {
    return refuse(
      `the replay would be ${bytes} bytes (body and message attributes, with the replay's own), more than the queue's ${maxMessageBytes}; ${instead}`,
    );
  }
  return undefined;
}
