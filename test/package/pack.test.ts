/**
 * The package as a user gets it (issue 9, part 1): `npm pack`, then a fresh TypeScript CDK app
 * in the shape `cdk init app --language typescript` makes (./app, kept out of this repository's
 * tsconfig because it imports 'poison-quarantine' by name), the tarball installed into it, the
 * app type-checked and synthesized. Offline: npm links the package's dependencies and peers from
 * this repository's node_modules instead of fetching them.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONSUMER_BUNDLE_LIMIT_BYTES,
  CONSUMER_INIT_LIMIT_BYTES,
  consumerAssetFiles,
  consumerInitFiles,
} from '../cdk/synth';
import { run } from './run-command';

const root = path.join(__dirname, '..', '..');
const repoModule = (name: string) => path.join(root, 'node_modules', name);

interface Packed {
  readonly filename: string;
  readonly files: readonly { readonly path: string }[];
}

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

describe('the packed package, installed in a fresh CDK app', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'pq-pack-'));
  const app = path.join(work, 'app');
  let packed: Packed;

  beforeAll(() => {
    // prepack builds dist/; npm prints the build's log on stderr and the JSON on stdout.
    [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], root));
    cpSync(path.join(__dirname, 'app'), app, { recursive: true });
    const { dependencies, peerDependencies } = readJson(path.join(root, 'package.json'));
    // A local folder installs as a link and satisfies the tarball's own ranges, so npm fetches
    // nothing, and no install script runs in this repository's folders; @types/node stands for
    // the app's own devDependency.
    const linked = [...Object.keys(dependencies), ...Object.keys(peerDependencies), '@types/node'].map(
      repoModule,
    );
    run(
      'npm',
      [
        'install',
        '--offline',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        path.join(work, packed.filename),
        ...linked,
      ],
      app,
    );
  }, 150_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('ships compiled JavaScript with its types and a LICENSE; no tests, local AWS, CI or sources', () => {
    const files = packed.files.map((file) => file.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'dist/lib/index.js',
        'dist/lib/index.d.ts',
        'dist/lambdas/runtime.js',
        'dist/lambdas/runtime.d.ts',
        'dist/esm/lambdas/handlers/consumer.js',
      ]),
    );
    expect(files.filter((file) => /^(test|local|\.ci)\//.test(file))).toEqual([]);
    expect(files.filter((file) => !file.startsWith('dist/'))).toEqual([
      'LICENSE',
      'README.md',
      'package.json',
    ]);
    expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
  });

  it('declares aws-cdk-lib and constructs as peers, esbuild as a dependency, and its two entries', () => {
    const manifest = readJson(path.join(app, 'node_modules', 'poison-quarantine', 'package.json'));
    expect(manifest).toMatchObject({ name: 'poison-quarantine', license: 'Apache-2.0' });
    expect(manifest.private).toBeUndefined();
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(['aws-cdk-lib', 'constructs']);
    expect(Object.keys(manifest.dependencies)).not.toContain('aws-cdk-lib');
    expect(Object.keys(manifest.dependencies)).toContain('esbuild');
    expect(Object.keys(manifest.exports)).toEqual(['.', './runtime', './package.json']);
  });

  it('type-checks the app: the construct from poison-quarantine, the processor from its runtime', () => {
    run(process.execPath, [path.join(repoModule('typescript'), 'bin', 'tsc'), '-p', app], app);
  }, 60_000);

  it("synthesizes the consumer with the user's processor bundled in, as lean as in this repository", () => {
    const cdkOut = path.join(app, 'cdk.out');
    run(path.join(root, 'node_modules', '.bin', 'tsx'), ['bin/pq-app.ts'], app, { CDK_OUTDIR: cdkOut });

    const files = consumerAssetFiles(cdkOut, readJson(path.join(cdkOut, 'PqAppStack.template.json')));
    const init = consumerInitFiles(files).map((name) => files.get(name) ?? Buffer.alloc(0));
    const code = [...files].filter(([name]) => name.endsWith('.mjs')).map(([, file]) => file);
    expect(init.map(String).join('\n')).toContain('orders-worker: the body is not JSON');
    expect(init.reduce((sum, file) => sum + file.length, 0)).toBeLessThanOrEqual(CONSUMER_INIT_LIMIT_BYTES);
    expect(code.reduce((sum, file) => sum + file.length, 0)).toBeLessThanOrEqual(CONSUMER_BUNDLE_LIMIT_BYTES);
  }, 60_000);
});
