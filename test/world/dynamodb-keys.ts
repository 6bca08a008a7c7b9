/**
 * DynamoDB's limits on key attributes, as the in-memory tables apply them: a partition key of at
 * most 2048 UTF-8 bytes, a sort key of at most 1024. A longer one is refused with a
 * ValidationException (HTTP 400), which the adapters turn into their table's own error.
 */
export const PARTITION_KEY_MAX_BYTES = 2048;
export const SORT_KEY_MAX_BYTES = 1024;

type AdapterErrorClass = new (message: string, options?: ErrorOptions) => Error;

/** Throws what the adapter would throw for a request naming this key; returns nothing otherwise. */
export function checkKey(
  table: AdapterErrorClass,
  operation: string,
  key: { readonly pk: string; readonly sk?: string },
): void {
  const tooLong =
    Buffer.byteLength(key.pk, 'utf8') > PARTITION_KEY_MAX_BYTES
      ? 'partition'
      : key.sk !== undefined && Buffer.byteLength(key.sk, 'utf8') > SORT_KEY_MAX_BYTES
        ? 'sort'
        : undefined;
  if (tooLong === undefined) return;
  const cause = Object.assign(
    new Error(`One or more parameter values were invalid: ${tooLong} key too long`),
    {
      name: 'ValidationException',
      $metadata: { httpStatusCode: 400 },
    },
  );
  throw new table(`${operation} failed: ValidationException (HTTP 400)`, { cause });
}
