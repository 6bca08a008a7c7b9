/**
 * The API reference (issue 21, item 3): docs/api is typedoc's Markdown of the package's two entry
 * points, `poison-quarantine` and `poison-quarantine/runtime` (typedoc.json), committed so that it
 * reads on GitHub. It must say what the TSDoc says now, so it is regenerated here, into a
 * temporary directory, and must equal the committed one file for file. The generation fails on
 * any warning (treatWarningsAsErrors): an exported symbol without a comment, or a {@link} to
 * nothing, fails it as well.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const root = path.join(__dirname, '..', '..');
const committed = path.join(root, 'docs', 'api');
const typedoc = path.join(root, 'node_modules', 'typedoc', 'bin', 'typedoc');

const temporary: string[] = [];

function temporaryDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pq-api-docs-'));
  temporary.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs typedoc as `npm run docs:api` does (its CLI, with the project's typedoc.json unless told
 * another options file), writing into `out` instead of docs/api.
 */
function generate(
  out: string,
  options = path.join(root, 'typedoc.json'),
): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [typedoc, '--options', options, '--out', out], {
    cwd: root,
    encoding: 'utf8',
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** Every file under `dir`, relative to it with '/' separators, sorted. */
function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

/** How the files of `generated` differ from those of `expected`: each one missing, extra or changed. */
function differences(generated: string, expected: string): string[] {
  const want = filesOf(expected);
  const got = filesOf(generated);
  return [
    ...want.filter((file) => !got.includes(file)).map((file) => `${file}: no longer generated`),
    ...got.filter((file) => !want.includes(file)).map((file) => `${file}: generated, not in docs/api`),
    ...got
      .filter((file) => want.includes(file))
      .filter(
        (file) =>
          readFileSync(path.join(generated, file), 'utf8') !==
          readFileSync(path.join(expected, file), 'utf8'),
      )
      .map((file) => `${file}: changed`),
  ];
}

describe('given the TSDoc of the package entry points', () => {
  it('when typedoc regenerates the API reference, then it equals the committed docs/api, file for file', () => {
    const out = temporaryDir();

    const run = generate(out);

    // A failure here is a warning made an error: fix the comment it names, then regenerate.
    expect(run.status, run.output).toBe(0);
    expect(filesOf(out).length).toBeGreaterThan(10);
    expect(
      differences(out, committed),
      'docs/api is not what the TSDoc says: run `npm run docs:api`',
    ).toStrictEqual([]);
  }, 120_000);
});

describe('given a changed copy of docs/api', () => {
  it('when it is compared with the committed one, then each missing, extra and changed file is named (the check can fail)', () => {
    const copy = temporaryDir();
    cpSync(committed, copy, { recursive: true });
    rmSync(path.join(copy, 'poison-quarantine', 'runtime', 'README.md'));
    writeFileSync(path.join(copy, 'extra.md'), '# Extra\n');
    writeFileSync(
      path.join(copy, 'README.md'),
      `${readFileSync(path.join(copy, 'README.md'), 'utf8')}\nmore\n`,
    );

    expect(differences(copy, committed)).toStrictEqual([
      'poison-quarantine/runtime/README.md: no longer generated',
      'extra.md: generated, not in docs/api',
      'README.md: changed',
    ]);
  });
});

describe('given an entry point with an undocumented export and a broken link', () => {
  it('when typedoc generates its reference with the project options, then it fails naming both (the check can fail)', () => {
    // The project's options but another entry point, written outside the project: a program of
    // one small file keeps this run short. (An options file, not arguments: typedoc.json's
    // tsconfig would win over a --tsconfig argument.)
    const dir = temporaryDir();
    writeFileSync(
      path.join(dir, 'index.ts'),
      'export function undocumented(): void {}\n\n/** Points at {@link Nowhere}. */\nexport const linked = 1;\n',
    );
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, types: [] }, files: ['index.ts'] }),
    );
    const options = JSON.parse(readFileSync(path.join(root, 'typedoc.json'), 'utf8'));
    writeFileSync(
      path.join(dir, 'typedoc.json'),
      JSON.stringify({ ...options, entryPoints: ['index.ts'], tsconfig: 'tsconfig.json' }),
    );

    const run = generate(path.join(dir, 'out'), path.join(dir, 'typedoc.json'));

    expect(run.status).not.toBe(0);
    expect(run.output).toMatch(/undocumented \(\w+\), defined in .* does not have any documentation/);
    expect(run.output).toContain('Failed to resolve link to "Nowhere"');
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
  }, 120_000);
});
