/**
 * Cold initialisation, side by side: each bundle loaded in a fresh Node process with its
 * function's environment, the two alternating (and swapping who goes first every round), so
 * drift on a shared machine falls on both alike.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import type { Bundles, HandlerName } from '../build/bundles';
import { handlerEnvironment } from '../build/environments';
import { round, type Summary, summarize } from '../stats';

const LOADER = path.join(__dirname, 'load-handler.cjs');

export interface ColdInit {
  readonly ratio: number;
  readonly medianMs: { readonly poisonQuarantine: number; readonly powertools: number };
  readonly ms: { readonly poisonQuarantine: Summary; readonly powertools: Summary };
}

function loadOnce(name: HandlerName, bundle: string): number {
  // The SDK's warning about Node 20 (Lambda runs a newer one) is not part of any handler.
  const output = execFileSync(process.execPath, ['--no-warnings', LOADER, bundle], {
    env: handlerEnvironment(name),
    encoding: 'utf8',
  });
  return (JSON.parse(output) as { ms: number }).ms;
}

export function measureColdInit(bundles: Bundles, runs: number): ColdInit {
  const samples: Record<'poisonQuarantine' | 'powertools', number[]> = {
    poisonQuarantine: [],
    powertools: [],
  };
  for (let round = 0; round < runs; round++) {
    const order =
      round % 2 === 0
        ? (['poisonQuarantine', 'powertools'] as const)
        : (['powertools', 'poisonQuarantine'] as const);
    for (const name of order) samples[name].push(loadOnce(name, bundles[name]));
  }
  const ms = {
    poisonQuarantine: summarize(samples.poisonQuarantine),
    powertools: summarize(samples.powertools),
  };
  return {
    ratio: round(ms.poisonQuarantine.median / ms.powertools.median),
    medianMs: {
      poisonQuarantine: round(ms.poisonQuarantine.median, 1),
      powertools: round(ms.powertools.median, 1),
    },
    ms,
  };
}
