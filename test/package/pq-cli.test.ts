/**
 * pq as an operator installs it (issue 9, part 4): the CLI package (packages/pq) built and packed,
 * the tarball installed into a fresh folder offline, and the installed bin run: --version, --help,
 * and status against the local AWS through a profile of the AWS config files, which takes the
 * bundled AWS SDK through its lazily loaded chunks. The package installs nothing but itself: no
 * aws-cdk-lib, no dependencies at all.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../contract/env';
import { LOCAL_CREDENTIALS } from '../../tools/local-aws/moto';
import { type AdapterPipeline, startPipeline } from '../integration/support/pipeline';

const root = path.join(__dirname, '..', '..');
const cliPackage = path.join(root, 'packages', 'pq');

interface Packed {
  readonly filename: string;
  readonly files: readonly { readonly path: string }[];
}

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

describe('the pq package, packed and installed on its own', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'pq-cli-pack-'));
  const operator = path.join(work, 'operator');
  const pq = path.join(operator, 'node_modules', '.bin', 'pq');
  let packed: Packed;

  /** The installed bin, with only PATH and what `env` adds: no AWS settings from this machine. */
  function runPq(args: readonly string[], env: Record<string, string> = {}) {
    const { status, stdout, stderr } = spawnSync(pq, args, {
      cwd: operator,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: work, ...env },
      timeout: 60_000,
    });
    return { code: status, stdout, stderr };
  }

  beforeAll(() => {
    // prepack builds dist/; npm prints the build's log on stderr and the JSON on stdout.
    [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
        cwd: cliPackage,
        encoding: 'utf8',
      }),
    );
    mkdirSync(operator);
    // No dependencies to fetch: offline works, and nothing is linked from this repository.
    execFileSync(
      'npm',
      [
        'install',
        '--offline',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        path.join(work, packed.filename),
      ],
      { cwd: operator, stdio: 'pipe' },
    );
  }, 120_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('ships the compiled bundle, its licence and the licences of what it bundles; no sources', () => {
    const files = packed.files.map((file) => file.path).sort();

    expect(files.filter((file) => !file.startsWith('dist/chunks/'))).toStrictEqual([
      'LICENSE',
      'README.md',
      'dist/THIRD-PARTY-LICENSES.txt',
      'dist/pq.js',
      'package.json',
    ]);
    expect(files.filter((file) => file.startsWith('dist/chunks/') && !file.endsWith('.js'))).toStrictEqual(
      [],
    );
  });

  it('installs itself only: no aws-cdk-lib, no constructs, no dependencies', () => {
    const installed = readdirSync(path.join(operator, 'node_modules')).filter(
      (name) => !name.startsWith('.'),
    );

    expect(installed).toStrictEqual(['poison-quarantine-cli']);
    const manifest = readJson(path.join(operator, 'node_modules', 'poison-quarantine-cli', 'package.json'));
    expect(manifest).toMatchObject({
      name: 'poison-quarantine-cli',
      license: 'Apache-2.0',
      bin: { pq: 'dist/pq.js' },
    });
    expect(manifest.dependencies).toBeUndefined();
  });

  it('answers --version with the version of this repository, and --help with the overall help', () => {
    const { version } = readJson(path.join(root, 'package.json'));

    const versionRun = runPq(['--version']);
    const helpRun = runPq(['--help']);

    expect(versionRun).toStrictEqual({
      code: 0,
      stdout: `pq/${version} node/${process.version} ${process.platform}/${process.arch}\n`,
      stderr: '',
    });
    expect(helpRun).toMatchObject({ code: 0, stderr: '' });
    expect(helpRun.stdout).toContain('Usage: pq [global options] COMMAND [options]');
  });

  it('bundles the Kafka client a Kafka replay loads, whole: its chunk loads with nothing beside it', () => {
    // Prepare: the chunk that holds @platformatic/kafka (its errors' codes are PLT_KFK_...).
    const chunks = path.join(operator, 'node_modules', 'poison-quarantine-cli', 'dist', 'chunks');
    const kafkaChunk = readdirSync(chunks).find((name) =>
      readFileSync(path.join(chunks, name), 'utf8').includes('PLT_KFK_'),
    );
    expect(kafkaChunk).toBeDefined();

    // Act: load it as pq would (its WebAssembly is inlined, nothing is read from beside it).
    const loaded = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `await import(${JSON.stringify(path.join(chunks, kafkaChunk ?? ''))});`],
      { cwd: operator, encoding: 'utf8', timeout: 60_000 },
    );

    // Assess
    expect({ code: loaded.status, stderr: loaded.stderr }).toStrictEqual({ code: 0, stderr: '' });
  });

  describe('against the local AWS', () => {
    let pipeline: AdapterPipeline;

    beforeAll(async () => {
      pipeline = await startPipeline();
    }, 120_000);
    afterAll(async () => pipeline?.stop());

    it('runs status through a profile of the AWS config files, with no warning or noise', () => {
      // Prepare: the region and credentials exist only in the profile.
      const consumer = pipeline.stack.functions.find((fn) => fn.environment[ENV.attemptsTable] !== undefined);
      const config = path.join(work, 'aws-config');
      const credentials = path.join(work, 'aws-credentials');
      writeFileSync(config, `[profile ops]\nregion = ${pipeline.aws.region}\n`);
      writeFileSync(
        credentials,
        `[ops]\naws_access_key_id = ${LOCAL_CREDENTIALS.accessKeyId}\naws_secret_access_key = ${LOCAL_CREDENTIALS.secretAccessKey}\n`,
      );

      // Act
      const { code, stdout, stderr } = runPq(
        [
          '--profile',
          'ops',
          '--endpoint-url',
          pipeline.aws.endpoint,
          'status',
          '--function',
          `${consumer?.functionName}`,
          '--json',
        ],
        { AWS_CONFIG_FILE: config, AWS_SHARED_CREDENTIALS_FILE: credentials },
      );

      // Assess
      expect({ code, stderr }).toStrictEqual({ code: 0, stderr: '' });
      expect(JSON.parse(stdout)).toMatchObject({
        function: consumer?.functionName,
        mapping: { state: 'Enabled' },
        breaker: { state: 'closed' },
      });
    });
  });
});
