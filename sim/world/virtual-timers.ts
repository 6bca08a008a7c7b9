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
  /** Whether its owner can still hear it: a dead environment's timer is dropped, not fired. */
  readonly live: () => boolean;
}

export class VirtualTimers {
  private readonly pending = new Set<Timer>();
  private pumping = false;

  constructor(private readonly clock: Clock) {}

  /**
   * Resolves once virtual time reaches now + `ms`, unless `signal` aborts first or `live` says no
   * when it is due (it then never settles). Plain signals only: a composite one (AbortSignal.any)
   * with a listener is kept by Node until it aborts, and with it the whole world.
   */
  after(ms: number, signal: AbortSignal, live: () => boolean = () => true): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return;
      const timer: Timer = { at: this.clock.now() + Math.max(0, ms), fire: resolve, live };
      this.pending.add(timer);
      signal.addEventListener('abort', () => this.pending.delete(timer), { once: true });
      this.pumpWhenIdle();
    });
  }

  /** Timers still waiting to fire. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /**
   * The world is done with: its timers never fire. A long run of worlds (the campaign) may not
   * let the event loop idle between them, and a timer left pending would keep its world alive.
   */
  clear(): void {
    this.pending.clear();
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
      if (next.live()) {
        this.clock.advanceTo(next.at);
        next.fire();
      }
      if (this.pending.size > 0) this.pumpWhenIdle();
    });
  }
}
