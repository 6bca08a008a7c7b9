// Reads Stryker's JSON report and prints the mutation score per folder; checks that every
// surviving mutant is listed in tools/mutation/survivors.json with a reason.
//
// Counting (issue 19): a mutant that only timed out counts as killed; a mutant no test covers
// counts as survived and must be listed like any survivor. Compile and runtime errors (the
// mutant is not valid code) and ignored mutants are left out of the score, and counted.
//
//   node tools/mutation/summary.mjs [--json] [--report FILE] [--unlisted]
//     --json      the summary as JSON
//     --unlisted  print the unlisted survivors as survivors.json entries (reason to write)
// Exits 1 when a survivor is not listed.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;
export const FOLDERS = ['lambdas/core', 'lambdas/consumer'];
export const FULL_REPORT = 'reports/mutation/stryker-full.json';
export const SLIM_REPORT = 'reports/mutation/mutation.json';
export const SURVIVORS = 'tools/mutation/survivors.json';
const TARGET = 90;

const SURVIVED = new Set(['Survived', 'NoCoverage']);

export function readReport(file) {
  return JSON.parse(readFileSync(join(ROOT, file), 'utf8'));
}

/** Stryker's report without the sources and test files: the committed record of a run. */
export function slim(report) {
  const files = {};
  for (const [path, file] of Object.entries(report.files)) {
    files[path] = {
      language: file.language,
      mutants: file.mutants.map((mutant) => ({
        id: mutant.id,
        mutatorName: mutant.mutatorName,
        replacement: mutant.replacement,
        original: originalOf(file.source, mutant.location) ?? mutant.original,
        location: mutant.location,
        status: mutant.status,
        ...(mutant.static ? { static: true } : {}),
        ...(mutant.killedBy?.length ? { killedBy: mutant.killedBy.slice(0, 1) } : {}),
        ...(mutant.coveredBy ? { covered: mutant.coveredBy.length } : {}),
      })),
    };
  }
  const tests = {};
  for (const [path, file] of Object.entries(report.testFiles ?? {}))
    for (const test of file.tests) tests[test.id] = `${path}#${test.name}`;
  return {
    schemaVersion: report.schemaVersion,
    thresholds: report.thresholds,
    projectRoot: '.',
    framework: report.framework
      ? { name: report.framework.name, version: report.framework.version }
      : undefined,
    tests,
    files,
  };
}

function originalOf(source, location) {
  if (typeof source !== 'string') return undefined;
  const lines = source.split('\n');
  const { start, end } = location;
  if (start.line === end.line) return lines[start.line - 1]?.slice(start.column - 1, end.column - 1);
  const parts = [lines[start.line - 1]?.slice(start.column - 1)];
  for (let line = start.line + 1; line < end.line; line++) parts.push(lines[line - 1]);
  parts.push(lines[end.line - 1]?.slice(0, end.column - 1));
  return parts.join('\n');
}

function folderOf(path) {
  return FOLDERS.find((folder) => path.startsWith(`${folder}/`)) ?? path.split('/').slice(0, -1).join('/');
}

/** Each survivor (Survived or NoCoverage) as a row of the survivors file, without its reason. */
export function survivorsOf(report) {
  const rows = [];
  for (const [path, file] of Object.entries(report.files))
    for (const mutant of file.mutants)
      if (SURVIVED.has(mutant.status))
        rows.push({
          file: path,
          line: mutant.location.start.line,
          column: mutant.location.start.column,
          mutator: mutant.mutatorName,
          replacement: mutant.replacement,
          original: mutant.original ?? originalOf(file.source, mutant.location),
          status: mutant.status,
        });
  return rows;
}

/**
 * Matches survivors to listed entries: first at the same place (file, line, column, mutator,
 * replacement); then, for code that moved, the same file, mutator, original text and
 * replacement. Each listed entry matches one survivor at most.
 */
export function matchSurvivors(survivors, listed) {
  const used = new Set();
  const unlisted = [];
  const moved = [];
  const place = (row) => `${row.file}|${row.line}|${row.column}|${row.mutator}|${row.replacement}`;
  const text = (row) => `${row.file}|${row.mutator}|${row.original}|${row.replacement}`;
  const pending = [];
  for (const survivor of survivors) {
    const index = listed.findIndex((entry, at) => !used.has(at) && place(entry) === place(survivor));
    if (index >= 0) used.add(index);
    else pending.push(survivor);
  }
  for (const survivor of pending) {
    const index = listed.findIndex((entry, at) => !used.has(at) && text(entry) === text(survivor));
    if (index >= 0) {
      used.add(index);
      moved.push({
        from: `${listed[index].file}:${listed[index].line}`,
        to: `${survivor.file}:${survivor.line}`,
      });
    } else unlisted.push(survivor);
  }
  const stale = listed.filter((_, at) => !used.has(at));
  return { unlisted, moved, stale };
}

export function summarise(report, listed) {
  const perFolder = {};
  for (const [path, file] of Object.entries(report.files)) {
    const folder = folderOf(path);
    perFolder[folder] ??= {
      killed: 0,
      timeout: 0,
      survived: 0,
      noCoverage: 0,
      compileErrors: 0,
      runtimeErrors: 0,
      ignored: 0,
    };
    const row = perFolder[folder];
    for (const mutant of file.mutants) {
      if (mutant.status === 'Killed') row.killed++;
      else if (mutant.status === 'Timeout') row.timeout++;
      else if (mutant.status === 'Survived') row.survived++;
      else if (mutant.status === 'NoCoverage') row.noCoverage++;
      else if (mutant.status === 'CompileError') row.compileErrors++;
      else if (mutant.status === 'RuntimeError') row.runtimeErrors++;
      else row.ignored++;
    }
  }
  const survivors = survivorsOf(report);
  const { unlisted, moved, stale } = matchSurvivors(survivors, listed);
  const folders = {};
  for (const [folder, row] of Object.entries(perFolder).sort()) {
    const detected = row.killed + row.timeout;
    const valid = detected + row.survived + row.noCoverage;
    const own = (entry) => folderOf(entry.file) === folder;
    folders[folder] = {
      score: valid === 0 ? null : Math.round((10_000 * detected) / valid) / 100,
      mutants: valid,
      ...row,
      listed: survivors.filter(own).length - unlisted.filter(own).length,
      unlisted: unlisted.filter(own).length,
    };
  }
  return {
    target: TARGET,
    counting:
      'score = (Killed + Timeout) / (Killed + Timeout + Survived + NoCoverage); CompileError, RuntimeError and Ignored left out',
    folders,
    survivors: survivors.length,
    unlisted: unlisted.map(
      (row) => `${row.file}:${row.line}:${row.column} ${row.mutator} -> ${row.replacement}`,
    ),
    moved,
    staleEntries: stale.map(
      (row) => `${row.file}:${row.line}:${row.column} ${row.mutator} -> ${row.replacement}`,
    ),
    ok:
      unlisted.length === 0 &&
      Object.values(folders).every((row) => row.score === null || row.score >= TARGET),
  };
}

export function printText(summary, out = console.log) {
  out('mutation score per folder (timeouts count as killed, no coverage as survived):');
  for (const [folder, row] of Object.entries(summary.folders))
    out(
      `  ${folder.padEnd(18)} ${String(row.score).padStart(6)}%  killed ${row.killed + row.timeout} (timeout ${row.timeout}), survived ${row.survived + row.noCoverage} (no coverage ${row.noCoverage}; listed ${row.listed}, unlisted ${row.unlisted}), compile errors ${row.compileErrors}`,
    );
  for (const move of summary.moved) out(`  moved: ${move.from} -> ${move.to} (update ${SURVIVORS})`);
  for (const entry of summary.staleEntries)
    out(`  no longer survives: ${entry} (remove it from ${SURVIVORS})`);
  for (const entry of summary.unlisted)
    out(`  UNLISTED SURVIVOR: ${entry} (kill it with a test, or list it in ${SURVIVORS} with a reason)`);
  out(
    summary.ok
      ? 'mutation: ok'
      : `mutation: FAILED (target ${summary.target}% per folder, every survivor listed)`,
  );
}

function main(argv) {
  const json = argv.includes('--json');
  const at = argv.indexOf('--report');
  const reportFile = at >= 0 ? argv[at + 1] : FULL_REPORT;
  const report = readReport(reportFile);
  const listed = JSON.parse(readFileSync(join(ROOT, SURVIVORS), 'utf8')).survivors;
  if (argv.includes('--unlisted')) {
    const { unlisted } = matchSurvivors(survivorsOf(report), listed);
    console.log(
      JSON.stringify(
        unlisted.map(({ status, ...row }) => ({ ...row, reason: '' })),
        null,
        2,
      ),
    );
    return 0;
  }
  if (argv.includes('--write-slim'))
    writeFileSync(join(ROOT, SLIM_REPORT), `${JSON.stringify(slim(report))}\n`);
  const summary = summarise(report, listed);
  if (json) console.log(JSON.stringify(summary, null, 2));
  else printText(summary);
  return summary.ok ? 0 : 1;
}

if (process.argv[1] === new URL(import.meta.url).pathname) process.exitCode = main(process.argv.slice(2));
