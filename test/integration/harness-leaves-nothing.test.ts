/**
 * Issue 21, item 7: a suite whose setup times out must leave no process behind. Vitest fails the
 * hook and goes on, but the setup's promise still runs, and what it started (a local AWS, any
 * child) outlives the worker unless something kills it. `npm test`'s launcher
 * (tools/local-aws/on-project-node.mjs) runs the test process in a process group of its own and
 * kills that group when it ends. The fixture's processes are found by a mark in their environment,
 * which children inherit.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leftAfter, processesMarked } from '../support/processes';

const ROOT = join(__dirname, '..', '..');
const FIXTURE = join(__dirname, 'fixtures', 'setup-times-out');

/** The test process as `npm test` starts it, its environment marked; its output collected. */
function launch(mark: string, extraEnv: Record<string, string> = {}) {
  const [name, value] = mark.split('=') as [string, string];
  const run = spawn(
    process.execPath,
    [
      join(ROOT, 'tools', 'local-aws', 'on-project-node.mjs'),
      join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--config',
      join(FIXTURE, 'vitest.config.mts'),
    ],
    { cwd: ROOT, env: { ...process.env, ...extraEnv, [name]: value }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output = { text: '' };
  run.stdout?.on('data', (chunk) => {
    output.text += chunk;
  });
  run.stderr?.on('data', (chunk) => {
    output.text += chunk;
  });
  return { run, output };
}

describe('given a suite whose setup starts processes, then hangs', () => {
  it('when its hook times out and the run ends, then nothing it started is left', async () => {
    const mark = `PQ_LEFTOVER_MARK=${randomUUID()}`;
    const { run, output } = launch(mark);
    try {
      const [code] = (await once(run, 'exit', { signal: AbortSignal.timeout(120_000) })) as [number | null];

      // The run failed on its hook timeout, as it should; what it started must be gone.
      expect(code, output.text).not.toBe(0);
      expect(output.text).toMatch(/Hook timed out/);
      expect(await leftAfter(mark, 30_000)).toStrictEqual([]);
    } finally {
      for (const pid of processesMarked(mark)) process.kill(pid, 'SIGKILL');
    }
  }, 180_000);

  it('when a Ctrl-C (SIGINT) reaches the launcher, then the run stops and nothing it started is left', async () => {
    const mark = `PQ_LEFTOVER_MARK=${randomUUID()}`;
    const { run, output } = launch(mark, { HANGS_HOOK_TIMEOUT_MS: '600000' });
    try {
      // Once the local AWS answers and the child runs, as a person would press Ctrl-C.
      const deadline = Date.now() + 120_000;
      while (!output.text.includes('setup: started everything') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(output.text).toContain('setup: started everything');
      run.kill('SIGINT');
      // Bounded, so that a launcher that ignores it fails here and the cleanup below still runs.
      await once(run, 'exit', { signal: AbortSignal.timeout(60_000) });

      expect(await leftAfter(mark, 30_000)).toStrictEqual([]);
    } finally {
      run.kill('SIGKILL');
      for (const pid of processesMarked(mark)) process.kill(pid, 'SIGKILL');
    }
  }, 180_000);
});
