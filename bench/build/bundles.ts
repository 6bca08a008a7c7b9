/**
 * Builds every handler the bench times. The consumer is built exactly as the construct builds it
 * (lib/consumer-bundling.ts: split ES modules, its rare clients loaded on first use). The
 * reference and the bare handler are built as a NodejsFunction with the same options would build
 * them: one CommonJS file, platform node, target from the runtime (NODEJS_LATEST), minified with
 * names kept, ES modules first, a source map without sources, nothing external (the SDK is
 * bundled); that is what their users deploy.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogLevel } from 'aws-cdk-lib/aws-lambda-nodejs';
import { build } from 'esbuild';
import { buildConsumer, CONSUMER_ENTRY_FILE } from '../../lib/consumer-bundling';

const ROOT = path.join(__dirname, '..', '..');
const BENCH = path.join(ROOT, 'bench');
const REFERENCE = path.join(BENCH, 'reference');

export type HandlerName = 'poisonQuarantine' | 'powertools' | 'bare';

export type Bundles = Readonly<Record<HandlerName, string>>;

/** CDK's own rule: `nodejs24.x` -> `node24`. */
function runtimeTarget(): string {
  const match = Runtime.NODEJS_LATEST.name.match(/nodejs(\d+)/);
  if (!match) throw new Error(`cannot read a Node.js version from ${Runtime.NODEJS_LATEST.name}`);
  return `node${match[1]}`;
}

async function bundle(entry: string, outfile: string): Promise<string> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: runtimeTarget(),
    minify: true,
    keepNames: true,
    mainFields: ['module', 'main'],
    sourcemap: true,
    sourcesContent: false,
    logLevel: 'error',
  });
  return outfile;
}

/** The reference's pinned dependencies, installed on first use only (the main install never has them). */
export function ensureReferenceInstalled(): void {
  if (existsSync(path.join(REFERENCE, 'node_modules'))) return;
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: REFERENCE, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm ci in bench/reference failed');
}

export interface BuiltBundles {
  readonly paths: Bundles;
  /** Deletes the build directory (a temporary one: nothing of the bench lands in the repository). */
  remove(): void;
}

export async function buildBundles(): Promise<BuiltBundles> {
  ensureReferenceInstalled();
  const out = mkdtempSync(path.join(tmpdir(), 'pq-bench-'));
  buildConsumer(
    {
      entry: path.join(ROOT, 'lambdas', 'handlers', 'consumer.ts'),
      processorEntry: path.join(BENCH, 'handlers', 'parse-body.ts'),
      runtime: Runtime.NODEJS_LATEST,
      bundling: { logLevel: LogLevel.ERROR },
    },
    path.join(out, 'pq'),
  );
  const poisonQuarantine = path.join(out, 'pq', CONSUMER_ENTRY_FILE);
  const [powertools, bare] = await Promise.all([
    bundle(path.join(REFERENCE, 'handler.ts'), path.join(out, 'powertools', 'index.js')),
    bundle(path.join(BENCH, 'handlers', 'bare.ts'), path.join(out, 'bare', 'index.js')),
  ]);
  return {
    paths: { poisonQuarantine, powertools, bare },
    remove: () => rmSync(out, { recursive: true, force: true }),
  };
}
