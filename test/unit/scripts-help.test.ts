/**
 * Issue 21, item 6: every command's `--help` prints its usage and runs nothing. Each script a user
 * runs from package.json is started as the docs start it, `npm run -s NAME -- --help`: its usage on
 * stdout (first line `Usage:`), exit code 0, nothing on stderr, and not a file of the project
 * written: no build, no pack, no mutation run, and above all no first-use install (the local AWS's
 * virtualenv takes minutes on a fresh clone, Stryker about one). An unknown option stays refused.
 * The processes run one at a time: they are light, and the machine is shared.
 */
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.join(__dirname, '..', '..');
/** Generous: the machine is shared with heavy test runs; a help takes about a second. */
const RUN_TIMEOUT_MS = 60_000;
const CASE_TIMEOUT_MS = 2 * RUN_TIMEOUT_MS;

/** Every script a user runs by name (README, docs/, the tools' READMEs). */
const SCRIPTS = [
  'bench',
  'rehearsal',
  'campaign',
  'mutation',
  'release:check',
  'build:pq',
  'local:deploy',
  'console:screenshots',
  'local:send',
  'pq',
] as const;

/**
 * The scripts that install something on first use: the local AWS's virtualenv (bench, rehearsal
 * through on-project-node.mjs, local:deploy, console:screenshots) or Stryker (mutation).
 */
const INSTALLING = ['bench', 'rehearsal', 'local:deploy', 'console:screenshots', 'mutation'] as const;

/**
 * Folders recorded by their presence only, not walked: their contents are large and not ours, but
 * one that appears (a fresh .venv, tools/mutation/node_modules) is an install.
 */
const NOT_WALKED = new Set(['.git', 'node_modules', '.venv', '.venv-localstack', '.kafka']);
/**
 * Not looked at: what the package tests of the same `npm test` rewrite beside this file (their
 * prepack builds), and the outputs of other commands a developer may run meanwhile. A build or a
 * pack that ran anyway still shows: build:pq reports on stderr, release:check on stdout.
 */
const NOT_LOOKED_AT = new Set(['dist', 'packages/pq/dist', 'packages/pq/LICENSE', 'coverage', 'cdk.out']);

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `npm run -s SCRIPT -- ARGS` in `cwd`, on the project's Node.js as CI has it. Its own process
 * group, killed whole at the timeout: a script that runs its work after all (a build, a pack)
 * leaves nothing running.
 */
function npmRun(cwd: string, script: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const PATH = `${path.join(root, '.venv', 'node', 'bin')}${path.delimiter}${process.env.PATH ?? ''}`;
  const child = spawn('npm', ['run', '-s', script, '--', ...args], {
    cwd,
    env: { ...process.env, PATH, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return finished(child, `npm run ${script}`);
}

/** `node ARGS` in `cwd`, as npmRun runs it. */
function nodeRun(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return finished(child, `node ${args.join(' ')}`);
}

function finished(child: ReturnType<typeof spawn>, what: string): Promise<Run> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      reject(new Error(`${what}: still running after ${RUN_TIMEOUT_MS} ms, killed`));
    }, RUN_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/**
 * Every file and folder under `top` (symbolic links not followed), each with what changes when it
 * is written: its size and mtime. Compared before and after a run, rather than against the run's
 * start time, so no clock or mtime granularity is involved. A file saved from an editor during the
 * run shows as written too: the failure names it.
 */
function snapshot(top: string): Map<string, string> {
  const seen = new Map<string, string>();
  const walk = (folder: string) => {
    for (const entry of readdirSync(path.join(top, folder), { withFileTypes: true })) {
      const relative = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (NOT_LOOKED_AT.has(relative)) continue;
      if (entry.isDirectory()) {
        seen.set(relative, 'a folder');
        if (!NOT_WALKED.has(entry.name)) walk(relative);
        continue;
      }
      try {
        const stat = lstatSync(path.join(top, relative));
        seen.set(relative, `${stat.size} bytes, mtime ${stat.mtimeMs}`);
      } catch {
        // Removed since the listing: the comparison reports it missing.
      }
    }
  };
  walk('');
  return seen;
}

/** What differs between two snapshots, one line a path. */
function written(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])]
    .filter((name) => before.get(name) !== after.get(name))
    .map((name) => `${name}: ${before.get(name) ?? 'absent'} -> ${after.get(name) ?? 'absent'}`);
}

/** The run of `act`, and every path of `tops` it wrote. */
async function watched(tops: readonly string[], act: () => Promise<Run>) {
  const before = tops.map(snapshot);
  const run = await act();
  return { run, written: tops.flatMap((top, index) => written(before[index] ?? new Map(), snapshot(top))) };
}

/** The files a fresh clone must have of its own (copied), not linked: see freshClone. */
const OWN_FILES = [
  'tools/local-aws/ensure-venv.mjs',
  'tools/local-aws/on-project-node.mjs',
  'tools/mutation/run.mjs',
  'bench/main.ts',
  'local/deploy-main.ts',
  'console/dev/screenshots.ts',
];

/**
 * A fresh clone, as far as the first-use installs can tell: a folder linking every entry of the
 * project but .venv, .venv-localstack, tools/mutation/node_modules and .git. The modules that find
 * the project from their own place (ensure-venv.mjs, tools/mutation/run.mjs) and the entry
 * points that import them are copied, so that they take this folder for the project and find
 * nothing installed. Deleting the real .venv would test the same, for minutes, under everybody's
 * feet.
 */
function freshClone(): string {
  const clone = mkdtempSync(path.join(tmpdir(), 'pq-fresh-clone-'));
  const absent = new Set(['.git', '.venv', '.venv-localstack', 'tools/mutation/node_modules']);
  const fill = (folder: string) => {
    for (const name of readdirSync(path.join(root, folder))) {
      const relative = folder === '' ? name : `${folder}/${name}`;
      if (absent.has(relative)) continue;
      const [from, to] = [path.join(root, relative), path.join(clone, relative)];
      if (OWN_FILES.includes(relative)) copyFileSync(from, to);
      else if (OWN_FILES.some((file) => file.startsWith(`${relative}/`))) {
        mkdirSync(to);
        fill(relative);
      } else symlinkSync(from, to);
    }
  };
  fill('');
  return clone;
}

/**
 * In the fresh clone, an install that starts anyway fails at once instead of taking minutes: the
 * virtualenv's Python is one that does not exist, and npm may not download (an empty cache,
 * offline). The test then sees its exit code and message, and nothing is installed.
 */
function noInstallEnv(scratch: string): NodeJS.ProcessEnv {
  return {
    PYTHON: path.join(scratch, 'no-python3'),
    npm_config_offline: 'true',
    npm_config_cache: path.join(scratch, 'npm-cache'),
  };
}

describe.sequential('given `npm run -s NAME -- --help` in the project', () => {
  it.each(SCRIPTS)(
    'when NAME is %s, then its usage on stdout, exit code 0, and nothing written',
    async (script) => {
      // Act
      const { run, written } = await watched([root], () => npmRun(root, script, ['--help']));

      // Assess
      expect({ status: run.status, stderr: run.stderr }).toStrictEqual({ status: 0, stderr: '' });
      const [firstLine] = run.stdout.split('\n');
      if (script === 'pq') {
        // The operator CLI's shipped help opens with its title, then its usage.
        expect(firstLine).toMatch(/^pq - /);
        expect(run.stdout).toMatch(/^Usage: pq /m);
      } else expect(firstLine).toMatch(/^usage:/i);
      // A help speaks of the product, not of the tracker (issue 37, item 4).
      expect(run.stdout).not.toMatch(/\bissue \d+/i);
      expect(written).toStrictEqual([]);
    },
    CASE_TIMEOUT_MS,
  );
});

describe('given the scripts that make AWS SDK clients', () => {
  // The SDK warns on every process below Node.js 22 that makes a client; the launcher runs them
  // on the project's Node.js 24, the Lambda runtime's, whatever the machine's is (issue 37, item 4).
  it.each(['test', 'rehearsal', 'console:screenshots'])(
    'when %s starts, then through the launcher',
    (script) => {
      const scripts = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts as Record<
        string,
        string
      >;
      expect(scripts[script]).toMatch(/^node tools\/local-aws\/on-project-node\.mjs /);
    },
  );
});

describe.sequential('given a fresh clone (no .venv, no Stryker installed)', () => {
  let clone = '';
  let scratch = '';
  beforeAll(() => {
    clone = freshClone();
    scratch = mkdtempSync(path.join(tmpdir(), 'pq-help-scratch-'));
  });
  afterAll(() => {
    rmSync(clone, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  it(
    'when a script that needs the local AWS starts, then the ensure finds no virtualenv (and installs nothing)',
    async () => {
      // The control: without it, a help that ran the ensure would pass here unnoticed.
      // Act
      const { run, written } = await watched([clone], () =>
        nodeRun(clone, ['tools/local-aws/on-project-node.mjs', '-e', '0'], noInstallEnv(scratch)),
      );

      // Assess
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/Python >= 3\.10 is required and was not found/);
      expect(written).toStrictEqual([]);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'when the mutation run starts, then it finds no Stryker (and installs nothing)',
    async () => {
      // The control of the mutation case, as above.
      // Act
      const { run, written } = await watched([clone], () =>
        nodeRun(clone, ['tools/mutation/run.mjs', '--incremental'], noInstallEnv(scratch)),
      );

      // Assess
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/installing Stryker/);
      expect(written).toStrictEqual([]);
    },
    CASE_TIMEOUT_MS,
  );

  it.each(INSTALLING)(
    'when `npm run -s %s -- --help`, then its usage and nothing installed',
    async (script) => {
      // Act
      const { run, written } = await watched([clone, root], () =>
        npmRun(clone, script, ['--help'], noInstallEnv(scratch)),
      );

      // Assess
      expect({ status: run.status, stderr: run.stderr }).toStrictEqual({ status: 0, stderr: '' });
      expect(run.stdout).toMatch(/^usage:/i);
      expect(written).toStrictEqual([]);
    },
    CASE_TIMEOUT_MS,
  );
});

describe.sequential('given an option no script takes', () => {
  // Not mutation: its other options go to Stryker as they are, which refuses an unknown one, but
  // only once installed (on a fresh clone, a minute).
  it.each(SCRIPTS.filter((script) => script !== 'mutation'))(
    'when `npm run -s %s -- --no-such-option`, then refused on stderr, and nothing written',
    async (script) => {
      // Act
      const { run, written } = await watched([root], () => npmRun(root, script, ['--no-such-option']));

      // Assess
      expect(run.status).not.toBe(0);
      expect(run.stderr).toContain('--no-such-option');
      expect(written).toStrictEqual([]);
    },
    CASE_TIMEOUT_MS,
  );
});
