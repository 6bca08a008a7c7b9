/**
 * The consumer's bundle stays lean (issue 9, part 3; issue 24): split ES modules whose cold start
 * loads at most 380 KiB with the DynamoDB client alone, at most 700 KiB deployed, a source map
 * without the sources, no AWS client the consumer never calls, and the CommonJS dependencies a
 * processing module brings still run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { EOL, tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { buildSync, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { buildConsumer, CONSUMER_ENTRY_FILE, consumerBuildOptions } from '../../lib/consumer-bundling';
import {
  CONSUMER_BUNDLE_LIMIT_BYTES,
  CONSUMER_INIT_LIMIT_BYTES,
  consumerAssetFiles,
  consumerInitFiles,
  FIXTURE_PROCESSOR,
  pipelineStack,
} from './synth';

const HANDLER = path.join(__dirname, '..', '..', 'lambdas', 'handlers', 'consumer.ts');

/** The AWS SDK clients whose code is among these outputs of a build. */
function clientsIn(metafile: Metafile, outputs: readonly string[]): string[] {
  const clients = outputs
    .flatMap((output) => Object.keys(metafile.outputs[output]?.inputs ?? {}))
    .map((input) => input.match(/node_modules\/@aws-sdk\/(client-[^/]+)\//)?.[1])
    .filter((client) => client !== undefined);
  return [...new Set(clients)].sort();
}

/** An output and every output it imports statically: what loading it loads. */
function staticClosure(metafile: Metafile, output: string, seen: string[] = []): string[] {
  if (seen.includes(output)) return seen;
  seen.push(output);
  for (const imported of metafile.outputs[output]?.imports ?? [])
    if (imported.kind === 'import-statement' && !imported.external)
      staticClosure(metafile, imported.path, seen);
  return seen;
}

describe('the consumer bundle', () => {
  const { app, stack } = pipelineStack({}, undefined, { bundle: true });
  const assembly = app.synth();
  const files = consumerAssetFiles(assembly.directory, assembly.getStackByName(stack.stackName).template);
  const code = [...files].filter(([name]) => name.endsWith('.mjs'));

  it('holds an entry Lambda finds for index.handler, its chunks beside it, each with its map', () => {
    expect(files.has(CONSUMER_ENTRY_FILE)).toBe(true);
    expect(code.length).toBeGreaterThan(1);
    expect([...files.keys()].filter((name) => !name.endsWith('.mjs') && !name.endsWith('.mjs.map'))).toEqual(
      [],
    );
    expect(code.map(([name]) => files.has(`${name}.map`))).not.toContain(false);
  });

  it('loads at most 380 KiB at a cold start: the entry and the chunks it imports statically', () => {
    const init = consumerInitFiles(files);
    const bytes = init.reduce((sum, name) => sum + (files.get(name)?.length ?? 0), 0);
    expect(init.length).toBeLessThan(code.length);
    expect(bytes).toBeLessThanOrEqual(CONSUMER_INIT_LIMIT_BYTES);
  });

  it('deploys in at most 700 KiB: every file deflated, as the uploaded zip holds it', () => {
    const deflated = [...files.values()].reduce((sum, file) => sum + deflateRawSync(file).length, 0);
    expect(deflated).toBeLessThanOrEqual(CONSUMER_BUNDLE_LIMIT_BYTES);
  });

  it('keeps a source map for the stack heads, without a copy of the sources', () => {
    const map = JSON.parse(files.get(`${CONSUMER_ENTRY_FILE}.map`)?.toString() ?? '{}');
    expect(
      map.sources.filter((source: string) => source.endsWith('lambdas/handlers/consumer.ts')),
    ).toHaveLength(1);
    expect(map.sourcesContent).toBeUndefined();
  });
});

describe('the AWS clients in the consumer bundle', () => {
  // Prepare: the construct's own build, with esbuild's account of which input went where.
  const build = { entry: HANDLER, processorEntry: FIXTURE_PROCESSOR, runtime: Runtime.NODEJS_LATEST };
  const { metafile } = buildSync({ ...consumerBuildOptions(build, '/bundle'), write: false, metafile: true });
  const outputs = Object.keys(metafile.outputs).filter((output) => output.endsWith('.mjs'));
  const entry = outputs.find((output) => path.basename(output) === CONSUMER_ENTRY_FILE) ?? '';

  it('holds no AWS client the consumer never calls', () => {
    expect(clientsIn(metafile, outputs)).toEqual([
      'client-dynamodb',
      'client-s3',
      'client-sfn',
      'client-sqs',
    ]);
  });

  it("holds none of the AWS SDK's browser-only code: its user-agent parser (bowser) is never loaded on Node.js", () => {
    expect(Object.keys(metafile.inputs).filter((input) => input.includes('node_modules/bowser/'))).toEqual(
      [],
    );
  });

  it('loads only the DynamoDB client at a cold start', () => {
    expect(clientsIn(metafile, staticClosure(metafile, entry))).toEqual(['client-dynamodb']);
  });

  it.each([
    ['connect-quarantine', 'client-s3'],
    ['connect-operations', 'client-sfn'],
    ['connect-source-queue', 'client-sqs'],
  ])(
    'given the first call of a rare port, then its chunk %s loads the %s client and no other rare one',
    (chunk, client) => {
      const lazy = outputs.find((output) => path.basename(output).startsWith(`${chunk}-`)) ?? '';
      const atStart = staticClosure(metafile, entry);
      const loaded = staticClosure(metafile, lazy).filter((output) => !atStart.includes(output));
      // The DynamoDB client is loaded already; a rare path may add commands of its own (the quarantine's transaction).
      expect(clientsIn(metafile, loaded).filter((name) => name !== 'client-dynamodb')).toEqual([client]);
    },
  );
});

describe("a user's module the AWS SDK needs only in a browser", () => {
  it('given a processor that imports bowser itself, then the consumer bundle keeps it', () => {
    // Prepare
    const outdir = mkdtempSync(path.join(tmpdir(), 'pq-browser-parsing-'));
    const processorEntry = path.join(__dirname, 'fixtures', 'browser-parsing-processor.ts');
    try {
      // Act: the construct's build, with the metafile a user may ask for.
      buildConsumer(
        { entry: HANDLER, processorEntry, runtime: Runtime.NODEJS_LATEST, bundling: { metafile: true } },
        outdir,
      );

      // Assess
      const written = JSON.parse(readFileSync(path.join(outdir, 'index.meta.json'), 'utf8')) as Metafile;
      expect(Object.keys(written.inputs)).toContain('node_modules/bowser/bowser.mjs');
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});

describe('a dependency of CommonJS in the consumer bundle', () => {
  it('given one that requires a Node.js built-in, then the ES module bundle runs it: the bundle makes its own require', () => {
    // Prepare: built with the consumer's options into a temporary folder.
    const outdir = mkdtempSync(path.join(tmpdir(), 'pq-commonjs-'));
    const entry = path.join(__dirname, 'fixtures', 'commonjs-dependency', 'entry.ts');
    try {
      buildSync(
        consumerBuildOptions({ entry, processorEntry: entry, runtime: Runtime.NODEJS_LATEST }, outdir),
      );
      // Act: loaded as Lambda loads a handler, with import().
      const script = `import(${JSON.stringify(pathToFileURL(path.join(outdir, CONSUMER_ENTRY_FILE)).href)}).then(async (m) => process.stdout.write(await m.handler()))`;
      // An ES module script: a CommonJS one (plain -e) would lend the bundle a global require.
      const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        encoding: 'utf8',
      });
      // Assess
      expect(output).toBe(JSON.stringify(EOL));
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
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
  const files = consumerAssetFiles(assembly.directory, assembly.getStackByName(stack.stackName).template);
  const entry = files.get(CONSUMER_ENTRY_FILE)?.toString() ?? '';
  const all = [...files].filter(([name]) => name.endsWith('.mjs')).map(([, file]) => file.toString());

  it('given a banner and no minification, then the bundle has both', () => {
    expect(entry.startsWith('/* built by the user */')).toBe(true);
    expect(all.join('\n').split('\n').length).toBeGreaterThan(1000);
  });

  it('given options of the user, then what the consumer needs stays: names kept, the processor bundled in', () => {
    // esbuild's keepNames helper; and without the alias the bundle would not resolve the processor.
    expect(all.join('\n')).toContain('__name(');
    expect(all.join('\n')).not.toMatch(/(?:require\(|from ?)["']pq-user-processor["']/);
  });
});
