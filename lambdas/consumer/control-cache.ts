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
    return this.refresh();
  }

  /** A read now, kept: a failure asks whether another environment paused consumption since. */
  async refresh(): Promise<ControlSnapshot> {
    const at = this.now().getTime();
    this.cached = { at, snapshot: await this.control.snapshot() };
    return this.cached.snapshot;
  }

  /** Forget the snapshot after this environment changed the state itself. */
  invalidate(): void {
    this.cached = undefined;
  }

  /**
   * After an outage pause: an outage only trips a closed breaker, so a snapshot that shows it
   * open is still what the table holds, and the next batch need not read it again (at 1,000
   * environments that second read would be one per failing environment, docs/scale.md).
   */
  invalidateUnlessOpen(): void {
    if (this.cached?.snapshot.breaker?.state !== BREAKER_STATE.open) this.invalidate();
  }
}
