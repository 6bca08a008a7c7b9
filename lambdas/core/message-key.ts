/**
 * The message key identifies a message across redeliveries (the ledger's partition key).
 * Default: the SQS messageId, which SQS keeps on every redelivery. With a key path, a business
 * id from a JSON body, so that two sends of the same order share one attempt budget.
 * Bad input never throws a message away: a body without the key is a result, not an error,
 * and the edge falls back to the messageId and records why.
 */

export type MessageKeyResult =
  | { readonly ok: true; readonly key: string }
  | { readonly ok: false; readonly reason: string };

/** DynamoDB's limit for a partition key value. */
const MAX_KEY_BYTES = 2048;

/** Reasons name the path and the problem, never the body's content (bodies are not logged). */
export function messageKey(
  record: {
    readonly messageId: string;
    readonly body: string;
  },
  keyPath?: string,
): MessageKeyResult {
  if (keyPath === undefined) {
    return { ok: true, key: record.messageId };
  }
  let value: unknown;
  try {
    value = JSON.parse(record.body);
  } catch {
    return { ok: false, reason: 'the body is not JSON' };
  }
  for (const segment of keyPath.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, segment)) {
      return { ok: false, reason: `the body has no "${keyPath}"` };
    }
    value = (value as Record<string, unknown>)[segment];
  }
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    // JSON.parse rounds big integers and long decimals: two ids would share one key.
    return { ok: false, reason: `"${keyPath}" is a number JSON cannot carry exactly (not a safe integer)` };
  }
  const key = typeof value === 'number' ? String(value) : value;
  if (typeof key !== 'string' || key === '') {
    return { ok: false, reason: `"${keyPath}" is not a non-empty string or number` };
  }
  return checkedKey(key, `"${keyPath}"`);
}

export type ReplayKeyResult =
  | { readonly ok: true; readonly key: string; readonly replayOf: string }
  | { readonly ok: false; readonly reason: string };

/**
 * An operator's replay carries the original's key and the quarantine id it came from (contract/
 * message-attributes.ts). Any producer can set message attributes, so this only checks their
 * form; the ledger honours the key only if its item was reset for exactly that replay.
 * `undefined`: the message does not claim to be a replay.
 */
export function replayKey(attributes: {
  readonly messageKey?: string;
  readonly replayOf?: string;
}): ReplayKeyResult | undefined {
  if (attributes.messageKey === undefined && attributes.replayOf === undefined) return undefined;
  if (
    attributes.messageKey === undefined ||
    attributes.replayOf === undefined ||
    attributes.replayOf === ''
  ) {
    return { ok: false, reason: 'a replay needs both pq-message-key and pq-replay-of' };
  }
  const checked = checkedKey(attributes.messageKey, 'pq-message-key');
  return checked.ok ? { ...checked, replayOf: attributes.replayOf } : checked;
}

/** The key a delivered record is worked on under; `fallback` says why it is the messageId. */
export interface RecordKey {
  readonly key: string;
  /** Set when the record claims to be an operator's replay of this quarantine record. */
  readonly replayOf?: string;
  readonly fallback?: string;
}

/**
 * A replay's attributes if well formed, else the key path, else the messageId: bad input never
 * loses a message, it only loses its business key (and the reason is kept to be logged).
 */
export function recordKey(
  record: {
    readonly messageId: string;
    readonly body: string;
    readonly replay: { readonly messageKey?: string; readonly replayOf?: string };
  },
  keyPath?: string,
): RecordKey {
  const replay = replayKey(record.replay);
  if (replay?.ok) return { key: replay.key, replayOf: replay.replayOf };
  const result = replay ?? messageKey(record, keyPath);
  return result.ok ? { key: result.key } : { key: record.messageId, fallback: result.reason };
}

function checkedKey(key: string, what: string): MessageKeyResult {
  if (key === '') return { ok: false, reason: `${what} is empty` };
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) {
    return { ok: false, reason: `${what} is longer than ${MAX_KEY_BYTES} bytes` };
  }
  return { ok: true, key };
}
