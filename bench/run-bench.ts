/**
 * The whole bench as one function: each section measured in this run, the result as data.
 * Timings are ratios of handlers measured side by side; call counts come from driving the
 * real consumer; the scale figures from the model. Sections can be left out (`only`).
 */
import type { CallCounts } from '../lambdas/consumer/call-meter';
import { buildBundles } from './build/bundles';
import { measureAllPaths } from './calls/measure-calls';
import type { PathName } from './calls/paths';
import { type ColdInit, measureColdInit } from './cold/cold-init';
import { costPerMillionUsd } from './cost/cost';
import { COST_ASSUMPTIONS, PRICES } from './cost/prices';
import { measurePerMessage, type PerMessage, type PerMessageOptions } from './per-message/per-message';
import { runScaleModel, type ScaleResult } from './scale/model';
import { ISSUE_SCENARIO } from './scale/scenario';

export const SECTIONS = ['calls', 'coldInit', 'perMessage', 'scale'] as const;
export type Section = (typeof SECTIONS)[number];

export interface BenchOptions {
  readonly only: readonly Section[];
  readonly coldInitRuns: number;
  readonly perMessage: PerMessageOptions;
}

export const DEFAULT_OPTIONS: BenchOptions = {
  only: SECTIONS,
  coldInitRuns: 20,
  perMessage: { rounds: 5, batches: 50, batchSize: 10, warmupBatches: 10 },
};

export interface BenchReport {
  coldInit?: ColdInit;
  perMessage?: PerMessage;
  callsPerMessage?: Record<PathName, CallCounts>;
  costPerMillionUsd?: Record<PathName, number>;
  prices?: { readonly date: string; readonly region: string; readonly assumptions: readonly string[] };
  scale?: ScaleResult;
  /** Parts of issue 10's report this bench does not measure. */
  notMeasured: readonly string[];
}

const NOT_MEASURED = ['outage', 'recovery', 'poison (they need the local AWS and the runner)'];

export async function runBench(options: BenchOptions = DEFAULT_OPTIONS): Promise<BenchReport> {
  const report: BenchReport = { notMeasured: NOT_MEASURED };
  if (options.only.includes('calls')) {
    const calls = await measureAllPaths();
    report.callsPerMessage = calls;
    report.costPerMillionUsd = mapValues(calls, costPerMillionUsd);
    report.prices = { date: PRICES.date, region: PRICES.region, assumptions: COST_ASSUMPTIONS };
  }
  if (options.only.includes('coldInit') || options.only.includes('perMessage')) {
    const bundles = await buildBundles();
    try {
      if (options.only.includes('coldInit')) {
        report.coldInit = measureColdInit(bundles.paths, options.coldInitRuns);
      }
      if (options.only.includes('perMessage')) {
        report.perMessage = await measurePerMessage(bundles.paths, options.perMessage);
      }
    } finally {
      bundles.remove();
    }
  }
  if (options.only.includes('scale')) report.scale = await runScaleModel(ISSUE_SCENARIO);
  return report;
}

function mapValues<K extends string, V, W>(record: Record<K, V>, map: (value: V) => W): Record<K, W> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value as V)])) as Record<
    K,
    W
  >;
}
