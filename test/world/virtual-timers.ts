/**
 * Timers on the world's virtual clock. The world runs on promises alone, so once every microtask
 * has run (a `setImmediate` callback comes after them) nothing can happen but a timer: time then
 * jumps to the earliest one and it fires. A hanging call thus meets its invocation's deadline,
 * and a consumer's own alarm before it, without real waiting.
 */
import type { Clock } from './clock';

interface Timer {
  readonly at: number;
  readonly fire: () => void;
}

export class VirtualTimers {
  private readonly pending = new Set<Timer>();
  private pumping = false;

  constructor(private readonly clock: Clock) {}

  /** Resolves once virtual time reaches now + `ms`, unless `signal` aborts first (it then never settles). */
  after(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return;
      const timer: Timer = { at: this.clock.now() + Math.max(0, ms), fire: resolve };
      this.pending.add(timer);
      signal.addEventListener('abort', () => this.pending.delete(timer), { once: true });
      this.pumpWhenIdle();
    });
  }

  private pumpWhenIdle(): void {
    if (this.pumping) return;
    this.pumping = true;
    setImmediate(() => {
      this.pumping = false;
      const next = [...this.pending].reduce<Timer | undefined>(
        (earliest, timer) => (earliest === undefined || timer.at < earliest.at ? timer : earliest),
        undefined,
      );
      if (next === undefined) return;
      this.pending.delete(next);
      this.clock.advanceTo(next.at);
      next.fire();
      if (this.pending.size > 0) this.pumpWhenIdle();
    });
  }
}
