/**
 * The breaker and isolation state, read once per `controlCacheSeconds` per execution
 * environment (one BatchGetItem), never per message; sooner while the breaker is not closed
 * (`controlMaxAgeMs`).
 */

import { BREAKER_STATE } from '../../contract/control';
import { controlMaxAgeMs } from '../core/breaker';
import type { ControlPort } from '../ports/consumer-ports';
import type { ControlSnapshot } from '../ports/control';

export class ControlCache {
  private cached?: { readonly at: number; readonly snapshot: ControlSnapshot };

  constructor(
    private readonly control: ControlPort,
    private readonly ttlMs: number,
    private readonly now: () => Date,
  ) {}

  /** The cached snapshot while it is as fresh as the breaker it shows requires, else a new read. */
  async get(): Promise<ControlSnapshot> {
    const at = this.now().getTime();
    const cached = this.cached;
    if (cached && at - cached.at < controlMaxAgeMs(cached.snapshot.breaker, at, this.ttlMs)) {
      return cached.snapshot;
    }
    return this.read(() => true);
  }

  /**
   * A read now: a failure asks whether another environment paused consumption since. Kept only
   * when it shows the breaker open: a failure that finds it closed says an outage may be starting,
   * and another environment may trip it at any moment, so this environment's next batch reads it
   * again instead of trusting a closed snapshot for the cache period (it would start records, and
   * their calls, into the outage).
   */
  refresh(): Promise<ControlSnapshot> {
    // Dropped first: a read that fails leaves no closed snapshot behind either.
    this.cached = undefined;
    return this.read((snapshot) => snapshot.breaker?.state === BREAKER_STATE.open);
  }

  private async read(keep: (snapshot: ControlSnapshot) => boolean): Promise<ControlSnapshot> {
    const at = this.now().getTime();
    const snapshot = await this.control.snapshot();
    this.cached = keep(snapshot) ? { at, snapshot } : undefined;
    return snapshot;
  }

  /** Forget the snapshot after this environment changed the state itself. */
  invalidate(): void {
    this.cached = undefined;
  }
}
