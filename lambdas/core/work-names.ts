/**
 * The names a processor gives its stages and outside calls (and a call's idempotency key) are
 * stored on the message's ledger item, which DynamoDB caps at 400 KB with everything else on it.
 * 1 KiB each leaves the item far below the cap; a longer one is the processor's bug.
 */
export const WORK_NAME_MAX_BYTES = 1024;

/** Throws the processor's error for a name over the limit (`what`: "ctx.stage name", ...). */
export function checkWorkName(what: string, name: string): void {
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes > WORK_NAME_MAX_BYTES) {
    throw new TypeError(
      `${what} is ${bytes} bytes; at most ${WORK_NAME_MAX_BYTES} bytes are kept on the ledger item`,
    );
  }
}
