/**
 * What the campaign saw happen in one schedule, beyond the world's final state: the facts the
 * invariants need and that the end state no longer shows (which receive an own-table fault
 * wasted, which call reached the outside system in which generation, which work finished
 * before its completion write). Every entry carries `seq`, one counter for the whole schedule,
 * so "before" and "after" are exact even when virtual time stands still.
 */
import { AttemptLog } from './attempt-log';

export type BreakerState = 'closed' | 'open' | 'half-open';

/** One record handed to one invocation. */
export interface Receive {
  readonly seq: number;
  readonly at: number;
  readonly messageId: string;
  readonly key: string;
  readonly envId: string;
  /** The breaker as the poll found it; half-open: this receive is a probe. */
  readonly breaker: BreakerState;
  outcome: 'deleted' | 'returned';
  /** It came back from an invocation in which a fault hit our own AWS calls. */
  wastedByOwn: boolean;
}

/** A failure the world caused on a message's key: by our own tables, or by the outside system. */
export interface Failure {
  readonly seq: number;
  readonly at: number;
  readonly key: string;
  readonly by: 'own' | 'outside';
  /** The execution environment whose call failed. */
  readonly envId: string;
}

export interface FiredFault {
  readonly seq: number;
  readonly point: string;
  readonly kind: string;
  readonly key?: string;
  readonly envId: string;
}

/** An attempt the ledger started (start or restartAfterCrash answered `started`). */
export interface Started {
  readonly seq: number;
  readonly key: string;
  readonly envId: string;
  readonly charged: number;
  readonly generation: number;
  /** The attempt limit the starting environment was deployed with. */
  readonly limit: number;
}

/** An attempt started on a key whose work had already finished in the same generation. */
export interface Redo {
  readonly key: string;
  readonly generation: number;
  /** The completion write landed before: the ledger itself let finished work start again. */
  readonly completionLanded: boolean;
  /** How the completion write was lost: a caught error, or the worker died first. */
  readonly lostBy: 'thrown' | 'crash';
  readonly chargedAtFinish: number;
  readonly chargedAtRedo: number;
}

/** A request that reached the outside system. */
export interface OutsideCall {
  readonly seq: number;
  readonly key: string;
  readonly name: string;
  readonly keyless: boolean;
  readonly generation: number;
}

/** An outage the schedule staged, in virtual time. */
export interface OutageWindow {
  readonly by: 'own' | 'outside';
  readonly start: number;
  end: number;
  /** Set when the drain cut the outage short: what came before it at `end` was still inside. */
  endSeq?: number;
}

export class Trace {
  readonly receives: Receive[] = [];
  readonly failures: Failure[] = [];
  readonly fired: FiredFault[] = [];
  readonly starts: Started[] = [];
  readonly redos: Redo[] = [];
  readonly outsideCalls: OutsideCall[] = [];
  readonly outages: OutageWindow[] = [];
  /** Quarantine id -> seq of its record's creation. */
  readonly recordCreated = new Map<string, number>();
  /** `key#generation` -> charged when the user's work returned. */
  readonly finished = new Map<string, number>();
  /** The environment whose worker finished it, by key and generation. */
  readonly finishedIn = new Map<string, string>();
  readonly completed = new Set<string>();
  readonly lostCompletions = new Map<string, 'thrown' | 'crash'>();
  readonly limitByEnv = new Map<string, number>();
  /** Quarantine records an operator moved out of open or awaiting-operator (rule 4). */
  readonly operatorDecided = new Set<string>();
  /** Each time the mapping left or regained its full polling (disabled, or at the probe footprint). */
  readonly mapping: { readonly at: number; readonly enabled: boolean }[] = [];
  /** Each time a pause run closed the breaker: on the operator's resume, or on its probe's verdict. */
  readonly closings: { readonly seq: number; readonly byOperator: boolean }[] = [];
  /** A tripped breaker that nothing drives back (rule 7/11), as found after the drain. */
  readonly breakerWithoutWayBack: string[] = [];
  /** Records waiting for a person that no answer could reach. */
  readonly unanswerable: string[] = [];
  /** Environments whose in-flight attempts a later delivery took for a crash (dead, or abandoned). */
  readonly crashedEnvironments = new Set<string>();
  /** Each attempt's facts, for the oracle. */
  readonly attempts = new AttemptLog();
  private counter = 0;

  next(): number {
    this.counter += 1;
    return this.counter;
  }

  now(): number {
    return this.counter;
  }
}

export function keyGeneration(key: string, generation: number): string {
  return `${key}#${generation}`;
}
