/**
 * `pq console` in a real browser: headless Chromium (Debian's, driven by playwright-core) against
 * the console started as an operator starts it (`pq console` in its own process), over records a
 * real consumer quarantined in the local AWS (console/dev/sample-pipeline.ts: crash-limit,
 * permanent, outcome unknown, a body that is not JSON, a 1 MiB body, `<script>` in a body and in
 * an error message, and a consumer stopped at capacity). Every page renders, every action works
 * through its confirmation and is audited as the CLI audits it, a refusal shows the CLI's
 * reason, the secret and the CSRF token are enforced, no task token reaches the browser, stored
 * markup stays text, and every control has a label and works from the keyboard.
 *
 * The tests run in order and build on each other (a cause, then its replay; a hold, then a resume).
 */
import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../console/dev/browser';
import {
  ONE_MIB,
  SAMPLE_BODIES,
  type SamplePipeline,
  startSamplePipeline,
  useLocalCredentials,
} from '../../console/dev/sample-pipeline';
import { ENV } from '../../contract/env';
import { BackstopQueue } from '../../lambdas/adapters/backstop-queue';
import { callerArn } from '../../lambdas/adapters/deployment-lookup';
import { backstopQuarantineId } from '../../lambdas/core/ids';
import { groupId } from '../../lambdas/core/operator';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import { QUARANTINE_REASONS } from '../../lambdas/core/types';
import {
  eventually,
  expectLabelledControls,
  focused,
  interrupt,
  raw,
  rendered,
  rowsOf,
  sha256,
  startConsoleProcess,
  startOtherLocalServer,
  tabTo,
} from './browser-support';

let sample: SamplePipeline;
let consoleProcess: ChildProcess | undefined;
let printed: string;
let origin: string;
let browser: Browser | undefined;
let page: Page;
let operator: string;
/** The sample's records as the consumer left them, before any test acted. */
let quarantined: QuarantineRecord[];
/** Every response body the browser received. */
const received: Promise<string>[] = [];
/** Every task token the pipeline held while the tests ran. */
const tokens = new Set<string>();

beforeAll(async () => {
  sample = await startSamplePipeline();
  useLocalCredentials();
  operator = (await callerArn(sample.pipeline.clients.sts)) ?? '';
  quarantined = await Promise.all(Object.values(sample.ids).map((id) => recordOf(id)));
  await collectTaskTokens();
  ({ child: consoleProcess, url: printed } = await startConsoleProcess(sample.targetArgs));
  origin = new URL(printed).origin;
  browser = await launchChromium();
  const context = await browser.newContext({ baseURL: origin });
  context.on('response', (response) => {
    received.push(
      response.body().then(
        (body) => body.toString('utf8'),
        () => '',
      ),
    );
  });
  page = await context.newPage();
  // The printed URL's secret becomes the session's cookie (each test may then run on its own).
  await page.goto(printed);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stopConsoleProcess();
  await sample?.stop();
});

describe('the secret and the CSRF token', () => {
  it('given the printed URL, then it is on a loopback address of its own, not 127.0.0.1, and carries a secret', () => {
    expect(printed).toMatch(/^http:\/\/127\.\d+\.\d+\.\d+:\d+\/\?token=[\w-]{43}$/);
    expect(new URL(printed).hostname).not.toBe('127.0.0.1');
  });

  it('given another local server the browser visits, then it receives no usable cookie and cannot act (issue 22, defect 4)', async () => {
    // Prepare: the browser holds the console's cookie (beforeAll); another local server on another
    // port posts a freeze to the console with whatever the browser sends it.
    const other = await startOtherLocalServer(origin);

    try {
      // Act
      for (const host of ['127.0.0.1', 'localhost']) await page.goto(`http://${host}:${other.port}/`);

      // Assess
      const refused = { consoleCookie: false, acted: 403 };
      expect(
        other.visits.map(({ cookie, acted }) => ({ consoleCookie: /pq_console_/.test(cookie ?? ''), acted })),
      ).toStrictEqual([refused, refused]);
      expect((await sample.control.read()).freeze).toStrictEqual({ frozen: false });
    } finally {
      await other.stop();
    }
  });

  it('given no secret, a wrong one, or another Host, then every page is refused', async () => {
    // Prepare
    const cookie = await sessionCookie();
    const paths = [
      '/',
      '/groups',
      '/records',
      recordPath(sample.ids.crash),
      `${recordPath(sample.ids.big)}/body`,
    ];

    // Act
    const without = await Promise.all(paths.map((path) => raw(origin, path)));
    const wrong = await raw(origin, '/?token=not-the-secret');
    const rebound = await raw(origin, '/', {
      headers: { host: `attacker.example:${new URL(origin).port}`, cookie },
    });
    const withCookie = await raw(origin, '/', { headers: { cookie } });

    // Assess
    expect(without.map((response) => response.status)).toStrictEqual(paths.map(() => 403));
    for (const response of without) expect(response.body).not.toContain(sample.ids.crash);
    expect(wrong.status).toBe(403);
    expect(rebound.status).toBe(403);
    expect(withCookie.status).toBe(200);
  });

  it('given a form posted without the CSRF token, or from another origin, then refused and nothing changes', async () => {
    // Prepare
    const cookie = await sessionCookie();
    const confirmation = await raw(origin, '/act/freeze', { headers: { cookie } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(confirmation.body)?.[1] ?? '';
    const post = (fields: Record<string, string>, from: string) =>
      raw(origin, '/act/freeze', {
        method: 'POST',
        headers: { cookie, origin: from, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });

    // Act
    const withoutToken = await post({ reason: 'no token' }, origin);
    const foreign = await post({ reason: 'from elsewhere', csrf }, 'http://attacker.example');

    // Assess
    expect(csrf).toMatch(/^[\w-]{43}$/);
    expect([withoutToken.status, foreign.status]).toStrictEqual([403, 403]);
    expect((await sample.control.read()).freeze).toStrictEqual({ frozen: false });
  });
});

describe('the pages', () => {
  it('given the printed URL, then the secret becomes a cookie and leaves the address bar', async () => {
    await page.goto(printed);

    expect(page.url()).toBe(`${origin}/`);
    expect(await rendered(page.getByRole('heading', { level: 1 }))).toBe('Overview');
  });

  it('given the stopped consumer, then the overview shows the stop, the mapping, the queue and the counts', async () => {
    // Act
    await page.goto('/');
    const consumption = await rendered(page.getByRole('region', { name: 'Consumption' }));
    const counts = await rowsOf(page.getByRole('table', { name: 'Quarantine records by reason and status' }));

    // Assess
    expect(consumption).toMatch(/Mapping\s+Disabled/);
    expect(consumption).toMatch(/Queue\s+\d+ visible, \d+ in flight, \d+ delayed/);
    // Read from the local AWS's CloudWatch (not refused), where nothing publishes SQS's metrics.
    expect(consumption).toMatch(
      /Oldest message\s+not reported in the last 5 minutes: .*the local AWS publishes none/,
    );
    expect(consumption).toMatch(
      /Breaker\s+OPEN since .*reason quarantine-capacity.*STOP: no automatic resume/s,
    );
    expect(consumption).toContain('Waiting for an operator.');
    expect(consumption).toMatch(/Isolation trial\s+off/);
    expect(consumption).toMatch(/Replay\s+allowed/);
    // A slow machine may time out a permanent failure's quarantine into a crash: count what happened.
    expect(counts).toStrictEqual([
      ['Reason', 'open', 'awaiting-operator', 'replaying', 'resolved (last 24 h)', 'replayed (last 24 h)'],
      ...[...new Set(quarantined.map((record) => record.reason))].sort().map((reason) => {
        const ofReason = quarantined.filter((record) => record.reason === reason);
        const open = ofReason.filter((record) => record.status === 'open').length;
        return [reason, `${open}`, `${ofReason.length - open}`, '0', '0', '0'];
      }),
    ]);
    expect(counts.slice(1).map(([reason]) => reason)).toEqual(
      expect.arrayContaining(['crash-limit', 'outcome-unknown', 'permanent-error']),
    );
    await expectLabelledControls(page);
  });

  it('given records waiting for a person, then they are listed oldest first, the stop among them', async () => {
    await page.goto('/');
    const table = page.getByRole('table', { name: 'Waiting for a person, oldest first' });
    const rows = await rowsOf(table);
    const times = await table
      .locator('tbody td:first-child time')
      .evaluateAll((cells) => cells.map((cell) => cell.getAttribute('datetime')));

    expect(rows).toHaveLength(5);
    expect(times).toHaveLength(4);
    expect(times).toStrictEqual([...times].sort());
    expect(
      rows
        .slice(1)
        .map(([, what]) => what)
        .join('\n'),
    ).toMatch(/Consumption stopped \(quarantine-capacity\)/);
    for (const label of ['unknown1', 'unknown2', 'unknown3'] as const) {
      expect(rows.some(([, what]) => what.includes(sample.ids[label]))).toBe(true);
    }
  });

  it('given quarantines in the last day, then a chart by reason, its numbers as a table', async () => {
    await page.goto('/');

    const chart = page.getByRole('img', { name: /quarantined in the last 24 hours/ });
    expect(await chart.getAttribute('aria-labelledby')).toBe('chart-title');
    expect(await page.locator('#chart-title').textContent()).toBe(
      `9 quarantined in the last 24 hours, per hour: ${QUARANTINE_REASONS.map(
        (reason) => [quarantined.filter((record) => record.reason === reason).length, reason] as const,
      )
        .filter(([count]) => count > 0)
        .map(([count, reason]) => `${count} ${reason}`)
        .join(', ')}`,
    );
    expect(await page.locator('figure.chart rect').count()).toBeGreaterThanOrEqual(3);
    await page.getByRole('link', { name: 'Last 14 days' }).click();
    expect(await page.locator('#chart-title').textContent()).toMatch(/^9 quarantined in the last 14 days/);
  });

  it('given permanent failures alike, then one failure group of them', async () => {
    await page.goto('/groups');
    const rows = await rowsOf(page.getByRole('table', { name: 'Failure groups, biggest first' }));

    const group = rows.find(([id]) => id === sample.permanentGroup);
    const size = `${permanentGroupMembers().length}`;
    expect(group?.slice(0, 4)).toStrictEqual([
      sample.permanentGroup,
      size,
      `0 of ${size}`,
      'permanent-error',
    ]);
    expect(group?.[6]).toMatch(/^permanent \| PermanentError \| .* \| demo: permanent failure of P#$/);
    await expectLabelledControls(page);
  });

  it('given a filter, then the records list shows only what matches', async () => {
    // Act
    await page.goto('/records');
    const all = await rowsOf(page.getByRole('table', { name: 'Quarantine records, newest first' }));
    await page.getByLabel('Reason').selectOption('outcome-unknown');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/reason=outcome-unknown/);
    const filtered = await rowsOf(page.getByRole('table', { name: 'Quarantine records, newest first' }));

    // Assess
    expect(all).toHaveLength(10);
    expect(
      filtered
        .slice(1)
        .map(([id]) => id)
        .sort(),
    ).toStrictEqual([sample.ids.unknown1, sample.ids.unknown2, sample.ids.unknown3].sort());
    expect(await rendered(page.getByRole('status'))).toBe('3 records.');
    await expectLabelledControls(page);
  });

  it('given a record, then its timeline, evidence, ledger, attributes, audit and body as JSON, text and hex', async () => {
    // Act
    await page.goto(recordPath(sample.ids.crash));
    const timeline = await page.locator('ol.timeline li').allInnerTexts();
    const body = page.getByRole('region', { name: 'Body' });
    const asJson = await rendered(body.locator('pre'));
    await body.getByRole('link', { name: 'Hex' }).click();
    const asHex = await rendered(page.getByRole('region', { name: 'Body' }).locator('pre'));
    await page.getByRole('region', { name: 'Body' }).getByRole('link', { name: 'Text' }).click();
    const asText = await rendered(page.getByRole('region', { name: 'Body' }).locator('pre'));

    // Assess
    expect(timeline).toHaveLength(3);
    expect(timeline[0]).toMatch(/First attempt started\n1 started, 1 charged \(generation 0\)/);
    expect(timeline[1]).toMatch(/Crashed: no error was caught/);
    expect(timeline[2]).toMatch(/Quarantined: crash-limit/);
    expect(await rendered(page.getByRole('region', { name: 'Evidence' }))).toMatch(
      /Attempts\s+1 started, 1 charged/,
    );
    expect(await rendered(page.getByRole('region', { name: /Attempts ledger/ }))).toMatch(
      /State\s+quarantined/,
    );
    expect(await rendered(page.getByRole('region', { name: 'Audit trail' }))).toContain(
      'no operator action yet.',
    );
    // Stored times readable, the exact value on hover.
    const firstTime = page.locator('ol.timeline li time').first();
    expect(await firstTime.getAttribute('title')).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(await firstTime.getAttribute('title')).toBe(await firstTime.getAttribute('datetime'));
    // SQS's times as times, the exact value on hover.
    const sent = page.getByRole('row', { name: /^SentTimestamp/ }).locator('time');
    expect(await sent.getAttribute('title')).toMatch(/^\d{13}$/);
    expect(await rendered(sent)).toBe(
      `${new Date(Number(await sent.getAttribute('title'))).toISOString().replace('T', ' ').slice(0, 19)} UTC`,
    );
    expect(asJson).toBe(JSON.stringify(JSON.parse(SAMPLE_BODIES.crash), null, 2));
    expect(asHex.split('\n')[0]).toBe(
      '00000000  7b 22 69 64 22 3a 22 43 31 22 2c 22 62 65 68 61  {"id":"C1","beha',
    );
    expect(asText).toBe(SAMPLE_BODIES.crash);
    await expectLabelledControls(page);
  });

  it('given a 1 MiB body, then the page shows its start with a notice, and the download has every byte', async () => {
    // Act
    const response = await page.goto(recordPath(sample.ids.big));
    const html = (await response?.text()) ?? '';
    const shown = await rendered(page.getByRole('region', { name: 'Body' }).locator('pre'));
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download the exact bytes' }).click(),
    ]);
    const bytes = await readFile((await download.path()) ?? '');

    // Assess
    expect(await rendered(page.getByRole('region', { name: 'Body' }).getByRole('status'))).toBe(
      'Showing the first 65,536 characters of 1,048,576 bytes. Download the whole body.',
    );
    expect(shown.length).toBeLessThanOrEqual(65_536);
    expect(html.length).toBeLessThan(120_000);
    expect(bytes.length).toBe(ONE_MIB);
    expect(sha256(bytes)).toBe(sha256(Buffer.from(SAMPLE_BODIES.big)));
  });

  it('given a stored <script> in a body and in an error message, then it is shown as text and never runs', async () => {
    // Act
    await page.goto(recordPath(sample.ids.notJson));
    const body = await rendered(page.getByRole('region', { name: 'Body' }).locator('pre'));
    const bodyTitle = await page.title();
    await page.goto(recordPath(sample.ids.script));
    const lastError = await rendered(page.getByRole('region', { name: 'Last error' }));
    const errorTitle = await page.title();
    await page.goto('/records');
    const listed = await rendered(page.getByRole('table', { name: 'Quarantine records, newest first' }));

    // Assess
    expect(body).toBe(SAMPLE_BODIES.notJson);
    expect(lastError).toContain(
      'demo: permanent failure of <script>document.title="pwned by an error"</script>',
    );
    expect(listed).toContain('<script>document.title="pwned by an error"</script>');
    expect([bodyTitle, errorTitle]).toStrictEqual([
      `Record ${sample.ids.notJson} · pq console`,
      `Record ${sample.ids.script} · pq console`,
    ]);
    expect(await page.locator('script').count()).toBe(0);
  });
});

describe('the actions', () => {
  it('given a cause entered on its confirmation, then it is recorded with the audit entry pq cause writes', async () => {
    // Act
    await page.goto(recordPath(sample.ids.crash));
    await page.getByRole('link', { name: 'Record a cause…' }).click();
    const happens = await rendered(page.getByRole('region', { name: 'What will happen' }));
    await expectLabelledControls(page);
    await page.getByLabel('Cause: what went wrong').fill('parser crashes on order 4711 lines (OPS-1)');
    const status = await submit('Record the cause');

    // Assess
    expect(happens).toContain('The cause is written on');
    expect(status).toBe(200);
    expect(await outcome()).toContain('Cause recorded: "parser crashes on order 4711 lines (OPS-1)"');
    const record = await recordOf(sample.ids.crash);
    expect(record.cause).toBe('parser crashes on order 4711 lines (OPS-1)');
    expect(record.audit).toStrictEqual([
      {
        who: operator,
        when: expect.any(String),
        what: 'set-cause "parser crashes on order 4711 lines (OPS-1)"',
        why: 'identified the cause',
      },
    ]);
    await page.getByRole('link', { name: 'Back to the record' }).click();
    expect(await rendered(page.getByRole('region', { name: 'Audit trail' }))).toContain('set-cause');
  });

  it('given a replay of a record without a cause, then the dry run and the refusal give the CLI reason, and nothing changes', async () => {
    // Act
    await page.goto(recordPath(sample.ids.permanent2));
    await page.getByRole('link', { name: 'Replay…' }).click();
    const dryRun = await rendered(page.getByRole('region', { name: 'What will happen' }));
    const status = await submit('Replay it');

    // Assess: the refusal names the whole command, and links to doing it here.
    const command = `pq cause ${sample.ids.permanent2} "what went wrong"`;
    expect(dryRun).toContain(`refused: no cause is recorded yet: run ${command} first`);
    expect(status).toBe(409);
    expect(await rendered(page.getByRole('alert'))).toBe(
      `Refused: record ${sample.ids.permanent2}: no cause is recorded yet: run ${command} first\n\nNothing was changed.\n\nRecord a cause…`,
    );
    expect(await recordOf(sample.ids.permanent2)).toMatchObject({ status: 'open', audit: [] });
    await page.getByRole('link', { name: 'Record a cause…' }).click();
    expect(await rendered(page.getByRole('heading', { level: 1 }))).toBe(
      `Record a cause for ${sample.ids.permanent2}`,
    );
  });

  it('given a group whose every record would be refused, then its replay cannot be confirmed, and says why', async () => {
    const record = await recordOf(sample.ids.script);

    await page.goto(`/act/replay-group?group=${encodeURIComponent(groupId(record.errorSignature))}`);
    const happens = await rendered(page.getByRole('region', { name: 'What will happen' }));
    const button = page.getByRole('button', { name: 'Replay 0 record(s)' });

    expect(happens).toContain('0 of 1 record(s) would be replayed');
    expect(await button.isDisabled()).toBe(true);
    expect(await rendered(page.locator('#blocked'))).toBe(
      'Nothing to replay: every record of the group would be refused (the dry run says why).',
    );
  });

  it('given a record with a cause, then its replay sends it and is audited as pq replay', async () => {
    await page.goto(recordPath(sample.ids.crash));
    await page.getByRole('link', { name: 'Replay…' }).click();
    await page.getByLabel('Why now').fill('fix deployed (OPS-1)');
    const status = await submit('Replay it');

    expect(status).toBe(200);
    expect(await outcome()).toMatch(
      new RegExp(
        `^Replayed ${sample.ids.crash} as message [\\w-]+ \\(ledger generation 1: a fresh attempt budget\\)\\. Status: replayed\\.`,
      ),
    );
    const record = await recordOf(sample.ids.crash);
    expect(record.status).toBe('replayed');
    expect(record.audit.map((entry) => [entry.who, entry.what, entry.why])).toStrictEqual([
      [operator, 'set-cause "parser crashes on order 4711 lines (OPS-1)"', 'identified the cause'],
      [operator, 'replay-started', 'fix deployed (OPS-1)'],
      [operator, 'replay', 'fix deployed (OPS-1)'],
    ]);
  });

  it('given a failure group, then a cause for all of it, a dry-run count, and its replay', async () => {
    // Prepare (P1 and P2 alike; either may have been timed out into a crash on a slow machine)
    expect(permanentGroupMembers().map((record) => record.id)).toContain(sample.ids.permanent1);

    // Act
    await page.goto('/groups');
    const row = page.getByRole('row').filter({ hasText: sample.permanentGroup });
    await row.getByRole('link', { name: 'Record a cause…' }).click();
    await page.getByLabel('Cause: what went wrong').fill('customer ids c-17 and c-18 were not migrated');
    const members = permanentGroupMembers().map((record) => record.id);
    const caused = await submit(`Record the cause on ${members.length} record(s)`);
    await page.goto('/groups');
    await page
      .getByRole('row')
      .filter({ hasText: sample.permanentGroup })
      .getByRole('link', { name: 'Replay the group…' })
      .click();
    const dryRun = await rendered(page.getByRole('region', { name: 'What will happen' }));
    const replayed = await submit(`Replay ${members.length} record(s)`);

    // Assess
    expect(caused).toBe(200);
    expect(dryRun).toContain(
      `${members.length} of ${members.length} record(s) would be replayed, 0 refused.`,
    );
    expect(replayed).toBe(200);
    expect(await outcome()).toMatch(/replayed\s+as message/);
    for (const id of members) {
      const record = await recordOf(id);
      expect(record.status).toBe('replayed');
      expect(record.audit.map((entry) => entry.what)).toStrictEqual([
        'set-cause "customer ids c-17 and c-18 were not migrated"',
        'replay-started',
        'replay',
      ]);
    }
  });

  it('given an open record to discard, then it is resolved, content kept, audited as pq discard', async () => {
    await page.goto(recordPath(sample.ids.script));
    await page.getByRole('link', { name: 'Discard…' }).click();
    await page.getByLabel('Why it must not run').fill('test message from a pentest');
    const status = await submit('Discard it');

    expect(status).toBe(200);
    expect(await outcome()).toContain(`Discarded ${sample.ids.script}: resolved, nothing replayed.`);
    const record = await recordOf(sample.ids.script);
    expect(record.status).toBe('resolved');
    expect(record.audit.map((entry) => [entry.who, entry.what, entry.why])).toStrictEqual([
      [operator, 'discard', 'test message from a pentest'],
    ]);
  });

  it('given outcome-unknown records, then done, not-done (from the keyboard) and discard reach their executions as pq verify', async () => {
    // Act
    await answer(sample.ids.unknown1, 'Yes, it happened (done)', 'charge ch_1 found in the payments console');
    await answerFromTheKeyboard(sample.ids.unknown2, 'no charge in the payments console');
    await answer(sample.ids.unknown3, 'Neither: discard it (discard)', 'order cancelled by the customer');

    // Assess
    const settled = await eventually('the three answers applied by their executions', async () => {
      const records = await Promise.all(
        [sample.ids.unknown1, sample.ids.unknown2, sample.ids.unknown3].map((id) => recordOf(id)),
      );
      return records.every((record) => record.status !== 'awaiting-operator') ? records : undefined;
    });
    expect(settled.map((record) => record.status)).toStrictEqual(['resolved', 'replayed', 'resolved']);
    expect(
      settled.map((record) => record.audit.map((entry) => [entry.who, entry.what, entry.why])),
    ).toStrictEqual([
      [[operator, 'done', 'charge ch_1 found in the payments console']],
      [
        [
          operator,
          'set-cause "no charge in the payments console"',
          'verify --not-done: the outside call did not happen',
        ],
        [operator, 'replay', 'no charge in the payments console'],
        [operator, 'not-done', 'no charge in the payments console'],
      ],
      [[operator, 'discard', 'order cancelled by the customer']],
    ]);
  });

  it('given a freeze, then a replay is refused with the CLI reason until the unfreeze', async () => {
    // Act
    await page.goto('/');
    await page.getByRole('link', { name: 'Freeze…' }).click();
    await page.getByLabel('Reason').fill('INC-7: payments provider degraded');
    const frozen = await submit('Freeze replay');
    await page.goto('/');
    const overview = await rendered(page.getByRole('region', { name: 'Consumption' }));
    await page.goto(`/act/replay?id=${encodeURIComponent(sample.ids.notJson)}`);
    const refused = await submit('Replay it');
    const refusal = await rendered(page.getByRole('alert'));
    await page.goto('/');
    await page.getByRole('link', { name: 'Unfreeze…' }).click();
    await page.getByLabel('Reason').fill('INC-7 resolved');
    const unfrozen = await submit('Unfreeze replay');

    // Assess
    expect(frozen).toBe(200);
    expect(overview).toMatch(/Replay\s+FROZEN by .* INC-7: payments provider degraded/);
    expect(refused).toBe(409);
    expect(refusal).toContain(
      `Refused: record ${sample.ids.notJson}: replay is frozen for this pipeline (see status; unfreeze first)`,
    );
    expect(unfrozen).toBe(200);
    expect((await sample.control.read()).freeze).toMatchObject({
      frozen: false,
      who: operator,
      why: 'INC-7 resolved',
    });
  });

  it('given the stopped consumer, then hold and resume answer its pause execution, audited on the breaker', async () => {
    // Act
    await page.goto('/');
    await page.getByRole('link', { name: 'Hold…' }).first().click();
    await page.getByLabel('Reason').fill('checking the quarantine first');
    const held = await submit('Hold the pause');
    const heldText = await outcome();
    const afterHold = await sample.control.read();
    await eventually('the pause waiting again after the hold', async () => {
      await collectTaskTokens();
      return (await sample.control.read()).breaker.waitingForOperator || undefined;
    });
    await page.goto('/');
    await page.getByRole('link', { name: 'Resume…' }).first().click();
    await page.getByLabel('Reason').fill('quarantine reviewed: capacity freed');
    const resumed = await submit('Resume consumption');
    const resumedText = await outcome();
    const closed = await eventually('the breaker closed', async () => {
      const { breaker } = await sample.control.read();
      return breaker.breaker?.state === 'closed' ? breaker : undefined;
    });
    await page.goto('/');
    const overview = await rendered(page.getByRole('region', { name: 'Consumption' }));

    // Assess
    expect([held, resumed]).toStrictEqual([200, 200]);
    expect(heldText).toContain(
      'Recorded hold on the breaker. The waiting pause execution has been answered.',
    );
    expect(resumedText).toContain('Recorded resume on the breaker.');
    expect(afterHold.breaker.audit.map((entry) => [entry.who, entry.what, entry.why])).toContainEqual([
      operator,
      'hold',
      'checking the quarantine first',
    ]);
    expect(closed.audit.map((entry) => [entry.what, entry.why])).toContainEqual([
      'resume',
      'quarantine reviewed: capacity freed',
    ]);
    expect(overview).toMatch(/Breaker\s+closed \(consuming normally\)/);
    expect(overview).toMatch(/Mapping\s+Enabled/);
  });
});

describe('the backstop (issue 21)', () => {
  it('given messages SQS moved to the backstop, then the page lists them, one is taken into quarantine with its exact bytes and one redriven', async () => {
    // Prepare: two messages in the backstop queue (as SQS leaves them there).
    const { sqs } = sample.pipeline.clients;
    const queue = await BackstopQueue.find(sqs, sample.pipeline.env(ENV.sourceQueueUrl));
    const backstopUrl = String(queue?.location.url);
    const kept = '{"id":"backstop-1","note":"ünïcødé"}';
    const send = async (body: string) =>
      String(
        (await sqs.send(new SendMessageCommand({ QueueUrl: backstopUrl, MessageBody: body }))).MessageId,
      );
    const taken = await send(kept);
    const redriven = await send('{"id":"backstop-2"}');

    // Act
    await page.goto('/');
    await page.getByRole('link', { name: 'Backstop' }).click();
    const listed = await rendered(page.getByRole('table'));
    await page
      .getByRole('row', { name: new RegExp(taken) })
      .getByRole('link', { name: 'Take into quarantine…' })
      .click();
    const happens = await rendered(page.getByRole('region', { name: 'What will happen' }));
    await expectLabelledControls(page);
    await page.getByLabel('Why you take it').fill('the ledger was throttled (OPS-9)');
    const tookStatus = await submit('Take it into quarantine');
    const took = await outcome();
    await page.goto('/backstop');
    await page
      .getByRole('row', { name: new RegExp(redriven) })
      .getByRole('link', { name: 'Redrive…' })
      .click();
    const redriveStatus = await submit('Redrive it');
    const redrove = await outcome();
    await page.goto('/backstop');
    const after = await rendered(page.locator('main'));

    // Assess
    expect(listed).toContain(taken);
    expect(listed).toContain(redriven);
    expect(happens).toContain(
      `becomes quarantine record ${backstopQuarantineId(taken)} with reason backstop`,
    );
    expect(tookStatus).toBe(200);
    expect(took).toBe(`Taken ${taken}: ${backstopQuarantineId(taken)}\n`);
    const record = await recordOf(backstopQuarantineId(taken));
    expect(record).toMatchObject({ reason: 'backstop', status: 'open' });
    expect(record.audit).toStrictEqual([
      {
        who: operator,
        when: expect.any(String),
        what: 'backstop-take',
        why: 'the ledger was throttled (OPS-9)',
      },
    ]);
    expect(sha256(await sample.records.readBody(record.id))).toBe(sha256(Buffer.from(kept, 'utf8')));
    expect(redriveStatus).toBe(200);
    expect(redrove).toMatch(new RegExp(`^Redriven ${redriven}: sent to the source queue as \\S+\n$`));
    expect(after).toContain('the backstop is empty.');
  });
});

describe('for every operator', () => {
  it('given the keyboard only, then the skip link, the navigation and a record are reachable', async () => {
    await page.goto('/');

    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('A:Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement.id')).toBe('main');
    await page.goto('/');
    await tabTo(page, 'A:Records');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${origin}/records`);
    await tabTo(page, `A:${(await firstRecordId()) ?? ''}`);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/records\/q-/);
    expect(await rendered(page.getByRole('heading', { level: 1 }))).toMatch(/^Record q-/);
  });

  it('given everything the browser received, then no task token is in any of it', async () => {
    // Prepare
    await collectTaskTokens();
    const bodies = await Promise.all(received);

    // Assess
    expect(tokens.size).toBeGreaterThanOrEqual(4);
    expect(bodies.length).toBeGreaterThan(40);
    for (const body of bodies) {
      for (const token of tokens) expect(body.includes(token)).toBe(false);
      expect(body).not.toMatch(/taskToken/i);
    }
  });

  it('given Ctrl-C, then the console stops', async () => {
    const exited = await stopConsoleProcess();

    expect(exited).toStrictEqual({ code: null, signal: 'SIGINT' });
  });
});

/** Ctrl-C to the console this test started; undefined when it had stopped already. */
async function stopConsoleProcess() {
  const child = consoleProcess;
  consoleProcess = undefined;
  return child === undefined ? undefined : interrupt(child);
}

async function collectTaskTokens(): Promise<void> {
  const waiting = await sample.records.list({ status: 'awaiting-operator' });
  const found = await Promise.all([
    sample.control.breakerTaskToken(),
    ...waiting.map((record) => sample.records.taskTokenOf(record.id)),
  ]);
  for (const token of found) if (token) tokens.add(token);
}

/** The cookie the printed URL's secret is exchanged for. */
async function sessionCookie(): Promise<string> {
  const response = await raw(origin, new URL(printed).pathname + new URL(printed).search);
  const cookie = [response.headers['set-cookie'] ?? []].flat()[0] ?? '';
  expect(cookie).toMatch(/^pq_console_\d+=[\w-]+; Path=\/; HttpOnly; SameSite=Strict$/);
  return cookie.split(';')[0] ?? '';
}

/** Presses a form's button; the status of the response it posted, once its page shows. */
async function submit(button: string): Promise<number> {
  const [response] = await Promise.all([
    page.waitForResponse((candidate) => candidate.request().method() === 'POST'),
    page.getByRole('button', { name: button }).click(),
  ]);
  await page.getByRole('heading', { level: 1, name: /^(Done|Refused|Failed): / }).waitFor();
  // A failure's page is its diagnosis.
  if (response.status() === 500) throw new Error(`${button} failed: ${await outcome()}`);
  return response.status();
}

async function outcome(): Promise<string> {
  return rendered(page.locator('.outcome'));
}

async function answer(id: string, decision: string, checked: string): Promise<void> {
  await page.goto(recordPath(id));
  await page.getByRole('link', { name: /^Answer: did the outside system receive the call\?/ }).click();
  expect(
    await rendered(page.getByRole('group', { name: 'Did the outside system receive this call?' })),
  ).toContain('The worker called outside-system');
  await expectLabelledControls(page);
  await page.getByLabel(decision).check();
  await page.getByLabel('What you checked').fill(checked);
  expect(await submit('Send the answer')).toBe(200);
  expect(await outcome()).toContain(`Answered ${id}:`);
}

/** The same answer with the keyboard alone: Tab to the question, arrows to the answer, type, Enter. */
async function answerFromTheKeyboard(id: string, checked: string): Promise<void> {
  await page.goto(`/act/verify?id=${encodeURIComponent(id)}`);
  await tabTo(page, 'INPUT:decision-done');
  await page.keyboard.press('ArrowDown');
  expect(await page.getByLabel('No, it did not happen (not-done)').isChecked()).toBe(true);
  await tabTo(page, 'INPUT:reason');
  await page.keyboard.type(checked);
  const [response] = await Promise.all([
    page.waitForResponse((candidate) => candidate.request().method() === 'POST'),
    page.keyboard.press('Enter'),
  ]);
  await page.getByRole('heading', { level: 1, name: /^Done: / }).waitFor();
  expect(response.status()).toBe(200);
  expect(await outcome()).toContain(`Answered ${id}: not-done. Replayed once as message`);
}

async function firstRecordId(): Promise<string | undefined> {
  return (
    (await rendered(
      page.getByRole('table', { name: 'Quarantine records, newest first' }).locator('tbody a').first(),
    )) || undefined
  );
}

function permanentGroupMembers(): QuarantineRecord[] {
  return quarantined.filter((record) => groupId(record.errorSignature) === sample.permanentGroup);
}

async function recordOf(id: string): Promise<QuarantineRecord> {
  const record = await sample.records.get(id);
  if (!record) throw new Error(`no record ${id}`);
  return record;
}

function recordPath(id: string): string {
  return `/records/${encodeURIComponent(id)}`;
}
