/**
 * Safe reads of arbitrary thrown values. Anything can be thrown in JavaScript (a string, null, a
 * Proxy, an object whose getter throws), and looking at it must never raise a second error.
 */

/** `value[name]`, or undefined when `value` is not an object or the read throws. */
export function field(value: unknown, name: string): unknown {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
    return undefined;
  }
  try {
    return (value as Record<string, unknown>)[name];
  } catch {
    return undefined;
  }
}

/** `value[name]` when it is a string, otherwise ''. */
export function stringField(value: unknown, name: string): string {
  const read = field(value, name);
  return typeof read === 'string' ? read : '';
}

/** How many `cause` links the classifier follows; also guards against cycles. */
export const MAX_CAUSE_DEPTH = 5;

/** The error and its `cause` chain, outermost first (fetch wraps undici's network error so). */
export function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [error];
  let current = field(error, 'cause');
  while (current !== undefined && chain.length <= MAX_CAUSE_DEPTH && !chain.includes(current)) {
    chain.push(current);
    current = field(current, 'cause');
  }
  return chain;
}

/**
 * The HTTP status an error carries: AWS SDK v3 (`$metadata.httpStatusCode`), most HTTP clients
 * (`status`, `statusCode`) and axios/got (`response.status`, `response.statusCode`).
 */
export function httpStatus(error: unknown): number | undefined {
  const response = field(error, 'response');
  const candidates = [
    field(field(error, '$metadata'), 'httpStatusCode'),
    field(error, 'statusCode'),
    field(error, 'status'),
    field(response, 'status'),
    field(response, 'statusCode'),
  ];
  return candidates.find(
    (value): value is number =>
      Number.isInteger(value) && (value as number) >= 100 && (value as number) <= 599,
  );
}
