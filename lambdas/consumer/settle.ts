/**
 * Settle writes end an attempt whose work already ran (its completion, an external call's
 * result, a failure's counters, the record of a lost completion). Losing one would redo or
 * charge work that is over, so each is retried while the invocation has time; only a table
 * being unavailable is retried, never a refused condition (another attempt owns the item).
 */
import { isOwnTableUnavailable } from '../ports/errors';
import type { ConsumerDeps } from './deps';

const TRIES = 4;
const FIRST_DELAY_MS = 100;
/** Never sleep into the last second of the invocation: the record must still be answered. */
const RESERVE_MS = 1000;

export async function settleWrite<T>(
  deps: Pick<ConsumerDeps, 'sleep'>,
  remainingTimeMs: () => number,
  write: () => Promise<T>,
): Promise<T> {
  let delay = FIRST_DELAY_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!isOwnTableUnavailable(error) || attempt >= TRIES || remainingTimeMs() < delay + RESERVE_MS)
        throw error;
      await deps.sleep(delay);
      delay *= 2;
    }
  }
}
