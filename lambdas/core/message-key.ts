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
    /** The original's key on an operator's replay (a new SQS message with a new messageId). */
    readonly replayOfKey?: string;
  },
  keyPath?: string,
): MessageKeyResult {
  if (record.replayOfKey !== undefined && record.replayOfKey !== '') {
    return { ok: true, key: record.replayOfKey };
  }
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
  const key = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof key !== 'string' || key === '') {
    return { ok: false, reason: `"${keyPath}" is not a non-empty string or number` };
  }
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) {
    return { ok: false, reason: `"${keyPath}" is longer than ${MAX_KEY_BYTES} bytes` };
  }
  return { ok: true, key };
}
