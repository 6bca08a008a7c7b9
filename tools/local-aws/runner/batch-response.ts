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

export function settleBatch(messageIds: readonly string[], response: unknown): BatchSettlement {
  const failures = batchItemFailuresOf(response);
  if (failures === undefined) return { kind: 'partial', failed: [], succeeded: [...messageIds] };
  if (!Array.isArray(failures)) {
    return { kind: 'whole-batch-failed', reason: 'batchItemFailures is not a list' };
  }
  const inBatch = new Set(messageIds);
  const failed = new Set<string>();
  for (const item of failures) {
    const identifier = isRecord(item) ? item.itemIdentifier : undefined;
    if (typeof identifier !== 'string' || identifier === '') {
      return {
        kind: 'whole-batch-failed',
        reason: `invalid itemIdentifier ${JSON.stringify(identifier) ?? 'undefined'}`,
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

/** The identifiers exactly as the handler listed them (for reporting, before validation). */
export function listedIdentifiers(response: unknown): string[] {
  const failures = batchItemFailuresOf(response);
  if (!Array.isArray(failures)) return [];
  return failures.map((item) => String(isRecord(item) ? item.itemIdentifier : item));
}

/** `undefined` when the response carries no list at all (null counts as none). */
function batchItemFailuresOf(response: unknown): unknown {
  if (!isRecord(response)) return undefined;
  return response.batchItemFailures ?? undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
