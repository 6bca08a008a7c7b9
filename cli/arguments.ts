/**
 * One argument parser for every command (node:util parseArgs, strict): the global options (the
 * deployment, the output, help and version) are accepted by every command, each command adds its
 * own; bad values are refused with a message that quotes them.
 */
import { parseArgs } from 'node:util';
import { checkReason } from '../lambdas/core/operator';
import { Refused, UsageError } from './errors';

export type OptionSpec = Readonly<
  Record<string, { readonly type: 'string' | 'boolean'; readonly short?: string }>
>;

export interface ParsedArgs {
  readonly positionals: readonly string[];
  string(name: string): string | undefined;
  flag(name: string): boolean;
}

/**
 * Where the deployment is and how to print (see the overall help), accepted before or after the
 * command name as the AWS CLI accepts its own. `--endpoint` is the older name of `--endpoint-url`.
 */
export const GLOBAL_OPTIONS: OptionSpec = {
  function: { type: 'string' },
  region: { type: 'string' },
  profile: { type: 'string' },
  'endpoint-url': { type: 'string' },
  endpoint: { type: 'string' },
  'kafka-bootstrap': { type: 'string' },
  output: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
};

export interface CommandLine {
  /** The first argument that is not a global option or its value. */
  readonly name: string | undefined;
  /** Everything else, in order: the global options given before the name are parsed with the command's. */
  readonly args: readonly string[];
}

/**
 * Finds the command name behind any global options (`pq --region eu-west-1 status`). Only global
 * options may come before it: the command's own are unknown until the name is.
 */
export function splitCommandLine(argv: readonly string[]): CommandLine {
  const { tokens } = parseArgs({
    args: [...argv],
    options: GLOBAL_OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const nameAt = tokens.findIndex((token) => token.kind !== 'option');
  for (const token of nameAt === -1 ? tokens : tokens.slice(0, nameAt)) {
    if (token.kind === 'option' && GLOBAL_OPTIONS[token.name] === undefined) {
      throw new UsageError(`${token.rawName} is not a global option: give it after the command name`);
    }
  }
  const name = tokens[nameAt];
  if (name?.kind !== 'positional') return { name: undefined, args: [...argv] };
  return { name: name.value, args: argv.filter((_, index) => index !== name.index) };
}

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

/**
 * `--endpoint-url`, or its older name `--endpoint`; both only if they agree. A given URL must be
 * one (http or https): a typo would otherwise surface as a DNS error from the first AWS call.
 */
export function endpointUrl(args: ParsedArgs): string | undefined {
  const [url, alias] = [args.string('endpoint-url'), args.string('endpoint')];
  if (url !== undefined && alias !== undefined && url !== alias) {
    throw new UsageError(`--endpoint is --endpoint-url: give one of them (given ${url} and ${alias})`);
  }
  const given = url ?? alias;
  if (given !== undefined && !/^https?:\/\/[^/\s]+/.test(given)) {
    throw new UsageError(`--endpoint-url takes a URL like http://localhost:4566 (given ${given})`);
  }
  return given;
}

/** How a result is printed (the overall help): `table` for people, `text` for awk, `json` for scripts. */
export const OUTPUT_FORMATS = ['table', 'text', 'json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** `--output FORMAT`, or `--json` (its older spelling of `--output json`); both only if they agree. */
export function outputFormat(args: ParsedArgs): OutputFormat {
  const given = args.string('output');
  if (given !== undefined && !(OUTPUT_FORMATS as readonly string[]).includes(given)) {
    throw new UsageError(`--output takes ${OUTPUT_FORMATS.join(', ')} (given ${given})`);
  }
  if (args.flag('json') && given !== undefined && given !== 'json') {
    throw new UsageError(`--json is --output json: give one of them (given --output ${given} too)`);
  }
  return args.flag('json') ? 'json' : ((given as OutputFormat | undefined) ?? 'table');
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

/** `--limit 20`: a whole number of 1 or more. */
export function positiveInteger(name: string, text: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1) {
    throw new UsageError(`--${name} takes a whole number of 1 or more (given ${text})`);
  }
  return Number(text);
}

/** `--rate 0.5`: a number above 0. */
export function positiveNumber(name: string, text: string, unit: string): number {
  const value = /^\s*\d*\.?\d+\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!(value > 0)) throw new UsageError(`--${name} takes ${unit}, a number above 0 (given ${text})`);
  return value;
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
