// npm run mutation [-- --incremental] [-- --json] [-- other Stryker options, e.g. --mutate FILE]
//
// Without --incremental: a full run. Every mutant of lambdas/core and lambdas/consumer is
// tested. With --incremental: only mutants whose code or covering tests changed since the
// incremental file (reports/mutation/stryker-incremental.json) are tested again, the others keep
// their result (the CI form). With --mutate FILES: those files' mutants, the others kept.
// Each rewrites the incremental file and the slim report (reports/mutation/mutation.json).
// Then prints the score per folder (or, with --json, the summary as JSON) and fails when a
// survivor is not listed in tools/mutation/survivors.json or a folder is below 90%.
// --help (-h) prints the usage, and nothing is run or installed.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FULL_REPORT, printText, readReport, SLIM_REPORT, SURVIVORS, slim, summarise } from './summary.mjs';

const USAGE = `Usage: npm run mutation -- [--incremental] [--json] [Stryker options]

Mutation testing of lambdas/core and lambdas/consumer with Stryker (tools/mutation/README.md),
installed into tools/mutation/node_modules on first use. Rewrites the incremental file
(reports/mutation/stryker-incremental.json) and the slim report (reports/mutation/mutation.json),
then prints the score per folder.

  (no option)      a full run: every mutant tested again
  --incremental    only the mutants whose code or covering tests changed since the incremental
                   file; the others keep their result (the CI form)
  --json           the summary as one JSON document on stdout (Stryker's progress on stderr)
  --help, -h       this text, and nothing run or installed
Any other option goes to \`stryker run\` as it is, e.g.:
  --mutate FILES   (-m) only those files' mutants (FILE or FILE:from-to), the others kept
  --force          with --incremental or --mutate: test the mutants again even if unchanged

Example: npm run mutation -- --mutate lambdas/core/delivery.ts --force

Exit code: 0 every survivor listed in tools/mutation/survivors.json and every folder at 90% or
more, 1 not, 2 Stryker (or its install) failed.
`;

const ROOT = new URL('../..', import.meta.url).pathname;
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const json = args.includes('--json');
const incremental = args.includes('--incremental');
const passed = args.filter((arg) => arg !== '--json' && arg !== '--incremental');
const partial = passed.some((arg) => arg === '--mutate' || arg === '-m' || arg.startsWith('--mutate='));

const STRYKER = join(ROOT, 'tools/mutation/node_modules/@stryker-mutator/core/bin/stryker.js');
installStrykerOnFirstUse();

const started = Date.now();
const stryker = spawnSync(
  process.execPath,
  [
    STRYKER,
    'run',
    'stryker.config.mjs',
    '--logLevel',
    'warn',
    // Every run reads and rewrites the incremental file; a full run tests every mutant again
    // (--force), an incremental run or one of some files (--mutate) only what changed or was named,
    // keeping the other mutants' results.
    '--incremental',
    ...(incremental || partial ? [] : ['--force']),
    ...passed,
  ],
  { cwd: ROOT, stdio: ['ignore', json ? process.stderr : 'inherit', 'inherit'] },
);
const seconds = Math.round((Date.now() - started) / 1000);
if (stryker.status !== 0) {
  console.error(`stryker exited with ${stryker.status ?? stryker.signal}`);
  process.exit(2);
}
const report = readReport(FULL_REPORT);
writeFileSync(join(ROOT, SLIM_REPORT), `${JSON.stringify(slim(report))}\n`);
const listed = JSON.parse(readFileSync(join(ROOT, SURVIVORS), 'utf8')).survivors;
const summary = {
  mode: partial ? 'partial' : incremental ? 'incremental' : 'full',
  seconds,
  ...summarise(report, listed),
};
if (json) console.log(JSON.stringify(summary, null, 2));
else {
  printText(summary);
  console.log(`(${summary.mode} run, ${seconds} s)`);
}
process.exit(summary.ok ? 0 : 1);

/**
 * Stryker lives in a package of its own (tools/mutation/package.json, pinned by its lock), not in
 * the project's dependencies: its prompts need Node.js 22, and `npm ci` must stay quiet on 20.
 */
function installStrykerOnFirstUse() {
  if (existsSync(STRYKER)) return;
  console.error('poison-quarantine: installing Stryker into tools/mutation/node_modules (first run) ...');
  const npm = spawnSync('npm', ['ci', '--prefix', join(ROOT, 'tools/mutation'), '--no-audit', '--no-fund'], {
    stdio: ['ignore', process.stderr, 'inherit'],
  });
  if (npm.status !== 0) {
    console.error('poison-quarantine: npm ci in tools/mutation failed');
    process.exit(2);
  }
}
