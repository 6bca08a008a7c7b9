/**
 * The order in which ready awaits resume, drawn from a seed. Every call through a port yields a
 * drawn number of turns of the microtask queue before it runs and again before it answers, so
 * the awaits of concurrent work (two invocations at once, records in flight side by side, the
 * user's concurrent calls) resume in an order the seed chooses, not always in the order they were
 * made. Only microtasks: the world's virtual timers fire once the microtasks are done, so time
 * still moves only when nothing else can run. The same seed gives the same order.
 * The turns before a call are the caller's own time (the request is not sent yet): a worker that
 * dies then never sends it. The turns after it are the answer's way back: the call has acted,
 * and a worker that dies then never hears of it.
 */
import type { ConsumerPorts } from '../../lambdas/ports/consumer-ports';

/** The most turns one yield waits: enough for a call to overtake several steps of another. */
const MAX_TURNS = 6;

export function withInterleavings(
  ports: ConsumerPorts,
  random: () => number,
  alive: () => boolean,
): ConsumerPorts {
  const turns = () => Math.floor(random() * (MAX_TURNS + 1));
  return {
    ledger: interleaved(ports.ledger, turns, alive),
    control: interleaved(ports.control, turns, alive),
    quarantine: interleaved(ports.quarantine, turns, alive),
    operations: interleaved(ports.operations, turns, alive),
    queue: interleaved(ports.queue, turns, alive),
  };
}

function interleaved<T extends object>(port: T, turns: () => number, alive: () => boolean): T {
  return new Proxy(port, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await yieldTurns(turns());
        if (!alive()) return new Promise<never>(() => undefined);
        const answer: unknown = await value.apply(target, args);
        await yieldTurns(turns());
        return answer;
      };
    },
  });
}

async function yieldTurns(count: number): Promise<void> {
  for (let turn = 0; turn < count; turn++) await Promise.resolve();
}
