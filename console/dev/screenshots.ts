/**
 * `npm run console:screenshots -- --out DIR`: PNG screenshots of every page of `pq console`
 * against the local AWS with sample records (sample-pipeline.ts), for the README and for review.
 * Nothing is changed but by the screenshot of a refusal, which changes nothing by definition.
 * Makes sure of the local AWS's virtualenv (its first install takes minutes) once the arguments
 * are read: `--help` and bad usage install nothing.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { resolveDeployment } from '../../cli/deployment';
import { ensureVenvOrExit } from '../../tools/local-aws/ensure-venv.mjs';
import { actionHref } from '../pages/action-links';
import { startConsole } from '../server';
import { launchChromium } from './browser';
import { type SamplePipeline, startSamplePipeline, useLocalCredentials } from './sample-pipeline';

const USAGE = `usage: npm run console:screenshots -- --out DIR

Starts the local AWS with sample records and pq console on it, and saves a PNG of every page
(headless Chromium) into DIR, one file a page, each file's name printed.
  --out DIR   where the screenshots go (created if missing)
  --help, -h  this text, and nothing started or installed
`;

async function main(argv: readonly string[]): Promise<number> {
  let values: { out?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    process.stderr.write(`console:screenshots: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!values.out) {
    process.stderr.write(`console:screenshots: where to? pass --out DIR\n\n${USAGE}`);
    return 2;
  }
  ensureVenvOrExit();
  const out = resolve(values.out);
  mkdirSync(out, { recursive: true });
  useLocalCredentials();
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const sample = await startSamplePipeline({ progress: say });
  try {
    const deployment = await resolveDeployment({
      functionName: sample.functionName,
      endpoint: sample.endpoint,
      region: sample.region,
    });
    const running = await startConsole({
      deployment,
      now: () => new Date(),
      sleep: (ms) => sleep(ms),
      port: 0,
    });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({
        viewport: { width: 1280, height: 900 },
        baseURL: new URL(running.url).origin,
      });
      await page.goto(running.url);
      for (const [name, path] of pages(sample)) {
        await shoot(page, join(out, `${name}.png`), path);
        process.stdout.write(`${join(values.out, `${name}.png`)}\n`);
      }
      await page.goto(actionHref('replay', { id: sample.ids.permanent2 }));
      await page.getByRole('button', { name: 'Replay it' }).click();
      await page.screenshot({ path: join(out, 'refused.png'), fullPage: true });
      process.stdout.write(`${join(values.out, 'refused.png')}\n`);
    } finally {
      await browser.close();
      await running.stop();
    }
  } finally {
    await sample.stop();
  }
  return 0;
}

/** Every page, by the file it is saved as. */
function pages({ ids, permanentGroup }: SamplePipeline): [string, string][] {
  const record = (id: string, view = '') => `/records/${encodeURIComponent(id)}${view}`;
  return [
    ['overview', '/'],
    ['overview-14-days', '/?chart=14d'],
    ['groups', '/groups'],
    ['records', '/records?status=all'],
    ['records-filtered', '/records?reason=outcome-unknown'],
    ['record-crash-limit', record(ids.crash)],
    ['record-outcome-unknown', record(ids.unknown1)],
    ['record-not-json', record(ids.notJson)],
    ['record-script-in-error', record(ids.script)],
    ['record-1-mib', record(ids.big)],
    ['record-hex', record(ids.crash, '?view=hex')],
    ['confirm-cause', actionHref('cause', { id: ids.crash })],
    ['confirm-cause-group', actionHref('cause', { group: permanentGroup })],
    ['confirm-replay', actionHref('replay', { id: ids.permanent1 })],
    ['confirm-replay-group', actionHref('replay-group', { group: permanentGroup })],
    ['confirm-verify', actionHref('verify', { id: ids.unknown1 })],
    ['confirm-discard', actionHref('discard', { id: ids.script })],
    ['confirm-freeze', actionHref('freeze')],
    ['confirm-hold', actionHref('hold')],
    ['confirm-resume', actionHref('resume')],
  ];
}

async function shoot(page: Page, file: string, path: string): Promise<void> {
  await page.goto(path);
  await page.screenshot({ path: file, fullPage: true });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`console:screenshots failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
