/**
 * A small world for one test: messages by label, a script per label and attempt, faults by
 * point (each firing a stated number of times), and the outside system's request counts.
 */
import type { FaultKind, FaultPoint } from '../faults/fault-points';
import type { FaultCall } from '../faults/inject';
import { OutsideSystem, type Step, scriptedProcessor } from './scripted-processor';
import { World } from './world';

export interface TestFault {
  readonly at: FaultPoint;
  readonly error: FaultKind;
  /** @default 1 */
  readonly times?: number;
  /** Only calls naming this message key. */
  readonly key?: string;
}

export interface TestWorldOptions {
  readonly env?: Record<string, string>;
  /** Steps per attempt: `scripts[label][attempt - 1]`, the last one repeating. Absent: complete. */
  readonly scripts?: Readonly<Record<string, readonly (readonly Step[])[]>>;
  readonly faults?: readonly TestFault[];
}

export interface TestWorld {
  readonly world: World;
  readonly outside: OutsideSystem;
  /** Faults fired so far, by point. */
  readonly fired: Map<string, number>;
}

/** Bodies are the labels unless a test sends its own; scripts are looked up by body or label. */
export function testWorld(options: TestWorldOptions = {}): TestWorld {
  const outside = new OutsideSystem();
  const fired = new Map<string, number>();
  const remaining = (options.faults ?? []).map((fault) => ({ ...fault, left: fault.times ?? 1 }));
  const faultFor = (call: FaultCall): FaultKind | undefined => {
    const fault = remaining.find(
      (candidate) =>
        candidate.left > 0 &&
        candidate.at === call.point &&
        (candidate.key === undefined || candidate.key === call.key),
    );
    if (fault === undefined) return undefined;
    fault.left -= 1;
    fired.set(call.point, (fired.get(call.point) ?? 0) + 1);
    return fault.error;
  };
  const world: World = new World({
    env: options.env,
    faultFor,
    random: () => 0.5,
    processorFor: (env) =>
      scriptedProcessor(env, world, outside, (message) => {
        const attempts = options.scripts?.[labelOf(message.body)] ?? [];
        return attempts[Math.min(message.attempt, attempts.length) - 1] ?? [];
      }),
  });
  return { world, outside, fired };
}

/** A body's label: the body itself, or its "label" field when it is JSON. */
export function labelOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { label?: unknown };
    return typeof parsed?.label === 'string' ? parsed.label : body;
  } catch {
    return body;
  }
}
