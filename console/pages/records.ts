/**
 * The records, filterable (status, reason, age, failure group) and paged, newest first: `pq list`
 * in a browser. The filter is a plain GET form, so every view has a URL.
 */
import { html } from 'hono/html';
import { QUARANTINE_REASONS, type QuarantineStatus } from '../../contract/quarantine';
import { hasCause } from '../../lambdas/core/operator';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import { ALL_STATUSES, type RecordFilter, UNRESOLVED } from '../reads';
import { type Html, recordLink, statusBadge, table, when } from './layout';

export const PAGE_SIZE = 25;

const SINCE = {
  any: 0,
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '14d': 14 * 86_400_000,
} as const;
type SinceChoice = keyof typeof SINCE;
const SINCE_LABEL: Readonly<Record<SinceChoice, string>> = {
  any: 'any time',
  '1h': 'the last hour',
  '24h': 'the last 24 hours',
  '7d': 'the last 7 days',
  '14d': 'the last 14 days',
};

export interface ListQuery {
  readonly status: 'unresolved' | 'all' | QuarantineStatus;
  readonly reason: string;
  readonly since: SinceChoice;
  readonly group: string;
  /** 1-based. */
  readonly page: number;
}

/** The query string as a filter; anything unknown falls back to the default (what needs a person). */
export function parseListQuery(query: Readonly<Record<string, string | undefined>>): ListQuery {
  const status = query.status ?? '';
  const since = query.since ?? '';
  const page = Number.parseInt(query.page ?? '1', 10);
  return {
    status:
      status === 'all' || (ALL_STATUSES as readonly string[]).includes(status)
        ? (status as ListQuery['status'])
        : 'unresolved',
    reason: (QUARANTINE_REASONS as readonly string[]).includes(query.reason ?? '')
      ? (query.reason as string)
      : '',
    since: since in SINCE ? (since as SinceChoice) : 'any',
    group: (query.group ?? '').trim().slice(0, 200),
    page: Number.isSafeInteger(page) && page > 0 ? page : 1,
  };
}

export function toFilter(query: ListQuery, now: Date): RecordFilter {
  return {
    statuses:
      query.status === 'unresolved' ? UNRESOLVED : query.status === 'all' ? ALL_STATUSES : [query.status],
    ...(query.reason ? { reason: query.reason } : {}),
    ...(query.since === 'any' ? {} : { since: new Date(now.getTime() - SINCE[query.since]) }),
    ...(query.group ? { group: query.group } : {}),
  };
}

export function recordsPage(records: readonly QuarantineRecord[], query: ListQuery, now: Date): Html {
  const pages = Math.max(1, Math.ceil(records.length / PAGE_SIZE));
  const page = Math.min(query.page, pages);
  const shown = records.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  return html`${filterForm(query)}
  <p role="status">${records.length} record${records.length === 1 ? '' : 's'}${
    records.length > PAGE_SIZE ? `, page ${page} of ${pages}` : ''
  }.</p>
  ${table(
    'Quarantine records, newest first',
    ['Record', 'Status', 'Reason', 'Quarantined', 'Attempts / charged', 'Cause', 'Last error'],
    shown.map((record) => [
      recordLink(record.id),
      statusBadge(record.status),
      record.reason,
      when(record.createdAt, now),
      `${record.attemptsStarted} / ${record.attemptsCharged}`,
      hasCause(record) ? record.cause : html`<span class="muted">unidentified</span>`,
      record.lastError
        ? `${record.lastError.name}: ${record.lastError.message.split('\n')[0]}`
        : `crash at ${record.stage}`,
    ]),
    'no record matches.',
  )}
  ${pager(query, page, pages)}`;
}

function filterForm(query: ListQuery): Html {
  const statuses: readonly [string, string][] = [
    ['unresolved', 'needing a person (open, awaiting-operator, replaying)'],
    ['all', 'any status'],
    ...ALL_STATUSES.map((status) => [status, status] as [string, string]),
  ];
  const option = (value: string, label: string, selected: string) =>
    html`<option value="${value}"${value === selected ? html` selected` : ''}>${label}</option>`;
  return html`<form class="filters" method="get" action="/records" role="search" aria-label="Filter records">
  <p><label for="filter-status">Status</label>
    <select id="filter-status" name="status">${statuses.map(([value, label]) => option(value, label, query.status))}</select></p>
  <p><label for="filter-reason">Reason</label>
    <select id="filter-reason" name="reason">${option('', 'any reason', query.reason)}${QUARANTINE_REASONS.map((reason) => option(reason, reason, query.reason))}</select></p>
  <p><label for="filter-since">Quarantined within</label>
    <select id="filter-since" name="since">${(Object.keys(SINCE) as SinceChoice[]).map((since) => option(since, SINCE_LABEL[since], query.since))}</select></p>
  <p><label for="filter-group">Failure group</label>
    <input id="filter-group" name="group" value="${query.group}" placeholder="g-…" size="14"></p>
  <p><button type="submit">Filter</button> <a href="/records">Reset</a></p>
</form>`;
}

function pager(query: ListQuery, page: number, pages: number): Html {
  if (pages <= 1) return html``;
  const href = (target: number) => {
    const params = new URLSearchParams({
      status: query.status,
      reason: query.reason,
      since: query.since,
      group: query.group,
      page: String(target),
    });
    return `/records?${params.toString()}`;
  };
  return html`<nav aria-label="Pages"><ul class="pager">
    ${page > 1 ? html`<li><a href="${href(page - 1)}" rel="prev">Newer</a></li>` : ''}
    <li aria-current="page">Page ${page} of ${pages}</li>
    ${page < pages ? html`<li><a href="${href(page + 1)}" rel="next">Older</a></li>` : ''}
  </ul></nav>`;
}
