/**
 * The consumer's bundle stays lean (issue 9, part 3): its code and its deployed archive at most
 * 700 KiB, a source map without the sources, and no AWS client the consumer never calls.
 */
import * as path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { PROCESSOR_MODULE_ALIAS } from '../../lib/consumer-function';
import { CONSUMER_BUNDLE_LIMIT_BYTES, consumerAssetFiles, FIXTURE_PROCESSOR, pipelineStack } from './synth';

describe('the consumer bundle', () => {
  const { app, stack } = pipelineStack({}, undefined, { bundle: true });
  const assembly = app.synth();
  const files = consumerAssetFiles(assembly.directory, assembly.getStackByName(stack.stackName).template);

  it('holds the code Lambda loads in at most 700 KiB', () => {
    expect([...files.keys()].sort()).toEqual(['index.js', 'index.js.map']);
    expect(files.get('index.js')?.length).toBeLessThanOrEqual(CONSUMER_BUNDLE_LIMIT_BYTES);
  });

  it('deploys in at most 700 KiB: every file deflated, as the uploaded zip holds it', () => {
    const deflated = [...files.values()].reduce((sum, file) => sum + deflateRawSync(file).length, 0);
    expect(deflated).toBeLessThanOrEqual(CONSUMER_BUNDLE_LIMIT_BYTES);
  });

  it('keeps a source map for the stack heads, without a copy of the sources', () => {
    const map = JSON.parse(files.get('index.js.map')?.toString() ?? '{}');
    expect(
      map.sources.filter((source: string) => source.endsWith('lambdas/handlers/consumer.ts')),
    ).toHaveLength(1);
    expect(map.sourcesContent).toBeUndefined();
  });

  it('imports no AWS client the consumer never calls', async () => {
    // Prepare: the modules the handler reaches, as esbuild resolves them for the bundle.
    const { metafile } = await build({
      entryPoints: [path.join(__dirname, '..', '..', 'lambdas', 'handlers', 'consumer.ts')],
      bundle: true,
      platform: 'node',
      write: false,
      metafile: true,
      mainFields: ['module', 'main'],
      alias: { [PROCESSOR_MODULE_ALIAS]: FIXTURE_PROCESSOR },
      logLevel: 'error',
    });
    // Assess
    const clients = Object.keys(metafile.inputs)
      .map((input) => input.match(/node_modules\/@aws-sdk\/(client-[^/]+)\//)?.[1])
      .filter((client) => client !== undefined);
    expect([...new Set(clients)].sort()).toEqual([
      'client-dynamodb',
      'client-s3',
      'client-sfn',
      'client-sqs',
    ]);
  });
});

describe("the consumer bundle with the user's bundling options", () => {
  // Prepare: options of the user's own, merged over the construct's.
  const { app, stack } = pipelineStack(
    { bundling: { banner: '/* built by the user */', minify: false } },
    undefined,
    { bundle: true },
  );
  const assembly = app.synth();
  const code =
    consumerAssetFiles(assembly.directory, assembly.getStackByName(stack.stackName).template)
      .get('index.js')
      ?.toString() ?? '';

  it('given a banner and no minification, then the bundle has both', () => {
    expect(code.startsWith('/* built by the user */')).toBe(true);
    expect(code.split('\n').length).toBeGreaterThan(1000);
  });

  it('given options of the user, then what the consumer needs stays: names kept, the processor bundled in', () => {
    // esbuild's keepNames helper; and without the alias the bundle would not resolve the processor.
    expect(code).toContain('__name(');
    expect(code).not.toMatch(/require\(["']pq-user-processor["']\)/);
  });
});
