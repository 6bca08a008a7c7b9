import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.join(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|js|mjs)$/.test(name) ? [full] : [];
  });
}

/** Module specifiers a file imports or requires. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const pattern = /(?:from\s+|import\s*\(\s*|require\s*\(\s*|import\s+)['"]([^'"]+)['"]/g;
  return [...text.matchAll(pattern)].map((match) => match[1]);
}

function violations(dir: string, forbidden: (specifier: string, file: string) => boolean): string[] {
  return sourceFiles(path.join(root, dir)).flatMap((file) =>
    importsOf(file)
      .filter((specifier) => forbidden(specifier, file))
      .map((specifier) => `${path.relative(root, file)} imports ${specifier}`),
  );
}

const resolvesInto = (specifier: string, file: string, folder: string) =>
  specifier.startsWith('.') &&
  path.resolve(path.dirname(file), specifier).startsWith(path.join(root, folder));

describe('the direction of dependencies', () => {
  it('keeps infrastructure out of the runtime: nothing under lambdas/ imports aws-cdk-lib, constructs or lib/', () => {
    expect(
      violations(
        'lambdas',
        (specifier, file) =>
          /^(aws-cdk-lib|constructs)(\/|$)/.test(specifier) || resolvesInto(specifier, file, 'lib'),
      ),
    ).toEqual([]);
  });

  it('keeps the decision core pure: lambdas/core imports no AWS SDK and no adapter', () => {
    expect(
      violations(
        'lambdas/core',
        (specifier, file) =>
          specifier.startsWith('@aws-sdk/') ||
          specifier.startsWith('@aws-lambda-powertools/') ||
          resolvesInto(specifier, file, 'lambdas/adapters') ||
          resolvesInto(specifier, file, 'lambdas/consumer'),
      ),
    ).toEqual([]);
  });

  it('keeps the runtime out of the infrastructure: lib/ points at handlers by path, never imports them', () => {
    expect(violations('lib', (specifier, file) => resolvesInto(specifier, file, 'lambdas'))).toEqual([]);
  });

  it('sees the imports it checks (the scan is not empty)', () => {
    expect(importsOf(path.join(root, 'lib', 'poison-quarantine.ts'))).toContain('aws-cdk-lib');
  });
});
