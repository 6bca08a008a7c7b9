/**
 * Issue 21, item 7: after a CI run whose suites hit hook timeouts, six moto servers were still
 * running, parented to init: a worker killed before its afterAll never stopped them. The server
 * now goes with the process that started it, however that process ends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';

const FIXTURE = join(__dirname, 'support', 'moto-then-wait.ts');

async function endpointOf(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const [line] = (await once(lines, 'line')) as [string];
  lines.close();
  return line;
}

async function answers(endpoint: string): Promise<boolean> {
  try {
    await fetch(`${endpoint}/moto-api/data.json`, { signal: AbortSignal.timeout(2_000) });
    return true;
  } catch {
    return false;
  }
}

/** Polls until the server stops answering; generous, as a loaded machine is slow to reap. */
async function goneWithin(endpoint: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!(await answers(endpoint))) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

describe('the embedded local AWS goes with the process that started it', () => {
  it.each([['SIGKILL'], ['SIGTERM']] as const)(
    'given the process is killed with %s before it stops the server, then the server exits too',
    async (signal) => {
      // Prepare
      const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      try {
        const endpoint = await endpointOf(child);
        expect(await answers(endpoint)).toBe(true);

        // Act
        child.kill(signal);
        await once(child, 'exit');

        // Assess
        expect(await goneWithin(endpoint, 30_000)).toBe(true);
      } finally {
        child.kill('SIGKILL');
      }
    },
    180_000,
  );
});
