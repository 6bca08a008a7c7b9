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

/** The project file a relative specifier names (`./x` -> `./x.ts` or `./x/index.ts`); undefined for packages. */
function resolveSource(specifier: string, file: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(file), specifier);
  const candidates = [
    base,
    ...['.ts', '.mts', '.js', '.mjs'].flatMap((ext) => [base + ext, path.join(base, `index${ext}`)]),
  ];
  return candidates.find((candidate) => {
    try {
      return statSync(candidate).isFile();
    } catch {
      return false;
    }
  });
}

/**
 * Every cycle of imports among the files under `dirs`, each as `a -> b -> a` (relative paths).
 * Type-only imports count too: a cycle of types is still two modules that cannot be read apart.
 */
function importCycles(dirs: readonly string[]): string[] {
  const files = dirs.flatMap((dir) => sourceFiles(path.join(root, dir)));
  const edges = new Map(
    files.map((file) => [
      file,
      importsOf(file).flatMap((specifier) => {
        const target = resolveSource(specifier, file);
        return target === undefined ? [] : [target];
      }),
    ]),
  );
  const cycles: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'visiting');
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 'visiting') {
        const cycle = [...stack.slice(stack.indexOf(next)), next];
        cycles.push(cycle.map((member) => path.relative(root, member)).join(' -> '));
      } else if (state.get(next) === undefined) {
        visit(next);
      }
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (state.get(file) === undefined) visit(file);
  return cycles;
}

/** The folders of the product, its tools and its tests: each one room. */
const SOURCE_FOLDERS = [
  'bin',
  'contract',
  'lib',
  'lambdas/core',
  'lambdas/ports',
  'lambdas/adapters',
  'lambdas/consumer',
  'lambdas/sources',
  'lambdas/handlers',
  'cli',
  'console',
  'console/dev',
  'local',
  'sim',
  'tools/local-aws',
  'bench',
] as const;

/** The source folder a file is in (the longest that holds it), if any. */
function folderOf(file: string): string | undefined {
  const relative = path.relative(root, file);
  return [...SOURCE_FOLDERS]
    .sort((a, b) => b.length - a.length)
    .find((folder) => relative === folder || relative.startsWith(`${folder}${path.sep}`));
}

/** Which folders each folder imports from (itself left out). */
function folderImports(folders: readonly string[]): Map<string, Set<string>> {
  const imports = new Map<string, Set<string>>(folders.map((folder) => [folder, new Set()]));
  for (const folder of folders) {
    const dir = path.join(root, folder);
    for (const file of sourceFiles(dir)) {
      if (folderOf(file) !== folder) continue;
      for (const specifier of importsOf(file)) {
        const target = resolveSource(specifier, file);
        const into = target === undefined ? undefined : folderOf(target);
        if (into !== undefined && into !== folder) imports.get(folder)?.add(into);
      }
    }
  }
  return imports;
}

/** Every pair of folders that import each other, as `a <-> b`. */
function pairsBothWays(imports: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const pairs: string[] = [];
  for (const [folder, targets] of imports)
    for (const target of targets)
      if (folder < target && imports.get(target)?.has(folder)) pairs.push(`${folder} <-> ${target}`);
  return pairs;
}

function folderCycles(folders: readonly string[]): string[] {
  return pairsBothWays(folderImports(folders));
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

  it('lets the ports own their types and errors: lambdas/ports/ imports no adapter, no consumer and no SDK', () => {
    expect(
      violations(
        'lambdas/ports',
        (specifier, file) =>
          specifier.startsWith('@aws-sdk/') ||
          resolvesInto(specifier, file, 'lambdas/adapters') ||
          resolvesInto(specifier, file, 'lambdas/consumer'),
      ),
    ).toEqual([]);
  });

  it('wires the adapters in one place: under lambdas/consumer/ only create-consumer.ts (the composition root) imports lambdas/adapters/', () => {
    expect(
      violations(
        'lambdas/consumer',
        (specifier, file) =>
          resolvesInto(specifier, file, 'lambdas/adapters') && path.basename(file) !== 'create-consumer.ts',
      ),
    ).toEqual([]);
  });

  it('keeps each event shape in its source: lambdas/sources/ imports no adapter and no consumer, and under lambdas/consumer/ only create-consumer.ts imports it', () => {
    expect([
      ...violations(
        'lambdas/sources',
        (specifier, file) =>
          resolvesInto(specifier, file, 'lambdas/adapters') ||
          resolvesInto(specifier, file, 'lambdas/consumer'),
      ),
      ...violations(
        'lambdas/consumer',
        (specifier, file) =>
          resolvesInto(specifier, file, 'lambdas/sources') && path.basename(file) !== 'create-consumer.ts',
      ),
    ]).toEqual([]);
  });

  it('keeps the runtime out of the infrastructure: lib/ points at handlers by path, never imports them', () => {
    expect(violations('lib', (specifier, file) => resolvesInto(specifier, file, 'lambdas'))).toEqual([]);
  });

  it('keeps the CLI out of the infrastructure: nothing under cli/ imports lib/ (what it shares with the state machines is in contract/)', () => {
    expect(violations('cli', (specifier, file) => resolvesInto(specifier, file, 'lib'))).toEqual([]);
  });

  it('keeps the CLI off the wire: nothing under cli/ imports an AWS SDK (adapters wrap every call)', () => {
    expect(violations('cli', (specifier) => specifier.startsWith('@aws-sdk/'))).toEqual([]);
  });

  it('keeps cross-process names in contract/: contract/ imports nothing of the project', () => {
    expect(
      violations('contract', (specifier) => specifier.startsWith('.') && !specifier.startsWith('./')),
    ).toEqual([]);
  });

  it('keeps the local AWS a tool of its own: nothing under tools/local-aws/ imports the project outside it', () => {
    expect(
      violations(
        'tools/local-aws',
        (specifier, file) => specifier.startsWith('.') && !resolvesInto(specifier, file, 'tools/local-aws'),
      ),
    ).toEqual([]);
  });

  it('keeps the simulator out of the product: nothing under bin/, lib/, lambdas/, cli/, console/ or contract/ imports sim/', () => {
    const product = ['bin', 'lib', 'lambdas', 'cli', 'console', 'contract'];
    expect(
      product.flatMap((dir) => violations(dir, (specifier, file) => resolvesInto(specifier, file, 'sim'))),
    ).toEqual([]);
  });

  it('has no import cycles among the sources', () => {
    expect(importCycles(['contract', 'lib', 'lambdas', 'cli', 'sim'])).toEqual([]);
  });

  // Issue 23, item 5: a cycle between two folders is two rooms that cannot be read apart, even
  // when no file cycle shows it (cli/commands/console.ts imported console/, whose server imports
  // cli/). Type-only imports count too.
  it('has no cycle between source folders: for every pair, at most one imports the other', () => {
    expect(folderCycles(SOURCE_FOLDERS)).toEqual([]);
  });

  it('sees a folder cycle when there is one (the check can fail)', () => {
    const planted = new Map([
      ['cli', new Set(['console'])],
      ['console', new Set(['cli'])],
    ]);
    expect(pairsBothWays(planted)).toEqual(['cli <-> console']);
  });

  it('sees the imports it checks (the scan is not empty)', () => {
    expect(importsOf(path.join(root, 'lib', 'poison-quarantine.ts'))).toContain('aws-cdk-lib');
  });
});
