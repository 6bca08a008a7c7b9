/**
 * Cold initialisation, side by side: each bundle loaded in a fresh Node process with its
 * function's environment, the two alternating (and swapping who goes first every round), so
 * drift on a shared machine falls on both alike. Loaded as Lambda loads a handler: import() of
 * the entry, on the project's Node.js (the Lambda runtime's major, .nvmrc), not the one running
 * the bench.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { PROJECT_NODE } from '../../tools/local-aws/ensure-venv.mjs';
import type { Bundles, HandlerName } from '../build/bundles';
import { handlerEnvironment } from '../build/environments';
import { round, type Summary, summarize } from '../stats';

const LOADER = path.join(__dirname, 'load-handler.mjs');

export interface ColdInit {
  /** How each bundle was loaded: as Lambda's runtime loads a handler. */
  readonly loader: 'import()';
  /** The Node.js version that loaded them. */
  readonly node: string;
  readonly ratio: number;
  readonly medianMs: { readonly poisonQuarantine: number; readonly powertools: number };
  readonly ms: { readonly poisonQuarantine: Summary; readonly powertools: Summary };
}

function loadOnce(name: HandlerName, bundle: string): number {
  const output = execFileSync(PROJECT_NODE, [LOADER, bundle], {
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
    loader: 'import()',
    node: execFileSync(PROJECT_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim(),
    ratio: round(ms.poisonQuarantine.median / ms.powertools.median),
    medianMs: {
      poisonQuarantine: round(ms.poisonQuarantine.median, 1),
      powertools: round(ms.powertools.median, 1),
    },
    ms,
  };
}
