/**
 * `npm run local:deploy -- --target localstack` as a person runs it: the demo stack deployed by
 * the embedded LocalStack's CloudFormation and the runner started on it, its resources printed,
 * and at the end nothing left running and nothing left in its temporary directory.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'pq-deploy-localstack-'));

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

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
