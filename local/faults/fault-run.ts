/**
 * The parent's side of a local run with faults: the run directory every execution environment
 * shares (shared-plan.ts), the consumer bundled with faults, and how often each fault fired.
 *
 * The consumer with faults is bundled as the deployed one is (lib/consumer-bundling.ts: split ES
 * modules, the user's processor under the same alias, source maps), so the runner loads it the
 * same way; only its entry differs (consumer-with-faults.ts), and it is not minified.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { buildConsumer, CONSUMER_ENTRY_FILE } from '../../lib/consumer-bundling';
import type { HandlerRef } from '../../tools/local-aws/runner';
import { FAULT_PLAN_ENV, type FaultSpec, firings, writeFaultPlan } from './shared-plan';

const ENTRY = join(__dirname, 'consumer-with-faults.ts');

/** A fault of the plan and how many of its `times` fired during the run. */
export interface FaultFiring extends FaultSpec {
  readonly fired: number;
}

export interface FaultRun {
  /** The bundled consumer with faults, for the runner. */
  readonly handler: HandlerRef;
  /** What the runner adds to the consumer's environment: where the shared plan lives. */
  readonly environment: Readonly<Record<string, string>>;
  /** Each fault in plan order, with its firings so far (across every process). */
  fired(): FaultFiring[];
  remove(): void;
}

export async function prepareFaultRun(
  faults: readonly FaultSpec[],
  processorEntry: string,
): Promise<FaultRun> {
  const dir = mkdtempSync(join(tmpdir(), 'pq-faults-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    writeFaultPlan(dir, faults);
    const outdir = join(dir, 'consumer');
    buildConsumer(
      { entry: ENTRY, processorEntry, runtime: Runtime.NODEJS_LATEST, bundling: { minify: false } },
      outdir,
    );
    return {
      handler: { file: join(outdir, CONSUMER_ENTRY_FILE), exportName: 'handler' },
      environment: { [FAULT_PLAN_ENV]: dir },
      fired: () => {
        const counts = firings(dir, faults);
        return faults.map((fault, index) => ({ ...fault, fired: counts[index] }));
      },
      remove,
    };
  } catch (error) {
    remove();
    throw error;
  }
}
