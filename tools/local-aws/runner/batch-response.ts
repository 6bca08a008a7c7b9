/**
 * Reads a handler's normal return the way Lambda reads a partial batch response
 * (ReportBatchItemFailures): which records to delete and which to leave for redelivery.
 *
 * Lambda's rules (docs: "Handling errors for an SQS event source in Lambda"):
 * - no response, a response without `batchItemFailures`, or an empty/null list: all succeeded;
 * - an item whose `itemIdentifier` is missing, empty, not a string or not a message id of the
 *   batch: the WHOLE batch failed (nothing is deleted);
 * - otherwise every listed record stays, every other record is deleted.
 * A thrown error, a crash or a timeout never reaches this module: those return the whole batch.
 * FIFO needs no rule of its own: Lambda applies the response as given; stopping a message group
 * at its first failure is the handler's job.
 */

export type BatchSettlement =
  | { readonly kind: 'partial'; readonly failed: readonly string[]; readonly succeeded: readonly string[] }
  | { readonly kind: 'whole-batch-failed'; readonly reason: string };

/**
 * What an `itemIdentifier` names: the id of a record of the batch's kind, or undefined when it is
 * no identifier of that kind (which fails the whole batch).
 */
export type IdentifierReader = (identifier: unknown) => string | undefined;

/** An SQS message id: a non-empty string. */
export const sqsIdentifier: IdentifierReader = (identifier) =>
  typeof identifier === 'string' && identifier !== '' ? identifier : undefined;

export function settleBatch(
  messageIds: readonly string[],
  response: unknown,
  read: IdentifierReader = sqsIdentifier,
): BatchSettlement {
  const failures = batchItemFailuresOf(response);
  if (failures === undefined) return { kind: 'partial', failed: [], succeeded: [...messageIds] };
  if (!Array.isArray(failures)) {
    return { kind: 'whole-batch-failed', reason: 'batchItemFailures is not a list' };
  }
  const inBatch = new Set(messageIds);
  const failed = new Set<string>();
  for (const item of failures) {
    const raw = isRecord(item) ? item.itemIdentifier : undefined;
    const identifier = read(raw);
    if (identifier === undefined) {
      return {
        kind: 'whole-batch-failed',
        reason: `invalid itemIdentifier ${JSON.stringify(raw) ?? 'undefined'}`,
      };
    }
    if (!inBatch.has(identifier)) {
      return {
        kind: 'whole-batch-failed',
        reason: `itemIdentifier ${identifier} is not a message of this batch`,
      };
    }
    failed.add(identifier);
  }
  return {
    kind: 'partial',
    failed: messageIds.filter((id) => failed.has(id)),
    succeeded: messageIds.filter((id) => !failed.has(id)),
  };
}

/**
 * The identifiers the handler listed, for reporting before validation: the record each names, or
 * as given when it names none.
 */
export function listedIdentifiers(response: unknown, read: IdentifierReader = sqsIdentifier): string[] {
  const failures = batchItemFailuresOf(response);
  if (!Array.isArray(failures)) return [];
  return failures.map((item) => {
    const raw = isRecord(item) ? item.itemIdentifier : item;
    return read(raw) ?? (typeof raw === 'string' ? raw : String(JSON.stringify(raw)));
  });
}

/** `undefined` when the response carries no list at all (null counts as none). */
function batchItemFailuresOf(response: unknown): unknown {
  if (!isRecord(response)) return undefined;
  return response.batchItemFailures ?? undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
