/**
 * CPU time per healthy message: the real consumer bundle, the Powertools reference and a bare
 * handler, each in a fresh process against the same instant AWS stand-in, alternating by
 * round so a busy moment of a shared machine falls on all of them alike.
 */
import { fork } from 'node:child_process';
import * as path from 'node:path';
import type { Bundles, HandlerName } from '../build/bundles';
import { handlerEnvironment } from '../build/environments';
import { round, type Summary, summarize } from '../stats';
import { AwsStandIn } from './aws-stand-in';

const CHILD = path.join(__dirname, 'cpu-child.cjs');
const NAMES: readonly HandlerName[] = ['poisonQuarantine', 'powertools', 'bare'];

export interface PerMessageOptions {
  readonly rounds: number;
  readonly batches: number;
  readonly batchSize: number;
  readonly warmupBatches: number;
}

export interface PerMessage {
  readonly ratioToPowertools: number;
  readonly ratioToBare: number;
  readonly cpuMicros: Readonly<Record<HandlerName, Summary>>;
  readonly messagesPerRun: number;
}

export async function measurePerMessage(bundles: Bundles, options: PerMessageOptions): Promise<PerMessage> {
  const standIn = new AwsStandIn();
  const endpoint = await standIn.listen();
  const samples: Record<HandlerName, number[]> = { poisonQuarantine: [], powertools: [], bare: [] };
  try {
    for (let index = 0; index < options.rounds; index++) {
      // Rotate who goes first, so no handler always runs right after another's warm-up.
      const order = NAMES.map((_, offset) => NAMES[(index + offset) % NAMES.length]);
      for (const name of order) samples[name].push(await runChild(name, bundles[name], endpoint, options));
    }
  } finally {
    await standIn.close();
  }
  const cpuMicros = {
    poisonQuarantine: summarize(samples.poisonQuarantine),
    powertools: summarize(samples.powertools),
    bare: summarize(samples.bare),
  };
  return {
    ratioToPowertools: round(cpuMicros.poisonQuarantine.median / cpuMicros.powertools.median),
    ratioToBare: round(cpuMicros.poisonQuarantine.median / cpuMicros.bare.median, 1),
    cpuMicros,
    messagesPerRun: options.batches * options.batchSize,
  };
}

function runChild(
  name: HandlerName,
  bundle: string,
  endpoint: string,
  options: PerMessageOptions,
): Promise<number> {
  const args = [bundle, options.batches, options.batchSize, options.warmupBatches].map(String);
  const child = fork(CHILD, args, {
    env: handlerEnvironment(name, {
      AWS_ENDPOINT_URL: endpoint,
      AWS_ACCESS_KEY_ID: 'bench',
      AWS_SECRET_ACCESS_KEY: 'bench',
    }),
    // The SDK's warning about Node 20 (Lambda runs a newer one) is not part of any handler.
    execArgv: ['--no-warnings'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    let result: number | undefined;
    child.on('message', (message: { cpuMicrosPerMessage: number }) => {
      result = message.cpuMicrosPerMessage;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0 && result !== undefined) resolve(result);
      else reject(new Error(`the ${name} handler's CPU run exited with ${code}`));
    });
  });
}
