/**
 * `npm run local:deploy -- --keep` as a person uses it: run in a process group of its own, as a
 * terminal runs its foreground job, with a temporary directory of its own. The commands it
 * prints are run exactly as printed, in a shell that knows nothing of the local AWS; the
 * consumer's log lines about the sent messages must show up in its output; and Ctrl-C (SIGINT
 * to the whole group, as a terminal sends it), at the start or once it runs, must leave no
 * process and no temporary directory behind.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { describeProcess, processesInGroup } from '../support/processes';

const root = join(__dirname, '..', '..');

interface Deploy {
  readonly child: ChildProcess;
  readonly tmp: string;
  readonly exited: Promise<void>;
  output(): string;
}

const started: Deploy[] = [];

function startDeploy(): Deploy {
  const tmp = mkdtempSync(join(tmpdir(), 'pq-try-out-test-'));
  const child = spawn('npm', ['run', '-s', 'local:deploy', '--', '--keep'], {
    cwd: root,
    env: { ...process.env, TMPDIR: tmp },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deploy = { child, tmp, exited, output: () => output };
  started.push(deploy);
  return deploy;
}

/** Ctrl-C in a terminal: SIGINT to every process of the foreground job. */
function pressCtrlC(deploy: Deploy): void {
  process.kill(-(deploy.child.pid as number), 'SIGINT');
}

/** Processes still alive in the group, each as `PID (name)`. */
function liveInGroup(pgid: number): string[] {
  return processesInGroup(pgid).map(describeProcess);
}

/** Temporary directories the deploy made; node's and tsx's own caches are not ours. */
function leftInTmp(deploy: Deploy): string[] {
  return readdirSync(deploy.tmp).filter((name) => name !== 'node-compile-cache' && !name.startsWith('tsx-'));
}

async function until<T>(
  what: string,
  read: () => T | undefined,
  timeoutMs: number,
  deploy: Deploy,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline || deploy.child.exitCode !== null) {
      throw new Error(`no ${what} within ${timeoutMs} ms; the deploy printed:\n${deploy.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Ctrl-C, then the wait until npm and every process of its group ended. */
async function stopsCleanly(deploy: Deploy): Promise<void> {
  const pgid = deploy.child.pid as number;
  pressCtrlC(deploy);
  await deploy.exited;
  // The last of the group (esbuild's service, which ends when its parent's pipe closes) may trail.
  const deadline = Date.now() + 5_000;
  while (liveInGroup(pgid).length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

afterEach(() => {
  // A failed test must not leave its deploy running.
  for (const deploy of started) {
    if (deploy.child.exitCode === null && deploy.child.signalCode === null) {
      process.kill(-(deploy.child.pid as number), 'SIGKILL');
    }
  }
});
afterAll(() => {
  for (const deploy of started) rmSync(deploy.tmp, { recursive: true, force: true });
});

describe('npm run local:deploy -- --keep', () => {
  it('given a kept deployment, then its printed commands run as printed, the consumer logs what they sent, and Ctrl-C leaves nothing behind', async () => {
    // Prepare
    const deploy = startDeploy();
    const printed = await until(
      'commands to try',
      () => deploy.output().match(/^Try it from another terminal.*\n\n((?: {2}.*\n)+)\n/m)?.[1],
      60_000,
      deploy,
    );
    const commands = printed.split('\n').flatMap((line) => (line ? [line.slice(2)] : []));
    // A shell that knows nothing of the local AWS, elsewhere than the project.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(AWS_|PQ_)/.test(name)));

    // Act
    const shell = spawnSync('sh', ['-e'], {
      input: `${commands.join('\n')}\n`,
      cwd: deploy.tmp,
      env,
      encoding: 'utf8',
      timeout: 45_000,
    });

    // Assess
    expect({ status: shell.status, stderr: shell.stderr }).toStrictEqual({ status: 0, stderr: '' });
    const sent = [...shell.stdout.matchAll(/^sent (\S+) to /gm)].map((match) => match[1]);
    expect(sent).toHaveLength(2);
    expect(shell.stdout).toMatch(/^Breaker: +closed/m);
    const [healthy, broken] = sent;
    const logged = (pattern: RegExp) =>
      deploy
        .output()
        .split('\n')
        .some((line) => pattern.test(line));
    await until(
      "the consumer's log lines about both messages",
      () =>
        logged(
          new RegExp(
            `^env-\\d+ .*DEBUG record processed .*"messageId":"${healthy}","outcome":\\{"kind":"completed"`,
          ),
        ) &&
        logged(
          new RegExp(
            `^env-\\d+ .*WARN message quarantined .*"reason":"permanent-error","messageId":"${broken}"`,
          ),
        )
          ? true
          : undefined,
      20_000,
      deploy,
    );

    // Act
    await stopsCleanly(deploy);

    // Assess
    expect(deploy.output()).toMatch(/^Stopping the runner and the local AWS \.\.\.$/m);
    expect(liveInGroup(deploy.child.pid as number)).toStrictEqual([]);
    expect(leftInTmp(deploy)).toStrictEqual([]);
  }, 120_000);

  it('given Ctrl-C during the start, once its cloud assembly exists, then nothing is left behind', async () => {
    // Prepare
    const deploy = startDeploy();
    await until(
      'cloud assembly',
      () => (leftInTmp(deploy).some((name) => name.startsWith('pq-cdk-out-')) ? true : undefined),
      30_000,
      deploy,
    );

    // Act
    await stopsCleanly(deploy);

    // Assess
    expect(deploy.output()).toMatch(/^Interrupted: everything started was stopped\.$/m);
    expect(liveInGroup(deploy.child.pid as number)).toStrictEqual([]);
    expect(leftInTmp(deploy)).toStrictEqual([]);
  }, 60_000);
});
