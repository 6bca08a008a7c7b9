/**
 * handlers/source-mapped-stacks.ts: without `--enable-source-maps` (its cost falls on every cold
 * start), the consumer's stack traces are still mapped through the bundle's source maps, and
 * written byte for byte as Node writes them with the flag: the evidence's stack heads and the
 * signatures that group quarantine records must not change (issue 24, item 3).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_NODE } from '../../tools/local-aws/ensure-venv.mjs';

const FIXTURES = path.join(__dirname, 'fixtures', 'stacks');
const PRINT = path.join(FIXTURES, 'print-stacks.mjs');
const out = mkdtempSync(path.join(tmpdir(), 'pq-stacks-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The fixture bundled as the consumer is: split ES modules, minified with names kept, a map per file. */
function bundle(name: string, sourcemap: 'linked' | 'inline'): string {
  const outdir = path.join(out, name);
  buildSync({
    entryPoints: { entry: path.join(FIXTURES, 'entry.ts') },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    splitting: true,
    outExtension: { '.js': '.mjs' },
    minify: true,
    keepNames: true,
    sourcemap,
    sourcesContent: false,
    logLevel: 'error',
  });
  return path.join(outdir, 'entry.mjs');
}

/** Every case's stack, printed by a fresh Node process. */
function stacks(
  node: string,
  entry: string,
  how: '--enable-source-maps' | 'hook' | 'neither',
): Record<string, string> {
  const args = how === '--enable-source-maps' ? ['--enable-source-maps', PRINT, entry] : [PRINT, entry];
  const output = execFileSync(node, how === 'hook' ? [...args, '--hook'] : args, {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
  return JSON.parse(output);
}

describe.each([
  ['the Lambda runtime’s Node.js', PROJECT_NODE],
  ['the Node.js running the tests', process.execPath],
])('stack traces on %s', (_label, node) => {
  it.each(['linked', 'inline'] as const)(
    'given a bundle with %s source maps, then every stack reads as --enable-source-maps writes it',
    (sourcemap) => {
      // Prepare
      const entry = bundle(`${path.basename(node)}-${sourcemap}`, sourcemap);
      // Act
      const flagged = stacks(node, entry, '--enable-source-maps');
      const hooked = stacks(node, entry, 'hook');
      // Assess: the cases differ in shape, and each is mapped to the fixture's sources.
      expect(Object.keys(hooked)).toEqual([
        'nested',
        'alias',
        'constructor',
        'method',
        'async',
        'nodeError',
        'lazyChunk',
      ]);
      expect(Object.values(flagged).every((stack) => stack.includes(`${FIXTURES}/`))).toBe(true);
      expect(hooked).toEqual(flagged);
    },
  );

  it('given neither, then the frames name the bundle: the comparison above is not of two unmapped stacks', () => {
    // Prepare
    const entry = bundle(`${path.basename(node)}-plain`, 'linked');
    // Act
    const plain = stacks(node, entry, 'neither');
    // Assess
    expect(plain.nested).toContain('entry.mjs');
    expect(plain.nested).not.toContain(`${FIXTURES}/orders.ts`);
  });
});
