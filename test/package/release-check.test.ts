/**
 * `npm run release:check` (issue 21, item 9): both packages built and packed as a publish would,
 * what they ship checked, nothing published; and the checks themselves can fail.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGES, packageProblems, releaseProblems } from '../../tools/release/release-check.mjs';

const root = path.join(__dirname, '..', '..');
const [library, cli] = PACKAGES;
const packed = (name: string, version: string, paths: readonly string[]) => ({
  name,
  version,
  files: paths.map((file) => ({ path: file })),
});

describe('release:check', () => {
  it('packs both packages and finds nothing wrong', () => {
    const output = execFileSync('npm', ['run', '-s', 'release:check'], { cwd: root, encoding: 'utf8' });

    expect(output).toMatch(/^poison-quarantine@0\.1\.0: \d+ files, \d+ KiB packed$/m);
    expect(output).toMatch(/^poison-quarantine-cli@0\.1\.0: \d+ files, \d+ KiB packed$/m);
    expect(output).toMatch(/^release:check: ok \(nothing was published\)$/m);
  }, 180_000);

  it('names what a package misses and what it should not ship', () => {
    const files = [
      'LICENSE',
      'README.md',
      'package.json',
      'dist/chunks/a.js',
      'test/unit/x.test.ts',
      'cli/run.ts',
    ];

    expect(packageProblems(packed('poison-quarantine-cli', '0.1.0', files), cli)).toStrictEqual([
      'poison-quarantine-cli: dist/pq.js is missing',
      'poison-quarantine-cli: ships test/unit/x.test.ts',
      'poison-quarantine-cli: ships cli/run.ts',
    ]);
    expect(packageProblems(packed('poison-quarantine', '0.1.0', library.required), library)).toStrictEqual(
      [],
    );
  });

  it('wants one version for both packages, and a changelog section for it', () => {
    const a = packed('poison-quarantine', '0.2.0', []);
    const b = packed('poison-quarantine-cli', '0.1.0', []);

    expect(releaseProblems([a, b], '## 0.2.0\n')).toStrictEqual([
      "the packages' versions differ (poison-quarantine 0.2.0, poison-quarantine-cli 0.1.0)",
    ]);
    expect(releaseProblems([a, { ...b, version: '0.2.0' }], '## 0.1.0 (unreleased)\n')).toStrictEqual([
      'CHANGELOG.md has no "## 0.2.0" section',
    ]);
    expect(
      releaseProblems([a, { ...b, version: '0.2.0' }], '# Changelog\n\n## 0.2.0 (unreleased)\n'),
    ).toStrictEqual([]);
  });
});
