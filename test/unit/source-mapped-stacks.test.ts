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
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import { buildSync } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { CONSUMER_ENTRY_FILE, consumerBuildOptions } from '../../lib/consumer-bundling';
import { PROJECT_NODE } from '../../tools/local-aws/ensure-venv.mjs';

const FIXTURES = path.join(__dirname, 'fixtures', 'stacks');
const PRINT = path.join(FIXTURES, 'print-stacks.mjs');
const out = mkdtempSync(path.join(tmpdir(), 'pq-stacks-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The fixture bundled exactly as the construct bundles the consumer (lib/consumer-bundling.ts). */
function bundle(name: string, sourceMapMode: nodejs.SourceMapMode): string {
  const outdir = path.join(out, name);
  // The fixture imports no processing module: the alias the build sets has nothing to point at.
  const build = {
    entry: path.join(FIXTURES, 'entry.ts'),
    processorEntry: PRINT,
    runtime: Runtime.NODEJS_LATEST,
  };
  buildSync(
    consumerBuildOptions({ ...build, bundling: { sourceMapMode, logLevel: nodejs.LogLevel.ERROR } }, outdir),
  );
  return path.join(outdir, CONSUMER_ENTRY_FILE);
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
  it.each([nodejs.SourceMapMode.DEFAULT, nodejs.SourceMapMode.INLINE])(
    'given a bundle with %s source maps, then every stack reads as --enable-source-maps writes it',
    (sourceMapMode) => {
      // Prepare
      const entry = bundle(`${path.basename(node)}-${sourceMapMode}`, sourceMapMode);
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
    const entry = bundle(`${path.basename(node)}-plain`, nodejs.SourceMapMode.DEFAULT);
    // Act
    const plain = stacks(node, entry, 'neither');
    // Assess
    expect(plain.nested).toContain(CONSUMER_ENTRY_FILE);
    expect(plain.nested).not.toContain(`${FIXTURES}/orders.ts`);
  });
});
