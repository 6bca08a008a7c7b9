/**
 * `npm run bench`'s arguments, strict: an unknown flag or a bad value is a usage error, and
 * `--help` prints the usage and runs nothing (it used to run the whole bench).
 */
import { parseArgs } from 'node:util';
import { type BenchOptions, DEFAULT_OPTIONS, SECTIONS, type Section } from './run-bench';

export const USAGE = `Usage: npm run bench [-- options]

Measures the consumer beside the Powertools reference, side by side in one run, and prints a
table (ratios, not timings: see bench/README.md).

Options:
  --only SECTIONS  comma-separated, some of: ${SECTIONS.join(', ')} (default: all)
  --runs N         cold-init runs per handler, at least 20 for a figure worth quoting (default: ${DEFAULT_OPTIONS.coldInitRuns})
  --json           print exactly one JSON document on stdout
  --help           this text, and nothing run

Exit code: 0 done, 1 a section failed, 2 bad usage.
`;

export class BenchUsageError extends Error {}

export type BenchArgs =
  | { readonly help: true }
  | { readonly help: false; readonly json: boolean; readonly options: Omit<BenchOptions, 'progress'> };

export function readBenchArgs(argv: readonly string[]): BenchArgs {
  let values: { only?: string; runs?: string; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        only: { type: 'string' },
        runs: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new BenchUsageError((error as Error).message);
  }
  if (values.help === true) return { help: true };
  const only = values.only?.split(',') ?? [...SECTIONS];
  const unknown = only.filter((section) => !(SECTIONS as readonly string[]).includes(section));
  if (unknown.length > 0)
    throw new BenchUsageError(`unknown section(s) ${unknown.join(', ')}: use ${SECTIONS.join(', ')}`);
  const runs = Number(values.runs ?? DEFAULT_OPTIONS.coldInitRuns);
  if (!Number.isInteger(runs) || runs < 1)
    throw new BenchUsageError(`--runs must be a positive integer (given ${values.runs})`);
  return {
    help: false,
    json: values.json === true,
    options: { ...DEFAULT_OPTIONS, only: only as Section[], coldInitRuns: runs },
  };
}
