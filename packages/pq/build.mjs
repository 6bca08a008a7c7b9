/**
 * Builds pq into dist/ from this repository's cli/ (with the lambdas/ and contract/ modules it
 * imports): ESM bundles with the AWS SDK inside, so the package installs no dependencies at all.
 * Split at the dynamic imports of cli/commands/index.ts and cli/run.ts: `pq --version` and
 * `pq --help` load only the entry, a command loads its own module, and the SDK comes with the
 * first AWS call. Fails when anything would bundle aws-cdk-lib or constructs, or the entry held
 * SDK code. Writes the licences of what it bundled next to the code (they ship with it). Takes no
 * arguments but `--help`, which prints the usage and builds nothing.
 */
import { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const USAGE = `Usage: npm run build:pq

Builds pq, the operator CLI, into packages/pq/dist from cli/: ES module bundles with the AWS SDK
inside, no dependencies, and the licences of what they bundle. Fails when anything would bundle
aws-cdk-lib or constructs, or when pq's entry would load AWS SDK code at start.
(packages/pq's prepack runs it too.)

  --help, -h  this text, and nothing built

Exit code: 0 built, 1 the build failed, 2 bad usage.
`;

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (args.length > 0) {
  process.stderr.write(`build:pq: takes no arguments (given ${args.join(' ')})\n\n${USAGE}`);
  process.exit(2);
}

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const outdir = join(here, 'dist');

rmSync(outdir, { recursive: true, force: true });
const { metafile } = await build({
  absWorkingDir: root,
  entryPoints: { pq: 'bin/pq.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  minify: true,
  // The SDK's ES modules, which esbuild can tree-shake (as the consumer's bundle does).
  mainFields: ['module', 'main'],
  // The Kafka client's WebAssembly (CRC32C, compression) as its package also ships it, inlined:
  // its default entry reads native.wasm from beside itself, which the bundle does not have.
  alias: { '@platformatic/wasm-utils': '@platformatic/wasm-utils/bundled' },
  // CommonJS code bundled into ES modules (the Kafka client's `debug`) requires Node's built-ins
  // (`tty`, `util`) at run time: esbuild's shim throws without a `require`, so each file gets one.
  banner: {
    js: "import { createRequire as __pqCreateRequire } from 'node:module'; const require = __pqCreateRequire(import.meta.url);",
  },
  chunkNames: 'chunks/[name]-[hash]',
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});

const packages = bundledPackages(metafile);
const forbidden = ['aws-cdk-lib', 'constructs'].filter((name) => packages.has(name));
if (forbidden.length > 0)
  throw new Error(`pq must not bundle ${forbidden.join(' or ')}: find the import in cli/`);

const entry = relative(root, join(outdir, 'pq.js'));
const eager = [...staticClosure(metafile, entry)].filter((input) =>
  /node_modules\/@(aws-sdk|smithy)\//.test(input),
);
if (eager.length > 0) {
  throw new Error(`pq's entry loads AWS SDK code at start (${eager[0]}, ...): import it lazily`);
}

writeFileSync(join(outdir, 'THIRD-PARTY-LICENSES.txt'), licenceNotices(packages));
copyFileSync(join(root, 'LICENSE'), join(here, 'LICENSE'));
const { version } = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
// On stderr, as esbuild logs: `npm pack --json` prints its JSON on stdout.
console.error(
  `pq ${version}: ${Object.keys(metafile.outputs).length} files in ${relative(root, outdir)}, ${packages.size} packages bundled`,
);

/** The npm packages the bundle holds code of: name -> its folder (nested copies: the innermost). */
function bundledPackages({ inputs }) {
  const packages = new Map();
  for (const input of Object.keys(inputs)) {
    const match = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(input);
    if (match) packages.set(match[2], join(root, match[1]));
  }
  return packages;
}

/** The inputs of an output and of every chunk it imports statically: what loads with it. */
function staticClosure({ outputs }, output, seen = new Set()) {
  if (seen.has(output)) return new Set();
  seen.add(output);
  const { inputs, imports } = outputs[output];
  const closure = new Set(Object.keys(inputs));
  for (const chunk of imports.filter(
    (imported) => imported.kind === 'import-statement' && !imported.external,
  )) {
    for (const input of staticClosure({ outputs }, chunk.path, seen)) closure.add(input);
  }
  return closure;
}

/** Each bundled package's name, version and licence, and each licence text once, as redistribution asks. */
function licenceNotices(packages) {
  const byText = new Map();
  for (const [name, folder] of [...packages].sort(([a], [b]) => a.localeCompare(b))) {
    const { version, license } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    const file = readdirSync(folder).find((entry) => /^(licen[cs]e|copying)(\.|$)/i.test(entry));
    const text = file
      ? readFileSync(join(folder, file), 'utf8').trim()
      : `(no licence file; its package.json says ${license})`;
    byText.set(text, [...(byText.get(text) ?? []), `${name}@${version} (${license})`]);
  }
  const sections = [...byText].map(([text, names]) => `${names.join('\n')}\n\n${text}\n`);
  return `pq bundles code of these packages, under these licences:\n\n${sections.join(`\n${'-'.repeat(78)}\n\n`)}`;
}
