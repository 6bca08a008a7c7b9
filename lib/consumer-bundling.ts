/**
 * The consumer's bundle as split ES modules, built by esbuild's API on this machine (no Docker).
 * NodejsFunction cannot build it: it always passes esbuild `--outfile`, which code splitting
 * refuses. Split, the entry holds the healthy path and the DynamoDB client; the S3, Step Functions
 * and SQS clients are chunks the consumer imports on first use (lambdas/consumer/create-consumer.ts),
 * so a cold start does not load them (issue 24).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import { type BuildOptions, buildSync, type Metafile } from 'esbuild';

/** The module specifier the consumer handler imports the user's processing module by. */
export const PROCESSOR_MODULE_ALIAS = 'pq-user-processor';

/** The bundle's entry, as Lambda finds it for the handler `index.handler`. */
export const CONSUMER_ENTRY_FILE = 'index.mjs';

export interface ConsumerBuild {
  /** The handler module (lambdas/handlers/consumer.ts, or its ES module build in the package). */
  readonly entry: string;
  readonly processorEntry: string;
  readonly runtime: lambda.Runtime;
  /** The user's options, merged over the construct's (checked by `bundlingProblems`). */
  readonly bundling?: nodejs.BundlingOptions;
}

const ALIAS_ARG = '--alias:';

/**
 * An ES module bundle may still hold CommonJS code of a dependency that calls `require` for a
 * Node.js built-in; esbuild's ESM output has no `require`, so the bundle makes one.
 */
const REQUIRE_SHIM =
  "import { createRequire as __pqCreateRequire } from 'node:module'; const require = __pqCreateRequire(import.meta.url);";

/**
 * Modules the AWS SDK imports only to run in a browser: its user-agent parser (`bowser`, 38 KiB,
 * a chunk of its own behind a dynamic import that Node.js never reaches). Left out of the bundle
 * unless the user's code imports them too (`buildConsumer`).
 */
const BROWSER_ONLY = ['bowser'];

/** esbuild's options for the consumer; the bench builds with them too (bench/build/bundles.ts). */
export function consumerBuildOptions(
  build: ConsumerBuild,
  outdir: string,
  leftOut: readonly string[] = BROWSER_ONLY,
): BuildOptions {
  const user = build.bundling ?? {};
  return {
    entryPoints: { index: build.entry },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    splitting: true,
    outExtension: { '.js': '.mjs' },
    // Chunks beside the entry: a stack frame or a source map path is relative to one folder.
    chunkNames: '[name]-[hash]',
    target: user.target ?? runtimeTarget(build.runtime),
    // A lean bundle loads faster at cold start: minified, and the SDK's ES modules first
    // ('module' before 'main') so that esbuild drops the parts the consumer never calls.
    minify: user.minify ?? true,
    mainFields: user.mainFields ?? ['module', 'main'],
    // The map turns the evidence's stack heads back into file:line (lambdas/handlers/source-mapped-stacks.ts);
    // it needs no copy of the sources, which would nearly treble its size.
    sourcemap: sourceMap(user),
    sourcesContent: user.sourcesContent ?? false,
    // The AWS SDK is bundled rather than taken from the runtime, so the version tested here is
    // the version that runs.
    external: user.externalModules ?? [...leftOut],
    // esbuild's size table on every synth is noise; its warnings and errors still show.
    logLevel: user.logLevel ?? nodejs.LogLevel.WARNING,
    // Minified names would reach the stack heads (and the signatures that group quarantine
    // records, which must not change with every build); bundlingProblems refuses `false`.
    keepNames: true,
    banner: { js: [user.banner, REQUIRE_SHIM].filter(Boolean).join('\n') },
    ...(user.footer ? { footer: { js: user.footer } } : {}),
    ...(user.loader ? { loader: user.loader as BuildOptions['loader'] } : {}),
    ...(user.tsconfig ? { tsconfig: user.tsconfig } : {}),
    ...(user.charset ? { charset: user.charset } : {}),
    ...(user.define ? { define: user.define } : {}),
    ...(user.inject ? { inject: user.inject } : {}),
    metafile: user.metafile ?? false,
    alias: { ...userAliases(user), [PROCESSOR_MODULE_ALIAS]: path.resolve(build.processorEntry) },
  };
}

/**
 * Builds the consumer into `outdir` (CDK's bundling output): `index.mjs`, its chunks and their
 * maps, and `index.meta.json` when the user asks for a metafile, as NodejsFunction writes it.
 */
export function buildConsumer(build: ConsumerBuild, outdir: string): void {
  const lean = buildSync({ ...consumerBuildOptions(build, outdir), write: false, metafile: true });
  // The user's own code importing a module left out gets it bundled, as any other.
  const result = importedOutsideTheSdk(lean.metafile, BROWSER_ONLY)
    ? buildSync({ ...consumerBuildOptions(build, outdir, []), write: false, metafile: true })
    : lean;
  for (const file of result.outputFiles) {
    mkdirSync(path.dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.contents);
  }
  if (build.bundling?.metafile) {
    writeFileSync(path.join(outdir, 'index.meta.json'), JSON.stringify(result.metafile));
  }
}

/** Whether code other than the AWS SDK's imports one of `modules` (left external in `metafile`). */
function importedOutsideTheSdk(metafile: Metafile, modules: readonly string[]): boolean {
  return Object.entries(metafile.inputs).some(
    ([input, { imports }]) =>
      !input.includes('node_modules/@aws-sdk/') &&
      imports.some((imported) => imported.external === true && modules.includes(imported.path)),
  );
}

/** The bundling options PoisonQuarantine cannot honour, or must not let change, as messages. */
export function bundlingProblems(bundling: nodejs.BundlingOptions): string[] {
  const errors: string[] = [];
  if (bundling.keepNames === false)
    errors.push(
      'bundling.keepNames must stay true: error signatures, which group quarantine records, name functions (given false)',
    );
  const alias = `${ALIAS_ARG}${PROCESSOR_MODULE_ALIAS}`;
  if (bundling.esbuildArgs?.[alias] !== undefined)
    errors.push(
      `bundling.esbuildArgs must not set ${alias}: it points the consumer at processorEntry (given "${bundling.esbuildArgs[alias]}")`,
    );
  const otherArgs = Object.keys(bundling.esbuildArgs ?? {}).filter((arg) => !arg.startsWith(ALIAS_ARG));
  if (otherArgs.length > 0)
    errors.push(
      `bundling.esbuildArgs takes only ${ALIAS_ARG}<module> here: the consumer is built with esbuild's API, as split ES modules (given ${otherArgs.join(', ')})`,
    );
  if (bundling.externalModules?.includes(PROCESSOR_MODULE_ALIAS))
    errors.push(
      `bundling.externalModules must not name ${PROCESSOR_MODULE_ALIAS}: processorEntry is bundled in (given ${JSON.stringify(bundling.externalModules)})`,
    );
  if (bundling.format !== undefined && bundling.format !== nodejs.OutputFormat.ESM)
    errors.push(
      `bundling.format must be esm: the consumer is split ES modules, its rare clients loaded on first use (given ${bundling.format})`,
    );
  const unsupported = UNSUPPORTED.filter((option) => bundling[option] !== undefined);
  if (unsupported.length > 0)
    errors.push(
      `bundling.${unsupported.join(', bundling.')}: not supported, the consumer is bundled on this machine by esbuild's API, without Docker or a package install (given ${unsupported.length === 1 ? 'it' : 'them'})`,
    );
  return errors;
}

/** NodejsFunction's options for Docker, a package install or build commands, which we do not run. */
const UNSUPPORTED = [
  'nodeModules',
  'esbuildVersion',
  'preCompilation',
  'commandHooks',
  'forceDockerBundling',
  'dockerImage',
  'buildArgs',
  'bundlingFileAccess',
  'environment',
  'entrypoint',
  'command',
  'volumes',
  'volumesFrom',
  'workingDirectory',
  'user',
  'securityOpt',
  'network',
] as const satisfies readonly (keyof nodejs.BundlingOptions)[];

/** CDK's own rule: `nodejs24.x` -> `node24`. */
function runtimeTarget(runtime: lambda.Runtime): string {
  const match = runtime.name.match(/nodejs(\d+)/);
  if (!match) throw new Error(`cannot read a Node.js version from the runtime ${runtime.name}`);
  return `node${match[1]}`;
}

function sourceMap(user: nodejs.BundlingOptions): BuildOptions['sourcemap'] {
  if (user.sourceMap === false) return false;
  switch (user.sourceMapMode ?? nodejs.SourceMapMode.DEFAULT) {
    case nodejs.SourceMapMode.DEFAULT:
      return true;
    case nodejs.SourceMapMode.EXTERNAL:
      return 'external';
    case nodejs.SourceMapMode.INLINE:
      return 'inline';
    case nodejs.SourceMapMode.BOTH:
      return 'both';
  }
}

function userAliases(user: nodejs.BundlingOptions): Record<string, string> {
  return Object.fromEntries(
    Object.entries(user.esbuildArgs ?? {})
      .filter(([arg]) => arg.startsWith(ALIAS_ARG))
      .map(([arg, target]) => [arg.slice(ALIAS_ARG.length), String(target)]),
  );
}
