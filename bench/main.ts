/**
 * `npm run bench`: the table; `npm run -s bench -- --json`: one JSON document (issue 10's
 * shape). `--only calls,scale` runs some sections; `--runs N` sets the cold-init runs (at least
 * 20 for a figure worth quoting). The sections in the local AWS (outage, recovery, poison) take
 * minutes: they say on stderr what they are doing. `--help` runs nothing, not even the local
 * AWS's first install.
 */
import { exitQuietlyOnBrokenPipe } from '../cli/broken-pipe';
import { ensureVenvOrExit } from '../tools/local-aws/ensure-venv.mjs';
import { BenchUsageError, readBenchArgs, USAGE } from './args';
import { formatReport } from './report';
import { runBench } from './run-bench';

async function main(): Promise<number> {
  exitQuietlyOnBrokenPipe();
  const args = readBenchArgs(process.argv.slice(2));
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  ensureVenvOrExit();
  const report = await runBench({ ...args.options, progress: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(args.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    if (error instanceof BenchUsageError) console.error('(npm run bench -- --help)');
    process.exitCode = error instanceof BenchUsageError ? 2 : 1;
  },
);
