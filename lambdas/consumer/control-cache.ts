/**
 * The breaker and isolation state, read once per `controlCacheSeconds` per execution
 * environment (one BatchGetItem), never per message.
 */
import type { ControlSnapshot } from '../adapters/control-state';
import type { ControlPort } from './ports';

export class ControlCache {
  private cached?: { readonly at: number; readonly snapshot: ControlSnapshot };

  constructor(
    private readonly control: ControlPort,
    private readonly ttlMs: number,
    private readonly now: () => Date,
  ) {}

  async get(): Promise<ControlSnapshot> {
    const at = this.now().getTime();
    if (!this.cached || at - this.cached.at >= this.ttlMs) {
      this.cached = { at, snapshot: await this.control.snapshot() };
    }
    return this.cached.snapshot;
  }

  /** A fresh read, whatever the cache holds (a paused consumer checks before it refuses work). */
  async refresh(): Promise<ControlSnapshot> {
    this.invalidate();
    return this.get();
  }

  /** Forget the snapshot after this environment changed the state itself. */
  invalidate(): void {
    this.cached = undefined;
  }
}
