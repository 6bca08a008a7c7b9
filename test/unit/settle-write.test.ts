/**
 * consumer/settle.ts: a settle write is retried while our own table is unavailable, four tries at
 * most, the wait doubling from 100 ms, never into the invocation's last second; any other error
 * (a refused condition) is thrown at once. Mutation testing found the bounds unpinned.
 */
import { describe, expect, it } from 'vitest';
import { settleWrite } from '../../lambdas/consumer/settle';
import { LedgerUnavailableError, StaleAttemptError } from '../../lambdas/ports/errors';

function failing(times: number, error: () => Error = () => new LedgerUnavailableError('throttled')) {
  let calls = 0;
  const write = async () => {
    calls += 1;
    if (calls <= times) throw error();
    return 'written';
  };
  return { write, calls: () => calls };
}

function sleeper() {
  const waits: number[] = [];
  return { deps: { sleep: async (ms: number) => void waits.push(ms) }, waits };
}

describe('settleWrite', () => {
  it('given three unavailable tries, then the fourth writes, after waits of 100, 200 and 400 ms', async () => {
    const { deps, waits } = sleeper();
    const write = failing(3);
    await expect(settleWrite(deps, () => 60_000, write.write)).resolves.toBe('written');
    expect(write.calls()).toBe(4);
    expect(waits).toEqual([100, 200, 400]);
  });

  it('given four unavailable tries, then the fourth error is thrown and no fifth try is made', async () => {
    const { deps, waits } = sleeper();
    const write = failing(4);
    await expect(settleWrite(deps, () => 60_000, write.write)).rejects.toBeInstanceOf(LedgerUnavailableError);
    expect(write.calls()).toBe(4);
    expect(waits).toEqual([100, 200, 400]);
  });

  it('given a refused condition, then it is thrown at once, untried again', async () => {
    const { deps, waits } = sleeper();
    const write = failing(1, () => new StaleAttemptError('another attempt owns it', undefined));
    await expect(settleWrite(deps, () => 60_000, write.write)).rejects.toBeInstanceOf(StaleAttemptError);
    expect([write.calls(), waits]).toEqual([1, []]);
  });

  it.each([
    [1100, 2],
    [1099, 1],
  ])('given %i ms left, then the tries it has time for: %i', async (left, tries) => {
    // The first wait (100 ms) needs 100 ms plus the last second kept back: 1100 ms.
    const { deps } = sleeper();
    const write = failing(4);
    await expect(settleWrite(deps, () => left, write.write)).rejects.toBeInstanceOf(LedgerUnavailableError);
    expect(write.calls()).toBe(tries);
  });
});
