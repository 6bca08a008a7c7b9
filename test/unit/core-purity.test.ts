/**
 * lambdas/core decides, the edges execute: time, ids, random numbers and configuration are
 * passed in, so the core has nothing to mock. (architecture.test.ts holds the import direction
 * between folders; this file holds what the core may touch at all.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const coreDir = join(__dirname, '..', '..', 'lambdas', 'core');
const sources = readdirSync(coreDir)
  .filter((file) => file.endsWith('.ts'))
  .map((file) => [file, readFileSync(join(coreDir, file), 'utf8')] as const);

/** Imports allowed in the core: itself, the pure contract, and deterministic node:crypto. */
const ALLOWED_IMPORT = /^(\.\/[\w-]+|\.\.\/\.\.\/contract\/[\w-]+|node:crypto)$/;

describe('lambdas/core purity', () => {
  it('has source files to check', () => {
    expect(sources.length).toBeGreaterThan(10);
  });

  it.each(sources)('%s imports only the core, the contract and node:crypto', (_file, source) => {
    const imports = [...source.matchAll(/from '([^']+)'/g)].map((match) => match[1]);

    expect(imports.filter((path) => !ALLOWED_IMPORT.test(path ?? ''))).toStrictEqual([]);
  });

  it.each(sources)('%s reads no clock, randomness or environment', (_file, source) => {
    const forbidden = [/process\.env/, /Date\.now\(/, /new Date\(\)/, /Math\.random/];

    expect(forbidden.filter((pattern) => pattern.test(source)).map(String)).toStrictEqual([]);
  });

  it.each(sources)('%s stays small (100-300 lines is the habit)', (_file, source) => {
    expect(source.split('\n').length).toBeLessThanOrEqual(300);
  });
});
