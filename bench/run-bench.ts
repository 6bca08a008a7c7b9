/**
 * The whole bench as one function: each section measured in this run, the result as data.
 * Timings are ratios of handlers measured side by side; call counts come from driving the
 * real consumer; the scale figures from the model; kafka from the real consumer and a model of
 * Lambda's native Kafka mapping in virtual time; outage, recovery and poison from runs in the
 * local AWS with the project's runner. Sections can be left out (`only`).
 */
import type { CallCounts } from '../lambdas/consumer/call-meter';
import { buildBundles } from './build/bundles';
import { type DynamodbUnits, measureAllPaths } from './calls/measure-calls';
import type { PathName } from './calls/paths';
import { type ColdInit, measureColdInit } from './cold/cold-init';
import { costPerMillionUsd } from './cost/cost';
import { COST_ASSUMPTIONS, PRICES } from './cost/prices';
import { KAFKA_DEFAULTS, type KafkaOptions, type KafkaResult, measureKafka } from './kafka/kafka';
import { measureOutage, type OutageResult, outageOptions } from './outage/outage';
import { measurePerMessage, type PerMessage, type PerMessageOptions } from './per-message/per-message';
import { timingsScaledDown } from './pipeline/timings';
import { measurePoison, type PoisonResult } from './poison/poison';
import { measureRecovery, RECOVERY_DEFAULTS, type RecoveryResult } from './recovery/recovery';
import { runScaleModel, type ScaleResult } from './scale/model';
import { ISSUE_SCENARIO } from './scale/scenario';

export const SECTIONS = [
  'calls',
  'coldInit',
  'perMessage',
  'scale',
  'kafka',
  'outage',
  'recovery',
  'poison',
] as const;
export type Section = (typeof SECTIONS)[number];

export interface BenchOptions {
  readonly only: readonly Section[];
  readonly coldInitRuns: number;
  readonly perMessage: PerMessageOptions;
  /** The Kafka section's topic, poison and outage (in virtual time). */
  readonly kafka: KafkaOptions;
  /** The runs in the local AWS (outage, recovery, poison). */
  readonly local: LocalRunOptions;
  /** Progress of the long sections, one line each (no newline). @default - silent */
  readonly progress?: (line: string) => void;
}

export interface LocalRunOptions {
  /**
   * Outage and poison wait out visibility timeouts: every default timing is divided by this
   * (recovery always runs with the defaults).
   */
  readonly timingScale: number;
  readonly outageMessages: number;
  readonly recoveryMessages: number;
  readonly poisonHealthyMessages: number;
}

export const DEFAULT_OPTIONS: BenchOptions = {
  only: SECTIONS,
  coldInitRuns: 20,
  perMessage: { rounds: 5, batches: 50, batchSize: 10, warmupBatches: 10 },
  kafka: KAFKA_DEFAULTS,
  local: {
    timingScale: 5,
    outageMessages: 20,
    recoveryMessages: RECOVERY_DEFAULTS.messages,
    poisonHealthyMessages: 1_000,
  },
};

export interface BenchReport {
  coldInit?: ColdInit;
  perMessage?: PerMessage;
  callsPerMessage?: Record<PathName, CallCounts>;
  /** What DynamoDB bills for those calls (the cost is priced from these). */
  dynamodbUnitsPerMessage?: Record<PathName, DynamodbUnits>;
  costPerMillionUsd?: Record<PathName, number>;
  prices?: { readonly date: string; readonly region: string; readonly assumptions: readonly string[] };
  scale?: ScaleResult;
  kafka?: KafkaResult;
  outage?: OutageResult;
  recovery?: RecoveryResult;
  poison?: PoisonResult;
}

export async function runBench(options: BenchOptions = DEFAULT_OPTIONS): Promise<BenchReport> {
  const report: BenchReport = {};
  const { local, progress } = options;
  const wanted = SECTIONS.filter((section) => options.only.includes(section));
  const measure = <T>(section: Section, run: () => Promise<T>) =>
    timed(section, `${wanted.indexOf(section) + 1} of ${wanted.length}`, progress, run);
  if (wanted.includes('calls')) {
    const paths = await measure('calls', measureAllPaths);
    report.callsPerMessage = mapValues(paths, (path) => path.calls);
    report.dynamodbUnitsPerMessage = mapValues(paths, (path) => path.units);
    report.costPerMillionUsd = mapValues(paths, costPerMillionUsd);
    report.prices = { date: PRICES.date, region: PRICES.region, assumptions: COST_ASSUMPTIONS };
  }
  if (wanted.includes('coldInit') || wanted.includes('perMessage')) {
    const bundles = await buildBundles();
    try {
      if (wanted.includes('coldInit')) {
        report.coldInit = await measure('coldInit', async () =>
          measureColdInit(bundles.paths, options.coldInitRuns),
        );
      }
      if (wanted.includes('perMessage')) {
        report.perMessage = await measure('perMessage', () =>
          measurePerMessage(bundles.paths, options.perMessage),
        );
      }
    } finally {
      bundles.remove();
    }
  }
  if (wanted.includes('scale')) report.scale = await measure('scale', () => runScaleModel(ISSUE_SCENARIO));
  if (wanted.includes('kafka')) report.kafka = await measure('kafka', () => measureKafka(options.kafka));
  const scaled = timingsScaledDown(local.timingScale);
  if (wanted.includes('outage')) {
    report.outage = await measure('outage', () =>
      measureOutage({ ...outageOptions(scaled, local.outageMessages), progress }),
    );
  }
  if (wanted.includes('recovery')) {
    report.recovery = await measure('recovery', () =>
      measureRecovery({ ...RECOVERY_DEFAULTS, messages: local.recoveryMessages, progress }),
    );
  }
  if (wanted.includes('poison')) {
    report.poison = await measure('poison', () =>
      measurePoison({ healthyMessages: local.poisonHealthyMessages, timings: scaled, progress }),
    );
  }
  return report;
}

/**
 * Runs a section, saying which it is (`3 of 7`) before and how long it took after: a whole bench
 * takes many minutes, and without this it said nothing for the first of them.
 */
async function timed<T>(
  section: Section,
  place: string,
  progress: BenchOptions['progress'],
  run: () => Promise<T>,
): Promise<T> {
  progress?.(`${section} (${place}): measuring...`);
  const started = Date.now();
  const result = await run();
  progress?.(`${section}: measured in ${Math.round((Date.now() - started) / 1000)} s`);
  return result;
}

function mapValues<K extends string, V, W>(record: Record<K, V>, map: (value: V) => W): Record<K, W> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value as V)])) as Record<
    K,
    W
  >;
}
