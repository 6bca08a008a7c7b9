/**
 * `npm run bench`: the table; `npm run -s bench -- --json`: one JSON document (issue 10's
 * shape). `--only calls,scale` runs some sections; `--runs N` sets the cold-init runs (at least
 * 20 for a figure worth quoting). The sections in the local AWS (outage, recovery, poison) take
 * minutes: they say on stderr what they are doing.
 */
import { formatReport } from './report';
import { type BenchOptions, DEFAULT_OPTIONS, runBench, SECTIONS, type Section } from './run-bench';

function parseArgs(argv: readonly string[]): { json: boolean; options: BenchOptions } {
  const flagValue = (flag: string) => {
    const index = argv.indexOf(flag);
    return index === -1 ? undefined : argv[index + 1];
  };
  const only = flagValue('--only')?.split(',') ?? SECTIONS;
  const unknown = only.filter((section) => !(SECTIONS as readonly string[]).includes(section));
  if (unknown.length > 0)
    throw new Error(`unknown section(s) ${unknown.join(', ')}: use ${SECTIONS.join(', ')}`);
  const runs = Number(flagValue('--runs') ?? DEFAULT_OPTIONS.coldInitRuns);
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`--runs must be a positive integer (given ${runs})`);
  return {
    json: argv.includes('--json'),
    options: {
      ...DEFAULT_OPTIONS,
      only: only as Section[],
      coldInitRuns: runs,
      progress: (line) => process.stderr.write(`${line}\n`),
    },
  };
}

async function main(): Promise<void> {
  const { json, options } = parseArgs(process.argv.slice(2));
  const report = await runBench(options);
  process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
