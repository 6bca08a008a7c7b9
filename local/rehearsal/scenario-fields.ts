/**
 * The zod building blocks of the scenario schema. Each says what is wrong in one sentence that
 * follows the field's path and names the value given, e.g. `must be a whole number from 1 to
 * 100 (given 1.5)`, so a problem reads `limit must be a whole number from 1 to 100 (given 1.5)`.
 * zod's own messages ("Invalid input") never reach a person: every block sets its own.
 */
import { z } from 'zod';

/** How a given value is quoted in a message: JSON, cut short when long (a body, say). */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

const given = (issue: { readonly input?: unknown }) => `(given ${show(issue.input)})`;

/** A whole number from `min` to `max`: one sentence for every way to miss it. */
export function wholeNumber(min: number, max: number) {
  const error = (issue: { readonly input?: unknown }) =>
    `must be a whole number from ${min} to ${max} ${given(issue)}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

/** A string of 1 to `max` characters that is not only spaces. */
export function text(max: number) {
  const error = (issue: { readonly input?: unknown }) =>
    `must be a non-empty string of at most ${max} characters ${given(issue)}`;
  return z.string({ error }).max(max, { error }).regex(/\S/, { error });
}

export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, {
    error: (issue) => `must be one of ${values.join(', ')} ${given(issue)}`,
  });
}

/**
 * An object with exactly these fields: an unknown one is named with the fields known (a typo
 * must be loud), and a value that is no object is shown with the fields expected.
 */
export function strictObject<T extends z.core.$ZodLooseShape>(shape: T) {
  const fields = Object.entries(shape).map(([name, schema]) =>
    (schema as z.ZodType).safeParse(undefined).success ? `${name}?` : name,
  );
  const expected = fields.length <= 6 ? ` {${fields.join(', ')}}` : '';
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `is not a known field (known: ${Object.keys(shape).join(', ')})`
        : `must be an object${expected} ${given(issue)}`,
  });
}

/** A non-empty array; `what` describes one item, e.g. `{at, error, times?, message?}`. */
export function nonEmptyArray<T extends z.ZodType>(item: T, what: string) {
  const error = (issue: { readonly input?: unknown }) =>
    `must be a non-empty array of ${what} ${given(issue)}`;
  return z.array(item, { error }).min(1, { error });
}

const COUNT_MAX = 100_000;

/**
 * An exact figure, or a floor where the run's timing decides the exact number (during an outage,
 * how many attempts fail before consumption pauses depends on how fast the pause lands).
 */
export const count = z
  .union([wholeNumber(0, COUNT_MAX), strictObject({ atLeast: wholeNumber(0, COUNT_MAX) })], {
    error: (issue) =>
      typeof issue.input === 'number'
        ? `must be a whole number from 0 to ${COUNT_MAX} ${given(issue)}`
        : `must be a whole number from 0 to ${COUNT_MAX} or {"atLeast": n} ${given(issue)}`,
  })
  .meta({
    id: 'count',
    description: 'An exact figure, or {"atLeast": n} where the run\'s timing decides it.',
  });

export type Count = z.output<typeof count>;

/** Counts by message label: whether each label names a message is checked with the whole scenario. */
export const countsByLabel = z.record(z.string(), count, {
  error: (issue) => `must be an object of counts, e.g. {} ${given(issue)}`,
});

/** Counts by one of `keys`; `what` names a key in the message for an unknown one ("a quarantine status"). */
export function countsBy<const T extends readonly [string, ...string[]]>(keys: T, what: string) {
  return z.partialRecord(z.enum(keys), count, {
    error: (issue) =>
      // zod reports an unknown key of an enum-keyed record this way, though its types do not say so.
      (issue.code as string) === 'unrecognized_keys'
        ? `is not ${what} (known: ${keys.join(', ')})`
        : `must be an object of counts, e.g. {} ${given(issue)}`,
  });
}
