/** Waiting on the local AWS: look every so often until a condition holds, or give up saying what. */
import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  readonly timeoutMs: number;
  /** @default 250 */
  readonly everyMs?: number;
}

/** Resolves with the time (epoch ms) of the first look that found `holds` true; throws naming `what` after the timeout. */
export async function waitUntil(
  what: string,
  holds: () => Promise<boolean> | boolean,
  { timeoutMs, everyMs = 250 }: WaitOptions,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const held = await holds();
    const at = Date.now();
    if (held) return at;
    if (at >= deadline) throw new Error(`${what}: not seen within ${Math.round(timeoutMs / 1000)} s`);
    await sleep(everyMs);
  }
}
