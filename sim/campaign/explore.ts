/**
 * The explorer: N seeded schedules through the real consumer, every invariant checked after
 * each, violations counted per invariant; the first few of each are shrunk to a minimal
 * replayable schedule and kept when their shape differs (two defects can break one invariant).
 */
import { generateSchedule } from './generate';
import { checkInvariants, INVARIANTS, type InvariantName, type Verdict } from './invariants';
import type { PlantedBug } from './observe';
import { scheduleSeed } from './prng';
import { runSchedule } from './run-schedule';
import { isKafka, type Schedule } from './schedule';
import { probeFor, shrink } from './shrink';

export interface CampaignOptions {
  readonly seed: number;
  readonly schedules: number;
  /** Violations per invariant to shrink (0: report them as found). @default 3 */
  readonly shrinkPerInvariant?: number;
  readonly plant?: PlantedBug;
  /** Told after each schedule: `npm run campaign` shows it on a terminal. */
  readonly progress?: (done: number, total: number) => void;
}

export interface Violation {
  readonly invariant: InvariantName;
  /** The schedule's own seed (its index in the campaign is `index`). */
  readonly seed: number;
  readonly index: number;
  readonly detail: string;
  readonly schedule: Schedule;
}

export interface CampaignReport {
  readonly schedules: number;
  readonly seed: number;
  readonly faultsInjected: number;
  readonly crashes: number;
  /** Schedules whose consumer read a Kafka topic (kafka-schedule.ts); the rest read an SQS queue. */
  readonly kafkaSchedules: number;
  readonly violations: Violation[];
  /** Schedules on which each invariant failed. */
  readonly violationCounts: Record<InvariantName, number>;
  /** Schedules on which each invariant applied and was checked. */
  readonly invariantsChecked: Record<InvariantName, number>;
}

export interface ScheduleResult {
  readonly verdicts: Verdict[];
  readonly faultsInjected: number;
  readonly crashes: number;
}

export async function runOne(schedule: Schedule, plant?: PlantedBug): Promise<ScheduleResult> {
  const observation = await runSchedule(schedule, plant);
  return {
    verdicts: checkInvariants(observation),
    faultsInjected: observation.trace.fired.length,
    crashes: observation.world.environments.filter((env) => !env.alive).length,
  };
}

/** Schedules between two turns of the event loop. */
const IDLE_EVERY = 100;

export async function runCampaign(options: CampaignOptions): Promise<CampaignReport> {
  const perInvariant = options.shrinkPerInvariant ?? 3;
  const checked = zeroes();
  const counts = zeroes();
  const found: Violation[] = [];
  let faultsInjected = 0;
  let crashes = 0;
  let kafkaSchedules = 0;
  for (let index = 0; index < options.schedules; index++) {
    const seed = scheduleSeed(options.seed, index);
    const schedule = generateSchedule(seed);
    if (isKafka(schedule)) kafkaSchedules += 1;
    const result = await runOne(schedule, options.plant);
    // Schedules run on promises alone: let the event loop turn now and then, so what waits for it
    // (the worlds' timer pumps, setImmediate) runs and is let go.
    if (index % IDLE_EVERY === IDLE_EVERY - 1) await new Promise((resolve) => setImmediate(resolve));
    options.progress?.(index + 1, options.schedules);
    faultsInjected += result.faultsInjected;
    crashes += result.crashes;
    for (const verdict of result.verdicts) {
      if (verdict.applicable) checked[verdict.invariant] += 1;
      if (verdict.problems.length === 0) continue;
      counts[verdict.invariant] += 1;
      if (counts[verdict.invariant] <= Math.max(1, perInvariant)) {
        found.push({ invariant: verdict.invariant, seed, index, detail: verdict.problems[0], schedule });
      }
    }
  }
  const violations = perInvariant === 0 ? found : await minimise(found, options.plant);
  return {
    schedules: options.schedules,
    seed: options.seed,
    faultsInjected,
    crashes,
    kafkaSchedules,
    violations,
    violationCounts: counts,
    invariantsChecked: checked,
  };
}

/** Shrinks each violation and keeps one per distinct minimal shape. */
async function minimise(found: readonly Violation[], plant?: PlantedBug): Promise<Violation[]> {
  const kept: Violation[] = [];
  const shapes = new Set<string>();
  for (const violation of found) {
    const probe = probeFor(
      violation.invariant,
      async (candidate) => (await runOne(candidate, plant)).verdicts,
    );
    const shrunk = await shrink(violation.schedule, violation.detail, probe);
    const shape = `${violation.invariant}|${shapeOf(shrunk.schedule)}`;
    if (shapes.has(shape)) continue;
    shapes.add(shape);
    kept.push({ ...violation, detail: shrunk.detail, schedule: shrunk.schedule });
  }
  return kept;
}

/** What a minimal schedule is made of, without its numbers: events and step kinds. */
export function shapeOf(schedule: Schedule): string {
  const events = schedule.events.map((event) =>
    event.do === 'fault'
      ? `fault ${event.point} ${event.kind}`
      : event.do === 'outside-outage'
        ? `outside ${event.mode}`
        : event.do,
  );
  const steps = schedule.messages.flatMap((message) =>
    message.scripts.flatMap((script) =>
      script.map((step) =>
        step.do === 'external'
          ? `${step.idempotencyKey ? 'keyed' : 'keyless'} ${step.result}`
          : step.do === 'throw'
            ? `throw ${step.error}`
            : step.do,
      ),
    ),
  );
  return `${[...new Set(events)].sort().join(',')}|${[...new Set(steps)].sort().join(',')}`;
}

function zeroes(): Record<InvariantName, number> {
  return Object.fromEntries(INVARIANTS.map((name) => [name, 0])) as Record<InvariantName, number>;
}
