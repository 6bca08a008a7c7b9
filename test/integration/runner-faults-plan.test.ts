/**
 * The fault plan the runner's execution environments share (local/faults/shared-plan.ts): real
 * Node processes, as the runner forks them, race for a fault's slots in one run directory, and a
 * crash fault SIGKILLs the process that drew it once, not every fresh one after it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type FaultSpec, firings, SharedFaultPlan, writeFaultPlan } from '../../local/faults/shared-plan';

const TSX_LOADER = pathToFileURL(require.resolve('tsx')).href;
const PLAN_MODULE = join(__dirname, '..', '..', 'local', 'faults', 'shared-plan.ts');

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function planDir(faults: readonly FaultSpec[]): string {
  dir = mkdtempSync(join(tmpdir(), 'pq-fault-plan-'));
  writeFaultPlan(dir, faults);
  return dir;
}

/**
 * A process that opens the plan, learns that key-1 is M1, asks for a fault at ledger.start
 * `calls` times (crashing for real when told to) and prints what it drew.
 */
function askingProcess(run: string, calls: number) {
  const code = `
    const { SharedFaultPlan } = require(${JSON.stringify(PLAN_MODULE)});
    const plan = new SharedFaultPlan(${JSON.stringify(run)});
    plan.learnLabel('key-1', 'M1');
    const drawn = [];
    for (let call = 0; call < ${calls}; call += 1) {
      const kind = plan.faultFor({ point: 'ledger.start', key: 'key-1' });
      if (kind === 'crash') void plan.crash();
      drawn.push(kind ?? null);
    }
    process.stdout.write(JSON.stringify(drawn));
  `;
  const child = spawn(process.execPath, ['--import', TSX_LOADER, '-e', code], { stdio: 'pipe' });
  let stdout = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  return new Promise<{ drawn: (string | null)[]; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (_code, signal) => resolve({ drawn: stdout ? JSON.parse(stdout) : [], signal })),
  );
}

describe('a fault plan shared by processes', () => {
  it('fires a fault exactly its times in total when four processes race for it', async () => {
    // Prepare
    const run = planDir([{ at: 'ledger.start', error: 'throttle', times: 3, message: 'M1' }]);
    // Act
    const results = await Promise.all([1, 2, 3, 4].map(() => askingProcess(run, 5)));
    // Assess
    const drawn = results.flatMap((result) => result.drawn);
    expect(drawn).toHaveLength(20);
    expect(drawn.filter((kind) => kind === 'throttle')).toHaveLength(3);
    expect(firings(run, [{ at: 'ledger.start', error: 'throttle', times: 3 }])).toStrictEqual([3]);
  }, 30_000);

  it('kills the process that draws a crash, once: the next process is spared', async () => {
    const run = planDir([{ at: 'ledger.start', error: 'crash', times: 1 }]);

    const first = await askingProcess(run, 1);
    const second = await askingProcess(run, 1);

    expect(first).toStrictEqual({ drawn: [], signal: 'SIGKILL' });
    expect(second).toStrictEqual({ drawn: [null], signal: null });
  }, 30_000);
});

describe('which calls a fault matches', () => {
  it('fires a message-restricted fault only on keys learnt for that label', () => {
    const plan = new SharedFaultPlan(
      planDir([{ at: 'ledger.complete', error: 'server-error', times: 5, message: 'M1' }]),
    );
    plan.learnLabel('key-2', 'M2');
    plan.learnLabel('key-1', 'M1');

    expect(plan.faultFor({ point: 'ledger.complete', key: 'key-2' })).toBeUndefined();
    expect(plan.faultFor({ point: 'ledger.complete', key: 'unknown' })).toBeUndefined();
    expect(plan.faultFor({ point: 'ledger.complete' })).toBeUndefined();
    expect(plan.faultFor({ point: 'ledger.start', key: 'key-1' })).toBeUndefined();
    expect(plan.faultFor({ point: 'ledger.complete', key: 'key-1' })).toBe('server-error');
  });

  it('tries faults in plan order, moving on once one has used its times', () => {
    const faults: FaultSpec[] = [
      { at: 'control.snapshot', error: 'throttle', times: 1 },
      { at: 'control.snapshot', error: 'access-denied', times: 2 },
    ];
    const run = planDir(faults);
    const plan = new SharedFaultPlan(run);

    const drawn = [1, 2, 3, 4].map(() => plan.faultFor({ point: 'control.snapshot' }));

    expect(drawn).toStrictEqual(['throttle', 'access-denied', 'access-denied', undefined]);
    expect(firings(run, faults)).toStrictEqual([1, 2]);
  });
});
