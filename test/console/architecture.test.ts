/**
 * Where the console sits: over the CLI's commands and the runtime's adapters and decisions, never
 * on the wire itself, never on the infrastructure or the local AWS (those are for console/dev,
 * the screenshots and the tests), and reached from the CLI only through `pq console`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.join(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

/** Each import of a file, as the project folder it resolves into (`lib`, `cli`...) or the package. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g)].map(([, specifier = '']) =>
    specifier.startsWith('.')
      ? (path.relative(root, path.resolve(path.dirname(file), specifier)).split(path.sep)[0] ?? '')
      : specifier,
  );
}

describe('the console', () => {
  const product = sourceFiles(path.join(root, 'console')).filter(
    (file) => !file.startsWith(path.join(root, 'console', 'dev')),
  );

  it('given its modules (console/dev aside), then none imports an AWS SDK, lib/, local/, sim/, tools/ or test/', () => {
    const violations = product.flatMap((file) =>
      importsOf(file)
        .filter(
          (target) =>
            /^@aws-sdk\/|^aws-cdk-lib|^playwright/.test(target) ||
            ['lib', 'local', 'sim', 'tools', 'test'].includes(target),
        )
        .map((target) => `${path.relative(root, file)} imports ${target}`),
    );

    expect(product.length).toBeGreaterThan(10);
    expect(violations).toStrictEqual([]);
  });

  it("given the CLI and the runtime, then neither imports it (pq console is the console's, listed by bin/)", () => {
    const importers = [...sourceFiles(path.join(root, 'cli')), ...sourceFiles(path.join(root, 'lambdas'))]
      .filter((file) => importsOf(file).includes('console'))
      .map((file) => path.relative(root, file));

    expect(importers).toStrictEqual([]);
  });
});
