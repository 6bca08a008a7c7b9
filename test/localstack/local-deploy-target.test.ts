/**
 * `npm run local:deploy -- --target localstack` as a person runs it: the demo stack deployed by
 * the embedded LocalStack's CloudFormation and the runner started on it, its resources printed,
 * and at the end nothing left running and nothing left in its temporary directory. With
 * --endpoint-url, the stack deployed into a LocalStack of the user's own and left there.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, LOCAL_CREDENTIALS } from '../../tools/local-aws/moto';
import { ensureLocalStack } from '../../tools/localstack/ensure-localstack.mjs';
import { startLocalStack } from '../../tools/localstack/localstack';
import { runCliCaptured } from '../support/run-cli';

const root = join(__dirname, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'pq-deploy-localstack-'));

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The same, without blocking this process: a LocalStack it started must keep answering. */
function localDeployAsync(...args: string[]) {
  return promisify(execFile)('npm', ['run', '-s', 'local:deploy', '--', ...args], {
    cwd: root,
    env: { ...process.env, TMPDIR: tmp },
    encoding: 'utf8',
    timeout: 1_200_000,
  }).then(
    ({ stdout, stderr }) => ({ status: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      status: error.code ?? -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  );
}

function localDeploy(...args: string[]) {
  return spawnSync('npm', ['run', '-s', 'local:deploy', '--', ...args], {
    cwd: root,
    env: { ...process.env, TMPDIR: tmp },
    encoding: 'utf8',
    timeout: 1_200_000,
  });
}

/** What this project made in `dir` (pq-*), not the caches of tsx and Node.js. */
function ours(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.startsWith('pq-'));
}

/** Processes whose working directory is inside `dir` (LocalStack runs in its own, under TMPDIR). */
function processesIn(dir: string): string[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`).startsWith(dir);
      } catch {
        return false;
      }
    });
}

describe('npm run local:deploy -- --target localstack', () => {
  it('deploys the demo stack through LocalStack, prints it, and leaves nothing behind', () => {
    const run = localDeploy('--target', 'localstack');

    expect(run.stderr.split('\n').filter((line) => line.startsWith('local:deploy failed'))).toStrictEqual([]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^AWS::Lambda::Function\s+\S+\s+\S+$/m);
    expect(run.stdout).toMatch(/^AWS::SQS::Queue\s+\S+\s+http:\/\/127\.0\.0\.1:\d+\/\S+$/m);
    expect(run.stdout).toMatch(/^LocalStack: +http:\/\/127\.0\.0\.1:\d+ \(region us-east-1\)$/m);
    expect(run.stdout).toMatch(/^Consumer: +\S+ \(run by the local event-source runner\)$/m);
    expect(processesIn(tmp)).toStrictEqual([]);
    expect(ours(tmp)).toStrictEqual([]);
  }, 1_200_000);

  it('given a kept deployment, when Ctrl-C comes, then LocalStack, moto and the runner stop and nothing is left', async () => {
    // Prepare: run as a terminal runs its foreground job, in a process group of its own.
    const child = spawn('npm', ['run', '-s', 'local:deploy', '--', '--keep', '--target', 'localstack'], {
      cwd: root,
      env: { ...process.env, TMPDIR: tmp },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      const deadline = Date.now() + 600_000;
      while (
        !output.includes('Ctrl-C stops everything') &&
        child.exitCode === null &&
        Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(output).toContain('Ctrl-C stops everything');
      expect(processesIn(tmp).length).toBeGreaterThan(0);

      // Act: Ctrl-C, SIGINT to every process of the foreground job (LocalStack has a group of its own).
      process.kill(-(child.pid as number), 'SIGINT');
      await exited;

      // Assess
      expect(output).toContain('Stopping the runner and the local AWS');
      expect(processesIn(tmp)).toStrictEqual([]);
      expect(ours(tmp)).toStrictEqual([]);
    } finally {
      if (child.exitCode === null && child.signalCode === null)
        process.kill(-(child.pid as number), 'SIGKILL');
    }
  }, 900_000);

  it('given a target it does not know, then a usage error naming it, and nothing started', () => {
    const run = localDeploy('--target', 'elsewhere');

    expect(run.status).toBe(2);
    expect(run.stderr).toContain('local:deploy: --target must be moto or localstack, not elsewhere');
    expect(ours(tmp)).toStrictEqual([]);
  });
});

describe('npm run local:deploy -- --target localstack --endpoint-url URL (your own LocalStack)', () => {
  it('deploys into the LocalStack at URL, prints commands that work on it, and leaves it running', async () => {
    // Prepare: a LocalStack that is not ours to stop, as a user's Docker container is.
    ensureLocalStack();
    const theirs = await startLocalStack();
    try {
      // Act
      const run = await localDeployAsync('--target', 'localstack', '--endpoint-url', theirs.endpoint);

      // Assess
      // CDK's own progress (Bundling asset ...) aside, nothing on stderr.
      expect(
        run.stderr.split('\n').filter((line) => line && !line.startsWith('Bundling asset')),
      ).toStrictEqual([]);
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/^AWS::Lambda::EventSourceMapping\s+\S+\s+[0-9a-f-]{36}$/m);
      expect(run.stdout).toContain(`LocalStack:     ${theirs.endpoint} (region us-east-1)`);
      const consumer = /^Consumer: +(\S+) \(run by your LocalStack's Lambda\)$/m.exec(run.stdout)?.[1];
      expect(run.stdout).toContain(`npm run -s pq -- status --function ${consumer}`);
      const health = await fetch(`${theirs.endpoint}/_localstack/health`);
      expect(health.ok).toBe(true);
      process.env.AWS_ACCESS_KEY_ID = LOCAL_CREDENTIALS.accessKeyId;
      process.env.AWS_SECRET_ACCESS_KEY = LOCAL_CREDENTIALS.secretAccessKey;
      const status = await runCliCaptured([
        ...[
          'status',
          '--function',
          String(consumer),
          '--endpoint-url',
          theirs.endpoint,
          '--region',
          theirs.region,
        ],
      ]);
      expect(status).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Mapping: +Enabled/m) });
      expect(ours(tmp)).toStrictEqual([]);
    } finally {
      await theirs.stop();
    }
  }, 900_000);

  it('given a URL where no LocalStack answers, then it says so and deploys nothing', async () => {
    const port = await freePort();

    const run = localDeploy('--target', 'localstack', '--endpoint-url', `http://127.0.0.1:${port}`);

    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      `local:deploy: no LocalStack answers at http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    );
    expect(ours(tmp)).toStrictEqual([]);
  });

  it('given --keep, then a usage error: nothing of ours would run to keep', () => {
    const run = localDeploy('--keep', '--target', 'localstack', '--endpoint-url', 'http://127.0.0.1:4566');

    expect(run.status).toBe(2);
    expect(run.stderr).toContain('local:deploy: --keep has nothing to keep with --endpoint-url');
  });
});
