/** The pure parts of the pages: the record timeline, the chart, the records list's filter and pages. */
import { describe, expect, it } from 'vitest';
import { bucketize, chart, chartStart } from '../../console/pages/chart';
import { PAGE_SIZE, parseListQuery, recordsPage, toFilter } from '../../console/pages/records';
import { recordTimeline } from '../../console/pages/timeline';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import type { LedgerEntry } from '../../lambdas/ports/ledger';

const crashed: QuarantineRecord = {
  id: 'q-1-g0-a3',
  status: 'open',
  reason: 'crash-limit',
  cause: 'unidentified',
  messageKey: 'order-1',
  messageId: 'm-1',
  generation: 0,
  attemptsStarted: 3,
  attemptsCharged: 3,
  stage: 'parsed',
  errorSignature: 'crash:parsed',
  firstAttemptAt: '2030-01-01T00:00:00.000Z',
  lastAttemptAt: '2030-01-01T00:02:00.000Z',
  createdAt: '2030-01-01T00:03:00.000Z',
  sourceQueueArn: 'arn:aws:sqs:us-east-1:1:orders',
  bodyKey: 'b',
  envelopeKey: 'e',
  bodyBytes: 10,
  audit: [],
};

describe('recordTimeline', () => {
  it('given a record that crashed three times, then first and last attempt, the crash, the quarantine', () => {
    // Act
    const events = recordTimeline(crashed, undefined);

    // Assess
    expect(events).toStrictEqual([
      {
        at: '2030-01-01T00:00:00.000Z',
        kind: 'attempt',
        what: 'First attempt started',
        detail: '3 started, 3 charged (generation 0)',
      },
      { at: '2030-01-01T00:02:00.000Z', kind: 'attempt', what: 'Attempt 3 started (the last)' },
      {
        kind: 'failure',
        what: 'Crashed: no error was caught (the worker died or timed out)',
        detail: 'last known stage parsed',
      },
      {
        at: '2030-01-01T00:03:00.000Z',
        kind: 'quarantine',
        what: 'Quarantined: crash-limit',
        detail: 'from arn:aws:sqs:us-east-1:1:orders',
      },
    ]);
  });

  it('given an outcome-unknown record answered and replayed, then the call, the wait, the answers and the reset in time order', () => {
    // Prepare
    const record: QuarantineRecord = {
      ...crashed,
      reason: 'outcome-unknown',
      status: 'replayed',
      attemptsStarted: 1,
      attemptsCharged: 0,
      lastError: {
        class: 'outcome-unknown',
        name: 'TimeoutError',
        message: 'socket hang up\nat x',
        stackHead: '',
      },
      external: { name: 'payments', status: 'pending', at: '2030-01-01T00:00:01.000Z' },
      waitingSince: '2030-01-01T00:03:01.000Z',
      audit: [
        { who: 'arn:erin', when: '2030-01-01T00:10:00.000Z', what: 'replay', why: 'no charge found' },
        {
          who: 'arn:erin',
          when: '2030-01-01T00:09:00.000Z',
          what: 'set-cause "x"',
          why: 'verify --not-done',
        },
      ],
    };
    const ledger = { generation: 1, replayedAt: '2030-01-01T00:09:30.000Z' } as LedgerEntry;

    // Act
    const events = recordTimeline(record, ledger);

    // Assess
    expect(events.map((event) => [event.at, event.what])).toStrictEqual([
      ['2030-01-01T00:00:00.000Z', 'First attempt started'],
      [undefined, 'Failed: outcome-unknown TimeoutError: socket hang up'],
      [
        '2030-01-01T00:00:01.000Z',
        'Outside call payments: sent, no result recorded (it may or may not have happened)',
      ],
      ['2030-01-01T00:03:00.000Z', 'Quarantined: outcome-unknown'],
      ['2030-01-01T00:03:01.000Z', 'Waiting for an operator: did the outside system receive the call?'],
      ['2030-01-01T00:09:00.000Z', 'set-cause "x" by arn:erin'],
      ['2030-01-01T00:09:30.000Z', 'Ledger reset for a replay: generation 1, a fresh attempt budget'],
      ['2030-01-01T00:10:00.000Z', 'replay by arn:erin'],
    ]);
  });
});

describe('the chart', () => {
  const now = new Date('2030-01-02T10:30:00.000Z');

  it('given records over the last day, then hourly buckets by reason, ending with the current hour', () => {
    // Prepare
    const records = [
      { createdAt: '2030-01-02T10:05:00.000Z', reason: 'crash-limit' },
      { createdAt: '2030-01-02T10:59:59.000Z', reason: 'permanent-error' },
      { createdAt: '2030-01-02T09:00:00.000Z', reason: 'crash-limit' },
      { createdAt: '2030-01-01T10:59:59.000Z', reason: 'crash-limit' },
    ];

    // Act
    const buckets = bucketize(records, '24h', now);

    // Assess
    expect(chartStart('24h', now).toISOString()).toBe('2030-01-01T11:00:00.000Z');
    expect(buckets).toHaveLength(24);
    expect(buckets.at(-1)).toStrictEqual({
      start: '2030-01-02T10:00:00.000Z',
      counts: { 'crash-limit': 1, 'permanent-error': 1 },
      total: 2,
    });
    expect(buckets.at(-2)?.counts).toStrictEqual({ 'crash-limit': 1 });
    expect(buckets.reduce((sum, bucket) => sum + bucket.total, 0)).toBe(3);
  });

  it('given buckets, then one bar segment per reason and bucket, and the numbers as text', async () => {
    const buckets = bucketize(
      [
        { createdAt: '2030-01-02T10:05:00.000Z', reason: 'crash-limit' },
        { createdAt: '2030-01-02T08:05:00.000Z', reason: 'outcome-unknown' },
        { createdAt: '2030-01-02T08:06:00.000Z', reason: 'crash-limit' },
      ],
      '24h',
      now,
    );

    const svg = String(await chart(buckets, '24h'));

    expect(svg.match(/<rect x=/g)).toHaveLength(3);
    expect(svg).toContain(
      '<title id="chart-title">3 quarantined in the last 24 hours, per hour: 2 crash-limit, 1 outcome-unknown</title>',
    );
    expect(svg).toContain('<tr><th scope="row">2030-01-02 08:00</th><td>1</td><td>1</td><td>2</td></tr>');
  });
});

describe('the records filter', () => {
  const now = new Date('2030-01-02T00:00:00.000Z');

  it('given no query, then what needs a person, any reason, any time, page 1', () => {
    const query = parseListQuery({});

    expect(query).toStrictEqual({ status: 'unresolved', reason: '', since: 'any', group: '', page: 1 });
    expect(toFilter(query, now)).toStrictEqual({ statuses: ['open', 'awaiting-operator', 'replaying'] });
  });

  it('given a full query, then the filter the list reads with', () => {
    const query = parseListQuery({
      status: 'resolved',
      reason: 'crash-limit',
      since: '24h',
      group: ' g-1 ',
      page: '3',
    });

    expect(toFilter(query, now)).toStrictEqual({
      statuses: ['resolved'],
      reason: 'crash-limit',
      since: new Date('2030-01-01T00:00:00.000Z'),
      group: 'g-1',
    });
    expect(query.page).toBe(3);
  });

  it('given values it does not know, then the defaults, never an error', () => {
    expect(parseListQuery({ status: 'closed', reason: '<x>', since: '1y', page: '-2' })).toStrictEqual({
      status: 'unresolved',
      reason: '',
      since: 'any',
      group: '',
      page: 1,
    });
  });
});

describe('the records list', () => {
  const now = new Date('2030-01-02T00:00:00.000Z');
  const records = Array.from({ length: PAGE_SIZE + 5 }, (_, index) => ({
    ...crashed,
    id: `q-${String(index).padStart(2, '0')}-g0-a1`,
  }));

  it('given more records than a page holds, then one page of them, and a link to the next with the filter kept', async () => {
    // Act
    const first = String(await recordsPage(records, parseListQuery({ reason: 'crash-limit' }), now));
    const second = String(
      await recordsPage(records, parseListQuery({ reason: 'crash-limit', page: '2' }), now),
    );

    // Assess
    expect(first.match(/<code class="id">q-\d+-g0-a1<\/code>/g)).toHaveLength(PAGE_SIZE);
    expect(first).toContain(`${PAGE_SIZE + 5} records, page 1 of 2.`);
    expect(first).toContain(
      'href="/records?status=unresolved&amp;reason=crash-limit&amp;since=any&amp;group=&amp;page=2" rel="next"',
    );
    expect(second.match(/<code class="id">q-\d+-g0-a1<\/code>/g)).toHaveLength(5);
    expect(second).toContain('rel="prev"');
    expect(second).not.toContain('rel="next"');
  });

  it('given a stored cause or error with markup, then it is escaped', async () => {
    const hostile = [{ ...crashed, cause: '<img src=x onerror=alert(1)>' }];

    const html = String(await recordsPage(hostile, parseListQuery({}), now));

    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<img');
  });
});
