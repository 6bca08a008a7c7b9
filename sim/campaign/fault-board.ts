/**
 * The faults a schedule has armed, asked by the world at every port call (World's `faultFor`):
 * SDK faults at named points that fire a stated number of times, an outage of our own attempts
 * table (every `ledger.*` call throttled until a virtual time), and the outside system's outage,
 * which the observed processor asks before each external call. Every firing is traced.
 */
import type { FaultKind, FaultPoint } from '../faults/fault-points';
import type { FaultCall } from '../faults/inject';
import type { Clock } from '../world/clock';
import type { MemoryLedger } from '../world/memory-ledger';
import { keyGeneration, type Trace } from './trace';

interface ArmedFault {
  readonly point: FaultPoint;
  readonly kind: FaultKind;
  readonly key?: string;
  remaining: number;
}

/** Faults that fail the call; the crash kinds kill the worker instead (not a table failure). */
const CRASHES: ReadonlySet<FaultKind> = new Set(['crash', 'crash-after-send']);
/** Faults after which the call did land. */
const LANDS: ReadonlySet<FaultKind> = new Set(['timeout-after-send', 'crash-after-send']);

export class FaultBoard {
  private armed: ArmedFault[] = [];
  private tableOutageUntil = Number.NEGATIVE_INFINITY;
  private outside: { readonly mode: 'refused' | 'hanging'; readonly until: number } | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly trace: Trace,
    private readonly ledger: MemoryLedger,
  ) {}

  arm(point: FaultPoint, kind: FaultKind, times: number, key?: string): void {
    this.armed.push({ point, kind, remaining: times, ...(key === undefined ? {} : { key }) });
  }

  tableOutage(seconds: number): void {
    this.tableOutageUntil = this.clock.now() + seconds * 1000;
    this.trace.outages.push({ by: 'own', start: this.clock.now(), end: this.tableOutageUntil });
  }

  outsideOutage(mode: 'refused' | 'hanging', seconds: number): void {
    this.outside = { mode, until: this.clock.now() + seconds * 1000 };
    this.trace.outages.push({ by: 'outside', start: this.clock.now(), end: this.outside.until });
  }

  /** The outside system's state for a call made now. */
  outsideMode(): 'refused' | 'hanging' | undefined {
    return this.outside !== undefined && this.clock.now() < this.outside.until
      ? this.outside.mode
      : undefined;
  }

  /** The drain: every fault cleared, every outage over now. */
  clear(): void {
    const now = this.clock.now();
    const seq = this.trace.next();
    for (const outage of this.trace.outages) {
      if (outage.end <= now) continue;
      outage.end = now;
      outage.endSeq = seq;
    }
    this.armed = [];
    this.tableOutageUntil = Number.NEGATIVE_INFINITY;
    this.outside = undefined;
  }

  faultFor(call: FaultCall, envId: string): FaultKind | undefined {
    const kind = this.choose(call);
    if (kind === undefined) return undefined;
    const seq = this.trace.next();
    this.trace.fired.push({
      seq,
      point: call.point,
      kind,
      envId,
      ...(call.key === undefined ? {} : { key: call.key }),
    });
    if (call.key !== undefined && !CRASHES.has(kind)) {
      this.trace.failures.push({ seq, at: this.clock.now(), key: call.key, by: 'own', envId });
    }
    if (call.point === 'ledger.complete' && call.key !== undefined && !LANDS.has(kind)) {
      // The completion write did not land: what the invariant on redone work must know.
      const item = this.ledger.get(call.key);
      const lostBy = CRASHES.has(kind) ? 'crash' : 'thrown';
      if (item) this.trace.lostCompletions.set(keyGeneration(call.key, item.generation), lostBy);
    }
    return kind;
  }

  private choose(call: FaultCall): FaultKind | undefined {
    if (call.point.startsWith('ledger.') && this.clock.now() < this.tableOutageUntil) return 'throttle';
    const fault = this.armed.find(
      (candidate) =>
        candidate.remaining > 0 &&
        candidate.point === call.point &&
        (candidate.key === undefined || candidate.key === call.key),
    );
    if (fault === undefined) return undefined;
    fault.remaining -= 1;
    return fault.kind;
  }
}
