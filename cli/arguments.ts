/**
 * One argument parser for every command (node:util parseArgs, strict): the options that find the
 * deployment are accepted by every command, each command adds its own.
 */
import { parseArgs } from 'node:util';
import { checkReason } from '../lambdas/core/operator';
import { Refused, UsageError } from './errors';

export type OptionSpec = Readonly<Record<string, { readonly type: 'string' | 'boolean' }>>;

export interface ParsedArgs {
  readonly positionals: readonly string[];
  string(name: string): string | undefined;
  flag(name: string): boolean;
}

/** Where the deployment is and how to print; see the overall help. */
export const GLOBAL_OPTIONS: OptionSpec = {
  function: { type: 'string' },
  endpoint: { type: 'string' },
  region: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean' },
};

export function parseCommandArgs(argv: readonly string[], options: OptionSpec): ParsedArgs {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...GLOBAL_OPTIONS, ...options },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // parseArgs explains itself well ("Unknown option '--x'"); keep its first sentence.
    throw new UsageError((error as Error).message.split('. ')[0] ?? String(error));
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  return {
    positionals: parsed.positionals,
    string: (name) => {
      const value = values[name];
      return typeof value === 'string' ? value : undefined;
    },
    flag: (name) => values[name] === true,
  };
}

/** Exactly `count` positionals, named for the message. */
export function positionals(args: ParsedArgs, names: readonly string[]): string[] {
  if (args.positionals.length !== names.length) {
    const expected = names.length === 0 ? 'no arguments' : names.join(' ');
    throw new UsageError(`expected ${expected}, given ${args.positionals.length} argument(s)`);
  }
  return [...args.positionals];
}

const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since 30m|2h|7d` (back from now) or an ISO-8601 time. */
export function parseSince(text: string, now: Date): Date {
  const relative = /^(\d+)([mhd])$/.exec(text.trim());
  if (relative) return new Date(now.getTime() - Number(relative[1]) * UNIT_MS[relative[2]]);
  const absolute = /^\d{4}-\d{2}-\d{2}/.test(text) ? new Date(text) : new Date(Number.NaN);
  if (Number.isNaN(absolute.getTime())) {
    throw new UsageError(`--since takes 30m, 2h, 7d or an ISO time like 2030-01-01T12:00Z (given ${text})`);
  }
  return absolute;
}

/** One of `choices`, for options like --status. */
export function oneOf<T extends string>(name: string, value: string, choices: readonly T[]): T {
  if (!choices.includes(value as T)) {
    throw new UsageError(`--${name} must be one of ${choices.join(', ')} (given ${value})`);
  }
  return value as T;
}

/** `--reason` of a command that changes something: required and trimmed; refused (exit 2) when missing or blank. */
export function requiredReason(args: ParsedArgs): string {
  const reason = args.string('reason');
  const missing = checkReason(reason);
  if (missing) throw new Refused(missing.reason);
  return (reason ?? '').trim();
}
