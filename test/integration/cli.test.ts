/**
 * The operator CLI's looking commands (status, list, show) and its command line, against the
 * construct deployed into moto and found through its consumer function's environment.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PQ_COMMANDS } from '../../bin/pq-commands';
import { runCli } from '../../cli/run';
import { QuarantineRecords } from '../../lambdas/adapters/quarantine-reader';
import { groupId } from '../../lambdas/core/operator';
import { LOCAL_CREDENTIALS } from '../../tools/local-aws/moto';
import { type CliHarness, PARSE_ERROR, startCliHarness } from './support/cli-harness';

const ROOT = join(__dirname, '..', '..');
const SECRET_TOKEN = 'AAAA-task-token-must-never-be-printed-ZZZZ';
// What a hostile body puts into a parse error: clear the screen, set the title, ring the bell, a
// C1 CSI, and a bidi override that makes "exe.png" read as "gnp.exe".
const HOSTILE = '\u001b[2J\u001b]0;pwned\u0007\u009b31m\u202egnp.exe';
const HOSTILE_SHOWN = '\\x1b[2J\\x1b]0;pwned\\x07\\x9b31m\\u202egnp.exe';

/** Nothing in `text` that a terminal acts on instead of showing. */
function expectInert(text: string): void {
  for (const char of ['\u001b', '\u0007', '\u009b', '\u202e']) expect(text).not.toContain(char);
}

let cli: CliHarness;
let workDir: string;

/** runCli with the given argv and environment only (the harness adds its target options to the end). */
async function runRaw(argv: readonly string[], env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    argv,
    {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env,
    },
    PQ_COMMANDS,
  );
  return { code, stdout, stderr };
}

/** The AWS SDK reads its files and credentials from process.env itself: set (or unset) them for `act` only. */
async function withEnvironment<T>(
  variables: Record<string, string | undefined>,
  act: () => Promise<T>,
): Promise<T> {
  const saved = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
  const assign = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  assign(variables);
  try {
    return await act();
  } finally {
    assign(saved);
  }
}

beforeAll(async () => {
  cli = await startCliHarness();
  workDir = mkdtempSync(join(tmpdir(), 'pq-cli-'));
});
afterAll(async () => cli?.stop());

describe('pq status', () => {
  it('shows the mapping, queue depth, breaker, isolation and freeze of a quiet pipeline', async () => {
    const { code, stdout, stderr } = await cli.run('status');

    expect({ code, stderr }).toStrictEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/^Mapping: +Enabled \(batch size 10, max concurrency 2, uuid [0-9a-f-]+\)$/m);
    expect(stdout).toMatch(/^Queue: +0 visible, 0 in flight, 0 delayed$/m);
    expect(stdout).toMatch(
      /^Oldest message: +not reported in the last 5 minutes: SQS publishes it to CloudWatch every minute while the queue holds a message; the local AWS publishes none$/m,
    );
    expect(stdout).toMatch(/^Breaker: +closed/m);
    expect(stdout).toMatch(/^Isolation: +off$/m);
    expect(stdout).toMatch(/^Replay: +allowed$/m);
  });

  it('counts unresolved records by reason, in JSON for scripts', async () => {
    await cli.quarantine({ reason: 'crash-limit' });
    await cli.quarantine({ reason: 'outcome-unknown', status: 'awaiting-operator' });

    const { code, stdout } = await cli.run('status', '--json');

    expect(code).toBe(0);
    const status = JSON.parse(stdout);
    expect(status).toMatchObject({
      function: cli.functionName,
      mapping: { state: 'Enabled', batchSize: 10, maximumConcurrency: 2 },
      queue: { visible: 0, inFlight: 0, delayed: 0, oldestMessageAgeSeconds: null },
      breaker: { state: 'closed', waitingForOperator: false },
      replay: { frozen: false },
    });
    expect(status.queue).not.toHaveProperty('oldestMessageAgeProblem');
    expect(status.unresolvedRecords).toEqual(
      expect.arrayContaining([
        { reason: 'crash-limit', open: expect.any(Number), awaitingOperator: 0, replaying: 0 },
        { reason: 'outcome-unknown', open: 0, awaitingOperator: expect.any(Number), replaying: 0 },
      ]),
    );
  });

  it('shows the open-record count the consumer stops at (rule 11a) beside the records it lists', async () => {
    // Prepare: a counter that agrees with the table, then one more quarantine through the writer.
    expect((await cli.run('recount', '--reason', 'status test')).code).toBe(0);
    await cli.quarantine({ reason: 'crash-limit' });

    // Act
    const json = JSON.parse((await cli.run('status', '--json')).stdout);
    const text = (await cli.run('status')).stdout;

    // Assess
    const listed = json.unresolvedRecords.reduce(
      (sum: number, count: { open: number; awaitingOperator: number }) =>
        sum + count.open + count.awaitingOperator,
      0,
    );
    expect(listed).toBeGreaterThan(0);
    expect(json.openRecords).toStrictEqual({ counted: listed, listed, capacity: expect.any(Number) });
    expect(text).toMatch(
      new RegExp(
        `^Open records: +${listed}, the consumer stops at ${json.openRecords.capacity} \\(rule 11a\\)$`,
        'm',
      ),
    );
  });

  it("given SQS published the age of the queue's oldest message, then its latest 1-minute maximum, text and JSON", async () => {
    // Prepare: what SQS publishes every minute (the local AWS publishes none of its own).
    const queueName = cli.pipeline.names.sourceQueueArn.split(':').at(-1);
    await (await cli.pipeline.clients.cloudwatch()).send(
      new PutMetricDataCommand({
        Namespace: 'AWS/SQS',
        MetricData: [
          {
            MetricName: 'ApproximateAgeOfOldestMessage',
            Dimensions: [{ Name: 'QueueName', Value: queueName }],
            Value: 3_725,
            Unit: 'Seconds',
            Timestamp: new Date(Date.now() - 20_000),
          },
        ],
      }),
    );

    // Act
    const text = await cli.run('status');
    const json = await cli.run('status', '--json');

    // Assess
    expect(text.stdout).toMatch(
      /^Oldest message: +1 h 2 min \(CloudWatch, 1-minute maximum at \d\d:\d\d UTC\)$/m,
    );
    expect(JSON.parse(json.stdout).queue).toStrictEqual({
      visible: 0,
      inFlight: 0,
      delayed: 0,
      oldestMessageAgeSeconds: 3_725,
    });
  });
});

describe('pq list', () => {
  it('lists records newest first and filters by status, reason and time', async () => {
    const older = await cli.quarantine({
      reason: 'unknown-error-repeated',
      createdAt: '2030-01-01T00:00:00.000Z',
    });
    const newer = await cli.quarantine({
      reason: 'unknown-error-repeated',
      createdAt: '2030-01-02T00:00:00.000Z',
    });

    const all = await cli.run('list', '--reason', 'unknown-error-repeated');
    const recent = await cli.run(
      'list',
      '--reason',
      'unknown-error-repeated',
      '--since',
      '2030-01-01T12:00Z',
    );
    const awaiting = await cli.run('list', '--status', 'awaiting-operator', '--json');

    expect(all.code).toBe(0);
    expect(all.stdout.indexOf(newer.id)).toBeLessThan(all.stdout.indexOf(older.id));
    expect(all.stdout).toMatch(/^ID +STATUS +REASON +QUARANTINED +ATT\/CHG +CAUSE +LAST ERROR$/m);
    expect(recent.stdout).toContain(newer.id);
    expect(recent.stdout).not.toContain(older.id);
    const statuses = JSON.parse(awaiting.stdout).records.map((record: { status: string }) => record.status);
    expect(new Set(statuses)).toStrictEqual(new Set(['awaiting-operator']));
  });

  it('groups records by error signature with counts and a short group id', async () => {
    const timeout = {
      class: 'unknown',
      name: 'GatewayError',
      message: 'upstream 502',
      stackHead: 'at call (x.js:1:1)',
    } as const;
    await cli.quarantine({ lastError: timeout });
    await cli.quarantine({ lastError: { ...timeout, message: 'upstream 503' } });

    const { code, stdout } = await cli.run('list', '--group', '--json');

    expect(code).toBe(0);
    const signature = 'unknown | GatewayError | at call (x.js) | upstream #';
    expect(JSON.parse(stdout).groups).toContainEqual(
      expect.objectContaining({
        group: groupId(signature),
        errorSignature: signature,
        count: 2,
        withCause: 0,
      }),
    );
    expect((await cli.run('list', '--group')).stdout).toMatch(
      new RegExp(`^${groupId(signature)} +2 +0/2 +permanent-error +\\S+ +unknown \\| GatewayError`, 'm'),
    );
  });

  it('given --limit N, then it shows the newest N and says how many there were, in text and JSON', async () => {
    // Prepare: three records of one reason, quarantined later than any other test's.
    const seeded = [];
    for (const day of ['01', '02', '03']) {
      seeded.push(await cli.quarantine({ reason: 'crash-limit', createdAt: `2031-01-${day}T00:00:00.000Z` }));
    }
    const since = ['--reason', 'crash-limit', '--since', '2031-01-01T00:00Z'];

    // Act
    const text = await cli.run('list', ...since, '--limit', '2');
    const json = await cli.run('list', ...since, '--limit', '2', '--json');
    const all = await cli.run('list', ...since, '--limit', '3');

    // Assess
    expect(text).toMatchObject({ code: 0, stderr: '' });
    const ids = seeded.map((record) => record.id);
    expect(text.stdout).toContain(ids[2]);
    expect(text.stdout).toContain(ids[1]);
    expect(text.stdout).not.toContain(ids[0]);
    expect(text.stdout.endsWith('\n(2 of 3 records shown: --limit 2)\n')).toBe(true);
    const listed = JSON.parse(json.stdout);
    expect(listed.records.map((record: { id: string }) => record.id)).toStrictEqual([ids[2], ids[1]]);
    expect(listed.total).toBe(3);
    expect(all.stdout).not.toContain('shown: --limit');
  });

  it('given --group --limit 1, then it shows the biggest group only', async () => {
    // Prepare
    const lastError = {
      class: 'unknown',
      name: 'LimitError',
      message: 'x',
      stackHead: 'at limit (l.js:1:1)',
    } as const;
    for (let copy = 0; copy < 2; copy++) {
      await cli.quarantine({ reason: 'crash-limit', createdAt: '2032-01-01T00:00:00.000Z', lastError });
    }
    await cli.quarantine({ reason: 'crash-limit', createdAt: '2032-01-01T00:00:00.000Z' });

    // Act
    const { code, stdout } = await cli.run(
      'list',
      '--group',
      '--since',
      '2032-01-01T00:00Z',
      '--limit',
      '1',
      '--json',
    );

    // Assess
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      groups: [{ count: 2, errorSignature: expect.stringContaining('LimitError') }],
      total: 2,
    });
  });

  it('refuses an unknown status (exit 252), naming the choices', async () => {
    const { code, stderr } = await cli.run('list', '--status', 'closed');

    expect(code).toBe(252);
    expect(stderr).toBe(
      'pq list: --status must be one of open, awaiting-operator, replaying, resolved, replayed (given closed) (pq list --help)\n',
    );
  });
});

describe('pq show', () => {
  it('shows evidence, the ledger item, attributes, audit and a text body between markers', async () => {
    const body = '{"order": 12, "note": "Grüße\\u0021"}\n  indented line';
    const seeded = await cli.quarantine({
      body,
      messageAttributes: { tenant: { dataType: 'String', stringValue: 'acme' } },
    });

    const { code, stdout } = await cli.run('show', seeded.id);

    expect(code).toBe(0);
    expect(stdout).toContain(`Quarantine record ${seeded.id}\n`);
    expect(stdout).toMatch(/^Reason: +permanent-error$/m);
    expect(stdout).toMatch(/^Cause: +unidentified$/m);
    expect(stdout).toContain('permanent SyntaxError: Unexpected token');
    expect(stdout).toContain('  at process (/var/task/worker.js:12:20)\n');
    expect(stdout).toMatch(/Attempts ledger \(key order-[^)]+\)\nState: +quarantined\n/);
    expect(stdout).toMatch(/^tenant +String +acme$/m);
    expect(stdout).toContain('(no operator action yet)');
    const sha = createHash('sha256').update(body).digest('hex');
    expect(stdout).toContain(
      `Body: ${Buffer.byteLength(body)} bytes, sha256 ${sha}\n-----BEGIN BODY-----\n${body}\n-----END BODY-----\n`,
    );
  });

  it('does not print a binary body, and --body-out writes its exact bytes', async () => {
    const bytes = Buffer.from([0x7b, 0x00, 0x1b, 0x5b, 0x32, 0x4a, 0xff, 0xfe, 0x0a]);
    const seeded = await cli.quarantine({ body: bytes });
    const file = join(workDir, 'binary-body');

    const { code, stdout } = await cli.run('show', seeded.id, '--body-out', file);

    expect(code).toBe(0);
    expect(stdout).toContain(`Body: 9 bytes, sha256 ${createHash('sha256').update(bytes).digest('hex')}\n`);
    expect(stdout).toContain(`(exact bytes written to ${file})\n(not printed: not plain UTF-8 text)\n`);
    expect(stdout).not.toContain('\u001b');
    expect(Buffer.compare(readFileSync(file), bytes)).toBe(0);
  });

  it('writes a text body byte for byte too, and never overwrites a file', async () => {
    const seeded = await cli.quarantine({ body: 'crlf\r\nend, no newline' });
    const file = join(workDir, 'text-body');
    writeFileSync(join(workDir, 'taken'), 'keep me');

    const written = await cli.run('show', seeded.id, '--body-out', file);
    const refused = await cli.run('show', seeded.id, '--body-out', join(workDir, 'taken'));

    expect(written.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('crlf\r\nend, no newline');
    expect(refused).toMatchObject({
      code: 2,
      stderr: `pq show: refused: ${join(workDir, 'taken')} exists: not overwritten\n`,
    });
    expect(readFileSync(join(workDir, 'taken'), 'utf8')).toBe('keep me');
  });

  it('writes --body-out readable by its owner only (mode 0600, not the 0644 of umask 022)', async () => {
    const seeded = await cli.quarantine({ body: '{"card": "4111 1111 1111 1111"}' });
    const file = join(workDir, 'private-body');
    const umask = process.umask(0o022);

    try {
      expect((await cli.run('show', seeded.id, '--body-out', file)).code).toBe(0);
    } finally {
      process.umask(umask);
    }

    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('never prints a stored task token: not in show, list or status, text or JSON', async () => {
    const seeded = await cli.quarantine({ reason: 'outcome-unknown', status: 'awaiting-operator' });
    await cli.pipeline.clients.dynamodb.send(
      new UpdateItemCommand({
        TableName: cli.pipeline.names.quarantineTable,
        Key: { id: { S: seeded.id } },
        UpdateExpression: 'SET taskToken = :token',
        ExpressionAttributeValues: { ':token': { S: SECRET_TOKEN } },
      }),
    );

    const outputs = await Promise.all([
      cli.run('show', seeded.id),
      cli.run('show', seeded.id, '--json'),
      cli.run('list', '--json'),
      cli.run('list', '--status', 'awaiting-operator'),
      cli.run('status', '--json'),
    ]);

    for (const output of outputs) {
      expect(output.code).toBe(0);
      expect(output.stdout + output.stderr).not.toContain(SECRET_TOKEN);
    }
  });

  it('says an unknown id is not found (exit 3)', async () => {
    expect(await cli.run('show', 'q-nope')).toStrictEqual({
      code: 3,
      stdout: '',
      stderr: 'pq show: not found: no quarantine record q-nope (pq list shows the ids)\n',
    });
  });
});

describe('pq list --max-items', () => {
  it('reads one page a call, and its tokens walk every record once, newest first', async () => {
    // Prepare: seven records of a reason no other test uses, one a day.
    const seeded = [];
    for (let day = 1; day <= 7; day++) {
      seeded.push(
        await cli.quarantine({
          reason: 'transient-retries-exhausted',
          createdAt: `2031-01-0${day}T00:00:00.000Z`,
        }),
      );
    }
    const pages = vi.spyOn(QuarantineRecords.prototype, 'page');
    const fullReads = vi.spyOn(QuarantineRecords.prototype, 'list');
    const queries = { page: [] as number[], full: 0 };

    // Act: page after page, as a script would.
    const walked: string[] = [];
    let token: string | undefined;
    try {
      for (let call = 0; call < 10; call++) {
        const tokenArgs = token === undefined ? [] : ['--starting-token', token];
        const run = await cli.run(
          ...[
            'list',
            '--status',
            'open',
            '--reason',
            'transient-retries-exhausted',
            '--max-items',
            '3',
            '--json',
          ],
          ...tokenArgs,
        );
        expect(run).toMatchObject({ code: 0, stderr: '' });
        const page = JSON.parse(run.stdout) as { records: { id: string }[]; nextToken?: string };
        expect(page.records.length).toBeLessThanOrEqual(3);
        walked.push(...page.records.map((record) => record.id));
        queries.page.push(pages.mock.calls.length);
        token = page.nextToken;
        if (token === undefined) break;
      }
      queries.full = fullReads.mock.calls.length;
    } finally {
      pages.mockRestore();
      fullReads.mockRestore();
    }

    // Assess: one Query a call, no full read, every record once, newest first.
    expect(queries.page).toStrictEqual(queries.page.map((_, call) => call + 1));
    expect(queries.full).toBe(0);
    expect(token).toBeUndefined();
    expect(walked).toStrictEqual(seeded.map((record) => record.id).reverse());
  });

  it('given two statuses, then a record fetched but not shown comes on the next page', async () => {
    // Prepare: open and awaiting-operator records of one reason, their times interleaved.
    const seeded = [];
    for (let day = 1; day <= 6; day++) {
      seeded.push(
        await cli.quarantine({
          reason: 'receive-limit',
          status: day % 2 === 0 ? 'awaiting-operator' : 'open',
          createdAt: `2032-01-0${day}T00:00:00.000Z`,
        }),
      );
    }

    // Act
    const walked: string[] = [];
    let token: string | undefined;
    for (let call = 0; call < 10; call++) {
      const tokenArgs = token === undefined ? [] : ['--starting-token', token];
      const run = await cli.run(
        'list',
        '--reason',
        'receive-limit',
        '--max-items',
        '2',
        '--json',
        ...tokenArgs,
      );
      const page = JSON.parse(run.stdout) as { records: { id: string }[]; nextToken?: string };
      walked.push(...page.records.map((record) => record.id));
      token = page.nextToken;
      if (token === undefined) break;
    }

    // Assess
    expect(walked).toStrictEqual(seeded.map((record) => record.id).reverse());
  });

  it('refuses a token it did not print, and --max-items beside --group, --limit or --since (exit 252)', async () => {
    expect((await cli.run('list', '--max-items', '2', '--starting-token', 'bm90IGEgdG9rZW4')).stderr).toBe(
      'pq list: --starting-token is not a token pq list printed (given bm90IGEgdG9rZW4) (pq list --help)\n',
    );
    expect((await cli.run('list', '--max-items', '2', '--group')).code).toBe(252);
    expect((await cli.run('list', '--starting-token', 'x')).code).toBe(252);
  });
});

describe('pq find', () => {
  it('finds the records of one message by its key and by its message id, and no other', async () => {
    // Prepare: a message quarantined, and under its key a collision's record; another message.
    const first = await cli.quarantine();
    const collision = await cli.quarantine({ collidesWith: first });
    const other = await cli.quarantine();
    const collisionMessageId = (await cli.records.get(collision.id))?.messageId ?? '';

    // Act
    const byKey = await cli.run('find', '--key', first.messageKey, '--json');
    const byMessageId = await cli.run('find', '--message-id', collisionMessageId);
    const text = await cli.run('find', '--key', first.messageKey);

    // Assess
    expect(byKey.code).toBe(0);
    const ids = (JSON.parse(byKey.stdout) as { records: { id: string }[] }).records.map(
      (record) => record.id,
    );
    expect(ids.sort()).toStrictEqual([first.id, collision.id].sort());
    expect(byMessageId).toMatchObject({ code: 0, stdout: expect.stringContaining(collision.id) });
    expect(byMessageId.stdout).not.toContain(first.id);
    expect(text.stdout).toMatch(/^ID +STATUS +REASON/);
    expect(text.stdout).not.toContain(other.id);
  });

  it('given --output text, then each record is one tab-separated line, its id in the column the JSON keys put it', async () => {
    const first = await cli.quarantine();
    const collision = await cli.quarantine({ collidesWith: first });

    const json = JSON.parse((await cli.run('find', '--key', first.messageKey, '--json')).stdout) as {
      records: Record<string, unknown>[];
    };
    const text = await cli.run('find', '--key', first.messageKey, '--output', 'text');
    const status = await cli.run('status', '--output', 'text');

    expect(text.code).toBe(0);
    // As the AWS CLI's text: the columns are the records' scalar keys in alphabetical order.
    const columns = [
      ...new Set(
        json.records.flatMap((record) =>
          Object.keys(record).filter((key) => typeof record[key] !== 'object'),
        ),
      ),
    ].sort();
    const rows = text.stdout.split('\n').filter((line) => line.startsWith('RECORDS\t'));
    const ids = rows.map((row) => row.split('\t')[columns.indexOf('id') + 1]);
    expect(ids.sort()).toStrictEqual([first.id, collision.id].sort());
    expect(status).toMatchObject({ code: 0, stdout: expect.stringMatching(/^BREAKER\t/m) });
  });

  it('says a key no record has is not found (exit 3), and wants exactly one of --key and --message-id (252)', async () => {
    expect(await cli.run('find', '--key', 'order-nobody')).toStrictEqual({
      code: 3,
      stdout: '',
      stderr: 'pq find: not found: no quarantine record of key order-nobody (pq list shows them all)\n',
    });
    expect((await cli.run('find')).code).toBe(252);
    expect((await cli.run('find', '--key', 'a', '--message-id', 'b')).code).toBe(252);
  });
});

describe('stored strings in text output', () => {
  it('shows escapes, never the characters, in show, list, cause, freeze and status, and on stderr', async () => {
    const seeded = await cli.quarantine({
      lastError: { ...PARSE_ERROR, message: `Unexpected token in "${HOSTILE}"`, stackHead: `at ${HOSTILE}` },
    });
    await cli.pipeline.clients.dynamodb.send(
      new UpdateItemCommand({
        TableName: cli.pipeline.names.quarantineTable,
        Key: { id: { S: seeded.id } },
        UpdateExpression: 'SET messageKey = :key',
        ExpressionAttributeValues: { ':key': { S: `order-${HOSTILE}` } },
      }),
    );

    const cause = await cli.run('cause', seeded.id, `producer sent ${HOSTILE}`);
    const show = await cli.run('show', seeded.id);
    const list = await cli.run('list');
    const freeze = await cli.run('freeze', '--reason', `because ${HOSTILE}`);
    const status = await cli.run('status');
    await cli.run('unfreeze', '--reason', 'test over');
    const refused = await cli.run('show', `q-${HOSTILE}`);

    for (const output of [cause, show, list, freeze, status, refused])
      expectInert(output.stdout + output.stderr);
    expect(show.stdout).toContain(
      `permanent SyntaxError: Unexpected token in "${HOSTILE_SHOWN}"\n  at ${HOSTILE_SHOWN}\n`,
    );
    expect(show.stdout).toContain(`Attempts ledger (key order-${HOSTILE_SHOWN})\n`);
    expect(show.stdout).toMatch(/^Cause: +producer sent \\x1b\[2J/m);
    expect(list.stdout).toContain(`SyntaxError: Unexpected token in "${HOSTILE_SHOWN}"\n`);
    expect(freeze.stdout).toContain(`: because ${HOSTILE_SHOWN}).\n`);
    expect(status.stdout).toMatch(/^Replay: +FROZEN by .*: because \\x1b\[2J/m);
    expect(refused.stderr).toBe(
      `pq show: not found: no quarantine record q-${HOSTILE_SHOWN} (pq list shows the ids)\n`,
    );
  });

  it('keeps --json exact: the same strings, escaped as JSON escapes', async () => {
    const seeded = await cli.quarantine({ lastError: { ...PARSE_ERROR, message: HOSTILE } });

    const { code, stdout } = await cli.run('show', seeded.id, '--json');

    expect(code).toBe(0);
    expectInert(stdout);
    expect(JSON.parse(stdout).record.lastError.message).toBe(HOSTILE);
  });
});

describe('the command line', () => {
  it.each([
    [['frobnicate'], 'pq: unknown command "frobnicate" (pq --help)\n'],
    [['status', '--colour'], "pq status: Unknown option '--colour' (pq status --help)\n"],
    [['show'], 'pq show: expected ID, given 0 argument(s) (pq show --help)\n'],
  ])('refuses %j (exit 252) with one line on stderr', async (argv, stderr) => {
    expect(await cli.run(...argv)).toStrictEqual({ code: 252, stdout: '', stderr });
  });

  it('asks which consumer when neither --function nor PQ_FUNCTION is given', async () => {
    const { code, stderr } = await runRaw(['status'], {});

    expect({ code, stderr }).toStrictEqual({
      code: 252,
      stderr: 'pq status: which consumer? pass --function NAME (or set PQ_FUNCTION) (pq status --help)\n',
    });
  });

  it('given the global options before the command, and --endpoint for --endpoint-url, then it runs the same', async () => {
    // Prepare
    const { endpoint, region } = cli.pipeline.aws;

    // Act
    const { code, stdout, stderr } = await runRaw(
      ['--function', cli.functionName, '--endpoint', endpoint, '--region', region, '--json', 'status'],
      {},
    );

    // Assess
    expect({ code, stderr }).toStrictEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout)).toMatchObject({ function: cli.functionName, breaker: { state: 'closed' } });
  });

  describe('given no credentials or region in the environment, only in a profile of the AWS config files', () => {
    const target = () => [
      'status',
      '--function',
      cli.functionName,
      '--endpoint-url',
      cli.pipeline.aws.endpoint,
    ];

    /** Runs pq with the files' profile pq-local and nothing else: no keys, no instance role. */
    function runWithFiles(argv: readonly string[], env: Record<string, string> = {}) {
      const config = join(workDir, 'aws-config');
      const credentials = join(workDir, 'aws-credentials');
      writeFileSync(config, `[profile pq-local]\nregion = ${cli.pipeline.aws.region}\n`);
      writeFileSync(
        credentials,
        `[pq-local]\naws_access_key_id = ${LOCAL_CREDENTIALS.accessKeyId}\naws_secret_access_key = ${LOCAL_CREDENTIALS.secretAccessKey}\n`,
      );
      const files = {
        AWS_CONFIG_FILE: config,
        AWS_SHARED_CREDENTIALS_FILE: credentials,
        AWS_ACCESS_KEY_ID: undefined,
        AWS_SECRET_ACCESS_KEY: undefined,
        AWS_EC2_METADATA_DISABLED: 'true',
      };
      return withEnvironment(files, () => runRaw(argv, env));
    }

    it('given --profile (or AWS_PROFILE), then its credentials and its region are used', async () => {
      // Act
      const withProfile = await runWithFiles([...target(), '--profile', 'pq-local', '--json']);
      const fromEnv = await runWithFiles([...target(), '--json'], { AWS_PROFILE: 'pq-local' });

      // Assess
      for (const run of [withProfile, fromEnv]) {
        expect(run).toMatchObject({ code: 0, stderr: '' });
        expect(JSON.parse(run.stdout)).toMatchObject({
          function: cli.functionName,
          breaker: { state: 'closed' },
        });
      }
    });

    it('given no profile, then it says that the region is missing and how to give it (exit 252)', async () => {
      expect(await runWithFiles(target())).toStrictEqual({
        code: 252,
        stdout: '',
        stderr:
          'pq status: no region: pass --region REGION, set AWS_REGION, or use a --profile that has one (pq status --help)\n',
      });
    });

    it('given a profile the files do not have, then it names it (exit 252)', async () => {
      expect(await runWithFiles([...target(), '--profile', 'pq-nowhere'])).toMatchObject({
        code: 252,
        stderr: expect.stringContaining(
          'no region: the profile pq-nowhere has none, or is not in your AWS config files',
        ),
      });
    });

    it("given a region but no profile, then it prints the SDK's reason why it has no credentials (exit 1)", async () => {
      expect(await runWithFiles([...target(), '--region', cli.pipeline.aws.region])).toStrictEqual({
        code: 1,
        stdout: '',
        stderr: `pq status: failed: Lambda function ${cli.functionName}: configuration not read: CredentialsProviderError: Could not load credentials from any providers\n`,
      });
    });
  });

  it('runs as a real process: npx tsx bin/pq.ts status', async () => {
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'bin/pq.ts', 'status', ...cli.targetArgs], {
      cwd: ROOT,
      env: { ...process.env, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing' },
      timeout: 60_000,
    });

    expect(stdout).toMatch(/^Mapping: +Enabled/m);
    expect(stdout).toContain('Unresolved quarantine records');
  });
});
