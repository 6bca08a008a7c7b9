/**
 * The field checks every part of the scenario parser shares. Each returns its problems as
 * sentences naming the field and the value given, so the parser can report them all at once.
 */

export function unknownFields(
  value: Record<string, unknown>,
  known: readonly string[],
  at: (field: string) => string,
): string[] {
  return Object.keys(value)
    .filter((field) => !known.includes(field))
    .map((field) => `${at(field)} is not a known field (known: ${known.join(', ')})`);
}

export function integer(value: unknown, at: string, min: number, max: number): string[] {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
    ? []
    : [`${at} must be a whole number from ${min} to ${max} (given ${show(value)})`];
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function show(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}
