/**
 * Issue 21, item 6: `pq list | head -1`, `npm run bench | head`: a reader that goes away stops
 * the command quietly (cli/broken-pipe.ts), with a shell's SIGPIPE status, not a stack trace.
 * Each entry point is run with its stdout closed before it writes a byte.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BROKEN_PIPE_EXIT } from '../../cli/broken-pipe';

const ROOT = join(__dirname, '..', '..');

/** Entry points and arguments that print to stdout without touching AWS. */
const ENTRY_POINTS: readonly (readonly [string, readonly string[]])[] = [
  ['bin/pq.ts', ['--help']],
  ['bench/main.ts', ['--help']],
  ['sim/campaign/main.ts', ['--list-fault-points']],
  ['local/rehearsal/main.ts', ['--help']],
  ['local/deploy-main.ts', ['--help']],
];

describe('given the reader of stdout is gone', () => {
  it.each(ENTRY_POINTS)(
    'when %s %s writes, then it exits 141 and says nothing',
    async (entry, args) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, entry), ...args], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // As `| head -1` does once it has its line: the read end closes.
      child.stdout?.destroy();
      let stderr = '';
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
      });

      const [code] = (await once(child, 'exit')) as [number | null];

      expect({ code, stderr }).toStrictEqual({ code: BROKEN_PIPE_EXIT, stderr: '' });
    },
    60_000,
  );
});
