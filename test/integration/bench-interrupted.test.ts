/**
 * Issue 21, item 6: a Ctrl-C stops every process the command started. The bench's outage
 * section runs the local AWS and the consumer's environments; interrupted in the middle, none
 * of them may be left. The bench runs detached, so that its processes are told apart by their
 * process group (the consumer's environments get Lambda's environment, not the test's mark) and
 * by the mark (a process that leaves the group keeps it).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leftAfter, processesInGroup, processesMarked } from '../support/processes';

const ROOT = join(__dirname, '..', '..');

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return true;
}

describe('given the bench is measuring in the local AWS', () => {
  it('when it gets SIGINT, then it ends and nothing it started is left', async () => {
    const mark = randomUUID();
    const bench = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'bench', 'main.ts'), '--only', 'outage'],
      {
        cwd: ROOT,
        env: { ...process.env, PQ_LEFTOVER_MARK: mark },
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true,
      },
    );
    const pgid = bench.pid as number;
    let stderr = '';
    bench.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const everything = () => [...new Set([...processesMarked(mark), ...processesInGroup(pgid)])];
    try {
      // Under way: the section started, and the bench has children (the local AWS, environments).
      expect(
        await until(() => stderr.includes('outage (1 of 1)') && everything().length >= 3, 120_000),
        stderr,
      ).toBe(true);

      bench.kill('SIGINT');
      await once(bench, 'exit', { signal: AbortSignal.timeout(60_000) });

      expect(await leftAfter(mark, 30_000)).toStrictEqual([]);
      expect(
        await until(() => processesInGroup(pgid).length === 0, 30_000),
        'the process group emptied',
      ).toBe(true);
    } finally {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }, 240_000);
});
