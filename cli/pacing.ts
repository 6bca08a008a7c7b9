/**
 * `pq replay --group G --rate N`: replays start at most N a second, evenly spaced, so a group
 * sent back after a fix does not hit the consumer (and what it calls) all at once. Each start
 * waits until 1/N s after the previous one started; a send slower than that is not caught up
 * with a burst. The clock and the wait are passed in, so tests move a fake clock instead.
 */
export interface Clock {
  now(): Date;
  sleep(ms: number): Promise<void>;
}

/** A function to await before each send. */
export function pacer(perSecond: number, clock: Clock): () => Promise<void> {
  const intervalMs = 1000 / perSecond;
  let nextAt = Number.NEGATIVE_INFINITY;
  return async () => {
    const now = clock.now().getTime();
    if (now < nextAt) await clock.sleep(nextAt - now);
    nextAt = Math.max(now, nextAt) + intervalMs;
  };
}

/** How long `count` paced sends take from the first start to the last, for a person. */
export function pacedDuration(count: number, perSecond: number): string {
  const seconds = Math.ceil(Math.max(0, count - 1) / perSecond);
  return seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}
