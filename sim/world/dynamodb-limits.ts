/**
 * DynamoDB's limits, as the in-memory tables apply them: a partition key of at most 2048 UTF-8
 * bytes, a sort key of at most 1024, an item of at most 400 KB (attribute names and values
 * together). A request past one is refused with a ValidationException (HTTP 400), which the
 * adapters turn into their table's own error.
 */
export const PARTITION_KEY_MAX_BYTES = 2048;
export const SORT_KEY_MAX_BYTES = 1024;
export const ITEM_MAX_BYTES = 400 * 1024;

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
  throw validationError(
    table,
    operation,
    `One or more parameter values were invalid: ${tooLong} key too long`,
  );
}

/** Throws what the adapter would throw for a write leaving `item` over 400 KB. */
export function checkItemSize(table: AdapterErrorClass, operation: string, item: object): void {
  if (itemBytes(item) <= ITEM_MAX_BYTES) return;
  throw validationError(table, operation, 'Item size has exceeded the maximum allowed size');
}

/**
 * An item's size as DynamoDB counts it (Developer Guide, "Item sizes and formats"): each
 * attribute's UTF-8 name plus its value; a string its UTF-8 bytes, a number about one byte per
 * two significant digits plus one, a boolean or null one byte, a list or map three bytes plus
 * one per element plus its elements (and, for a map, their names).
 */
function itemBytes(item: object): number {
  return attributes(item).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name, 'utf8') + valueBytes(value),
    0,
  );
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number')
    return Math.ceil(String(Math.abs(value)).replace(/[.e+-]/g, '').length / 2) + 1;
  if (typeof value !== 'object' || value === null) return 1;
  if (Array.isArray(value)) return value.reduce((sum: number, element) => sum + 1 + valueBytes(element), 3);
  return 3 + attributes(value).length + itemBytes(value);
}

/** The attributes DynamoDB would store: an undefined value is no attribute. */
function attributes(item: object): [string, unknown][] {
  return Object.entries(item).filter(([, value]) => value !== undefined);
}

function validationError(table: AdapterErrorClass, operation: string, message: string): Error {
  const cause = Object.assign(new Error(message), {
    name: 'ValidationException',
    $metadata: { httpStatusCode: 400 },
  });
  return new table(`${operation} failed: ValidationException (HTTP 400)`, { cause });
}
