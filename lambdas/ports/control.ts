/** What the control table's port reads for the consumer (lambdas/adapters/control-state.ts). */
import type { BreakerReading } from '../core/breaker';
import type { IsolationTrial } from '../core/isolation';

/** What the consumer caches for a few seconds per execution environment. */
export interface ControlSnapshot {
  readonly breaker: BreakerReading | undefined;
  readonly isolation: IsolationTrial | undefined;
  readonly replayFrozen: boolean;
}
