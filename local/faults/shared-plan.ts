/**
 * A fault plan shared by every execution environment of one local run. A crash kills the process
 * and the runner forks a fresh one, so how often a fault has fired cannot live in one process's
 * memory: it lives in a run directory, one subdirectory per fault, one entry per firing. Slot k of
 * fault f is taken by `mkdirSync(fired/f/k)`, which fails with EEXIST when another process took
 * it first, so two processes never fire the same slot, and the parent counts firings by listing.
 *
 * Layout of the run directory:
 *   plan.json        { "faults": FaultSpec[] }
 *   fired/<f>/<k>/   slot k of fault f (its index in plan.json) has fired
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAULT_POINTS, type FaultKind, type FaultPoint } from '../../sim/faults/fault-points';
import type { FaultCall, FaultPlan } from '../../sim/faults/inject';

/**
 * The variable the runner sets for a consumer process built with faults: the run directory.
 * Not PQ_-prefixed: the consumer's configuration refuses unknown PQ_ variables.
 */
export const FAULT_PLAN_ENV = 'LOCAL_FAULT_PLAN_DIR';

export interface FaultSpec {
  readonly at: FaultPoint;
  readonly error: FaultKind;
  /** Matching calls that fail, counted across every process of the run. */
  readonly times: number;
  /** Only calls about this message (its label: the body's "id"). @default - every call at `at` */
  readonly message?: string;
}

/**
 * The points whose calls carry the message key (inject.ts reads it from the arguments): a fault
 * restricted to one message can fire only at these.
 */
export const KEYED_FAULT_POINTS: readonly FaultPoint[] = [
  ...FAULT_POINTS.filter((point) => point.startsWith('ledger.') && point !== 'ledger.inFlightKeysOf'),
  'control.recordLostCompletion',
  'control.lostCompletion',
  'quarantine.putRecord',
  'operations.startOutcomeUnknown',
];

const PLAN_FILE = 'plan.json';
const FIRED_DIR = 'fired';

/** Lays the plan out in an empty run directory, no fault fired yet. */
export function writeFaultPlan(dir: string, faults: readonly FaultSpec[]): void {
  writeFileSync(join(dir, PLAN_FILE), JSON.stringify({ faults }));
  for (const index of faults.keys()) mkdirSync(join(dir, FIRED_DIR, String(index)), { recursive: true });
}

/** How many times each fault of the plan has fired so far, in plan order, over every process. */
export function firings(dir: string, faults: readonly FaultSpec[]): number[] {
  return faults.map((_, index) => readdirSync(join(dir, FIRED_DIR, String(index))).length);
}

export class SharedFaultPlan implements FaultPlan {
  private readonly faults: readonly FaultSpec[];
  /** Message key -> label, learnt from the records this process was handed. */
  private readonly labels = new Map<string, string>();
  /** Faults whose every slot is taken: no need to try them again. */
  private readonly exhausted = new Set<number>();

  constructor(private readonly dir: string) {
    this.faults = (JSON.parse(readFileSync(join(dir, PLAN_FILE), 'utf8')) as { faults: FaultSpec[] }).faults;
  }

  /**
   * Every call that names a key is about a record of the current batch, so a process knows the
   * label of each key it can be asked about once it has seen that batch.
   */
  learnLabel(key: string, label: string): void {
    this.labels.set(key, label);
  }

  /** The first fault in plan order that matches the call and still has a free slot. */
  faultFor(call: FaultCall): FaultKind | undefined {
    const index = this.faults.findIndex(
      (fault, candidate) => this.matches(fault, call) && this.takeSlot(candidate, fault.times),
    );
    return index === -1 ? undefined : this.faults[index].error;
  }

  crash(): Promise<never> {
    // SIGKILL, as the demo worker's crashes: the kernel ends the process, no handler of ours runs.
    process.kill(process.pid, 'SIGKILL');
    return new Promise<never>(() => undefined);
  }

  private matches(fault: FaultSpec, call: FaultCall): boolean {
    if (fault.at !== call.point) return false;
    return (
      fault.message === undefined || (call.key !== undefined && this.labels.get(call.key) === fault.message)
    );
  }

  private takeSlot(index: number, times: number): boolean {
    if (this.exhausted.has(index)) return false;
    for (let slot = 0; slot < times; slot += 1) {
      try {
        mkdirSync(join(this.dir, FIRED_DIR, String(index), String(slot)));
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    this.exhausted.add(index);
    return false;
  }
}
