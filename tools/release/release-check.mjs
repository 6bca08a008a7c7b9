/**
 * `npm run release:check`: builds and packs both packages as `npm publish` would (`npm pack
 * --dry-run`, whose prepack builds), and checks what each would ship, without publishing
 * anything: the files every user needs are there, nothing else is (no tests, sources, local
 * tools, CI), both packages carry the same version, and CHANGELOG.md has a section for it.
 * Prints one line a package, or every problem found, and exits 1 then. Takes no arguments but
 * `--help`, which prints the usage and builds nothing.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const USAGE = `Usage: npm run release:check

Builds and packs both packages, poison-quarantine and poison-quarantine-cli (packages/pq), as
\`npm publish\` would (\`npm pack --dry-run\`), and checks what each would ship: the files every
user needs, nothing else, the same version in both, and a CHANGELOG.md section for it. Publishes
nothing.

  --help, -h  this text, and nothing built

Exit code: 0 ready to publish, 1 a problem (each said on stderr), 2 bad usage.
`;

/** What each package must ship, and the only paths it may ship. */
export const PACKAGES = [
  {
    dir: '.',
    required: [
      'LICENSE',
      'README.md',
      'package.json',
      'dist/lib/index.js',
      'dist/lib/index.d.ts',
      'dist/lambdas/runtime.js',
      'dist/lambdas/runtime.d.ts',
      'dist/esm/lambdas/handlers/consumer.js',
    ],
    allowed: /^(LICENSE|README\.md|package\.json|dist\/(lib|lambdas|contract|esm)\/.+\.(js|d\.ts|json))$/,
  },
  {
    dir: 'packages/pq',
    required: ['LICENSE', 'README.md', 'package.json', 'dist/pq.js'],
    allowed: /^(LICENSE|README\.md|package\.json|dist\/[\w./-]+\.(js|txt))$/,
  },
];

/**
 * The problems of one packed package: `packed` is `npm pack --json`'s entry ({ name, version,
 * files: [{ path }] }), `rules` its entry of PACKAGES.
 */
export function packageProblems(packed, rules) {
  const files = packed.files.map((file) => file.path);
  return [
    ...rules.required
      .filter((path) => !files.includes(path))
      .map((path) => `${packed.name}: ${path} is missing`),
    ...files.filter((path) => !rules.allowed.test(path)).map((path) => `${packed.name}: ships ${path}`),
  ];
}

/** The versions agree, and the changelog says what this version is. */
export function releaseProblems(packs, changelog) {
  const versions = [...new Set(packs.map((packed) => packed.version))];
  if (versions.length !== 1) {
    return [
      `the packages' versions differ (${packs.map((packed) => `${packed.name} ${packed.version}`).join(', ')})`,
    ];
  }
  const [version] = versions;
  const heading = new RegExp(`^## ${version.replaceAll('.', '\\.')}( |$)`, 'm');
  return heading.test(changelog) ? [] : [`CHANGELOG.md has no "## ${version}" section`];
}

function pack(dir) {
  const output = execFileSync('npm', ['pack', '--dry-run', '--json'], {
    cwd: join(root, dir),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(output)[0];
}

function main(args) {
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (args.length > 0) {
    process.stderr.write(`release:check: takes no arguments (given ${args.join(' ')})\n\n${USAGE}`);
    return 2;
  }
  const packs = PACKAGES.map((rules) => ({ rules, packed: pack(rules.dir) }));
  const problems = [
    ...packs.flatMap(({ packed, rules }) => packageProblems(packed, rules)),
    ...releaseProblems(
      packs.map(({ packed }) => packed),
      readFileSync(join(root, 'CHANGELOG.md'), 'utf8'),
    ),
  ];
  for (const { packed } of packs) {
    process.stdout.write(
      `${packed.name}@${packed.version}: ${packed.files.length} files, ${Math.round(packed.size / 1024)} KiB packed\n`,
    );
  }
  if (problems.length === 0) {
    process.stdout.write('release:check: ok (nothing was published)\n');
    return 0;
  }
  for (const problem of problems) process.stderr.write(`release:check: ${problem}\n`);
  return 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
