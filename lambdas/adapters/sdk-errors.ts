/** What the adapters read from an AWS SDK error, without its text (which may quote input). */

/** `Name (HTTP 400)`: what an SDK error was, for our messages; never its text, which may quote input. */
export function describeSdkError(error: unknown): string {
  const name = error instanceof Error ? error.name : typeof error;
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  return status === undefined ? name : `${name} (HTTP ${status})`;
}

/** Whether `error` is the SDK error named `name` (works across SDK package copies, unlike instanceof). */
export function isSdkError(error: unknown, ...names: readonly string[]): boolean {
  return error instanceof Error && names.includes(error.name);
}
