/**
 * CPU time per healthy message: the real consumer bundle, the Powertools reference and a bare
 * handler, each in a fresh process against the same instant AWS stand-in, alternating by
 * round so a busy moment of a shared machine falls on all of them alike.
 *
 * Each is measured as deployed by default (the consumer runs a batch's records one at a time,
 * rule 6; the Powertools batch processor all at once), and the two also at the other's
 * concurrency, so the ratio at equal concurrency shows what the code costs and the default one
 * what the configuration adds.
 */
import { fork } from 'node:child_process';
import * as path from 'node:path';
import { ENV } from '../../contract/env';
import type { Bundles, HandlerName } from '../build/bundles';
import { handlerEnvironment } from '../build/environments';
import { round, type Summary, summarize } from '../stats';
import { AwsStandIn } from './aws-stand-in';

const CHILD = path.join(__dirname, 'cpu-child.cjs');

export interface PerMessageOptions {
  readonly rounds: number;
  readonly batches: number;
  readonly batchSize: number;
  readonly warmupBatches: number;
}

/** A handler bundle with the settings it runs under. */
interface Variant {
  readonly bundle: HandlerName;
  readonly env?: (options: PerMessageOptions) => Record<string, string>;
}

const VARIANTS = {
  poisonQuarantine: { bundle: 'poisonQuarantine' },
  poisonQuarantineBatchAtOnce: {
    bundle: 'poisonQuarantine',
    env: ({ batchSize }) => ({ [ENV.inProcessConcurrency]: String(batchSize) }),
  },
  powertools: { bundle: 'powertools' },
  // bench/reference/handler.ts reads it: the batch processor's `processInParallel: false`.
  powertoolsOneAtATime: { bundle: 'powertools', env: () => ({ PROCESS_IN_PARALLEL: 'false' }) },
  bare: { bundle: 'bare' },
} as const satisfies Record<string, Variant>;

type VariantName = keyof typeof VARIANTS;
const NAMES = Object.keys(VARIANTS) as VariantName[];

export interface PerMessage {
  /** Each as deployed by default: the consumer one record at a time, Powertools all at once. */
  readonly ratioToPowertools: number;
  readonly ratioToBare: number;
  /** The consumer against Powertools run the same way. */
  readonly atEqualConcurrency: { readonly oneAtATime: number; readonly batchAtOnce: number };
  readonly cpuMicros: Readonly<Record<VariantName, Summary>>;
  /**
   * Bytes each handler wrote to stdout (its log: what CloudWatch Logs ingests) per healthy
   * message, as deployed by default (log level INFO), median of the rounds.
   */
  readonly stdoutBytes: { readonly poisonQuarantine: number; readonly powertools: number };
  readonly messagesPerRun: number;
}

/** What one run of a handler measured, per message. */
interface ChildResult {
  readonly cpuMicrosPerMessage: number;
  readonly stdoutBytesPerMessage: number;
}

export async function measurePerMessage(bundles: Bundles, options: PerMessageOptions): Promise<PerMessage> {
  const standIn = new AwsStandIn();
  const endpoint = await standIn.listen();
  const samples = Object.fromEntries(NAMES.map((name) => [name, [] as ChildResult[]])) as Record<
    VariantName,
    ChildResult[]
  >;
  try {
    for (let index = 0; index < options.rounds; index++) {
      // Rotate who goes first, so no handler always runs right after another's warm-up.
      const order = NAMES.map((_, offset) => NAMES[(index + offset) % NAMES.length]);
      for (const name of order) samples[name].push(await runChild(name, bundles, endpoint, options));
    }
  } finally {
    await standIn.close();
  }
  const cpuMicros = Object.fromEntries(
    NAMES.map((name) => [name, summarize(samples[name].map((sample) => sample.cpuMicrosPerMessage))]),
  ) as Record<VariantName, Summary>;
  const stdoutBytes = (name: VariantName) =>
    round(summarize(samples[name].map((sample) => sample.stdoutBytesPerMessage)).median, 1);
  const ratio = (a: VariantName, b: VariantName, digits = 2) =>
    round(cpuMicros[a].median / cpuMicros[b].median, digits);
  return {
    ratioToPowertools: ratio('poisonQuarantine', 'powertools'),
    ratioToBare: ratio('poisonQuarantine', 'bare', 1),
    atEqualConcurrency: {
      oneAtATime: ratio('poisonQuarantine', 'powertoolsOneAtATime'),
      batchAtOnce: ratio('poisonQuarantineBatchAtOnce', 'powertools'),
    },
    cpuMicros,
    stdoutBytes: { poisonQuarantine: stdoutBytes('poisonQuarantine'), powertools: stdoutBytes('powertools') },
    messagesPerRun: options.batches * options.batchSize,
  };
}

function runChild(
  name: VariantName,
  bundles: Bundles,
  endpoint: string,
  options: PerMessageOptions,
): Promise<ChildResult> {
  const variant: Variant = VARIANTS[name];
  const args = [bundles[variant.bundle], options.batches, options.batchSize, options.warmupBatches].map(
    String,
  );
  const child = fork(CHILD, args, {
    env: handlerEnvironment(variant.bundle, {
      AWS_ENDPOINT_URL: endpoint,
      AWS_ACCESS_KEY_ID: 'bench',
      AWS_SECRET_ACCESS_KEY: 'bench',
      ...variant.env?.(options),
    }),
    // The SDK's warning about Node 20 (Lambda runs a newer one) is not part of any handler.
    execArgv: ['--no-warnings'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    let result: ChildResult | undefined;
    child.on('message', (message: ChildResult) => {
      result = message;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0 && result !== undefined) resolve(result);
      else reject(new Error(`the ${name} handler's CPU run exited with ${code}`));
    });
  });
}
