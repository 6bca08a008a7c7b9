/**
 * The overview: is it consuming (mapping, queue, breaker, isolation trial, replay freeze), what
 * is quarantined (counts by reason and status, and over time), and what needs a person now,
 * oldest first. The words follow `pq status`.
 */
import { html } from 'hono/html';
import { describeKafkaSource, describeOldestMessageAge } from '../../cli/commands/status';
import { QUARANTINE_STATUS } from '../../contract/quarantine';
import type { BreakerView } from '../../lambdas/adapters/operator-control';
import type { OldestMessageAge } from '../../lambdas/adapters/queue-age';
import type { Overview } from '../reads';
import { actionHref } from './action-links';
import { bucketize, CHART_SPANS, type ChartSpan, chart } from './chart';
import { facts, type Html, recordLink, table, when } from './layout';

export function overviewPage(overview: Overview, span: ChartSpan, now: Date): Html {
  return html`
<section aria-labelledby="consumption">
  <h2 id="consumption">Consumption</h2>
  ${facts([
    ['Mapping', mapping(overview)],
    ...source(overview),
    ['Breaker', breaker(overview, now)],
    ['Isolation trial', isolation(overview, now)],
    ['Replay', freeze(overview, now)],
  ])}
</section>
<section aria-labelledby="needs-a-person">
  <h2 id="needs-a-person">Needs a person now</h2>
  ${needsAPerson(overview, now)}
</section>
<section aria-labelledby="counts">
  <h2 id="counts">Records by reason and status</h2>
  ${counts(overview, span)}
</section>
<section aria-labelledby="over-time">
  <h2 id="over-time">Quarantines over time</h2>
  <nav aria-label="Chart span"><ul class="tabs">${(Object.keys(CHART_SPANS) as ChartSpan[]).map(
    (option) =>
      html`<li><a href="/?chart=${option}#over-time"${option === span ? html` aria-current="true"` : ''}>${option === '24h' ? 'Last 24 hours' : 'Last 14 days'}</a></li>`,
  )}</ul></nav>
  ${chart(bucketize(overview.recent, span, now), span)}
</section>`;
}

function mapping({ mapping }: Overview): Html {
  if (!mapping) return html`no event source mapping found for this function`;
  return html`<strong>${mapping.state}</strong>
    <span class="muted">(batch size ${mapping.batchSize ?? '-'}, max concurrency ${mapping.maximumConcurrency ?? '-'}, uuid ${mapping.uuid})</span>`;
}

/** An SQS consumer's queue and the age of its oldest message; a Kafka consumer's topic and cluster. */
function source(overview: Overview): (readonly [string, Html | string])[] {
  const { queue, oldestMessage: age } = overview;
  if (queue === undefined || age === undefined) return [['Source', describeKafkaSource(overview)]];
  return [
    ['Queue', `${queue.visible} visible, ${queue.inFlight} in flight, ${queue.delayed} delayed`],
    ['Oldest message', oldestMessage(age)],
  ];
}

/** A reading that is not an age (none reported, or CloudWatch refused) is muted: it is no alarm. */
function oldestMessage(age: OldestMessageAge): Html {
  const words = describeOldestMessageAge(age);
  return age.kind === 'reported' ? html`${words}` : html`<span class="muted">${words}</span>`;
}

function breaker({ control, pauseRuns }: Overview, now: Date): Html {
  const view = control.breaker;
  const state = view.breaker;
  if (state === undefined || state.state === 'closed') return html`closed (consuming normally)`;
  if (state.state === 'unreadable') {
    return html`<strong class="alert">UNREADABLE</strong>: ${state.problem}. Nothing runs: the consumer holds
      every message. Repair it with <code>pq reset-breaker --reason "..."</code>, then resume.`;
  }
  const driven = pauseRuns.some((run) => run.status === 'RUNNING');
  return html`<strong class="alert">${state.state.toUpperCase()}</strong> since ${when(new Date(state.openedAt).toISOString(), now)};
    reason <code>${state.reason}</code>, epoch ${state.epoch}, cool-down ${state.cooldownSeconds} s.
    ${state.stop ? html`<strong>STOP: no automatic resume.</strong>` : driven ? 'Resumes by itself after a good probe.' : ''}
    ${view.operatorAction ? html`An operator said <code>${view.operatorAction}</code>.` : ''}
    ${view.operatorFieldsProblem ? html`Operator fields unreadable: ${view.operatorFieldsProblem}.` : ''}
    ${view.waitingForOperator ? html`<strong>Waiting for an operator.</strong>` : ''}
    ${
      driven
        ? html`Driven by ${pauseRuns.map((run) => `${run.name} ${run.status}`).join(', ')}.`
        : html`<strong>No pause execution running</strong> for epoch ${state.epoch}: nothing drives it back; resume or hold starts one.`
    }
    <span class="actions">${breakerActions(view)}</span>`;
}

function breakerActions(view: BreakerView): Html {
  return html`<a class="button" href="${actionHref('resume')}">Resume…</a>
    ${view.operatorAction === 'hold' ? '' : html`<a class="button" href="${actionHref('hold')}">Hold…</a>`}`;
}

function isolation({ control }: Overview, now: Date): Html {
  const trial = control.isolation;
  if (!trial?.active) return html`off`;
  return html`<strong>ACTIVE</strong>: one message at a time, ${trial.remaining} more without a crash to end it
    (since ${when(new Date(trial.startedAt).toISOString(), now)}, ${trial.reason})`;
}

function freeze({ control }: Overview, now: Date): Html {
  const { freeze: state } = control;
  if (!state.frozen) return html`allowed <a class="button" href="${actionHref('freeze')}">Freeze…</a>`;
  return html`<strong class="alert">FROZEN</strong> by ${state.who ?? '?'} at ${when(state.when, now)}: ${state.why ?? ''}
    <a class="button" href="${actionHref('unfreeze')}">Unfreeze…</a>`;
}

interface Need {
  readonly at: string;
  readonly what: Html;
  readonly next: Html;
}

/** Stops waiting for an operator and records waiting for a decision, oldest first. */
function needsAPerson(overview: Overview, now: Date): Html {
  const needs: Need[] = [];
  const state = overview.control.breaker.breaker;
  if (state?.state === 'unreadable') {
    needs.push({
      at: '',
      what: html`The breaker item cannot be read: nothing runs`,
      next: html`<code>pq reset-breaker --reason "..."</code>`,
    });
  } else if (state !== undefined && state.state !== 'closed') {
    const driven = overview.pauseRuns.some((run) => run.status === 'RUNNING');
    if (overview.control.breaker.waitingForOperator || !driven) {
      needs.push({
        at: new Date(state.openedAt).toISOString(),
        what: html`Consumption stopped (<code>${state.reason}</code>): ${
          driven ? 'its pause waits for an operator' : 'no pause execution drives it back'
        }`,
        next: html`<a href="${actionHref('resume')}">Resume…</a> or <a href="${actionHref('hold')}">Hold…</a>`,
      });
    }
  }
  for (const record of overview.unresolved) {
    if (record.status === QUARANTINE_STATUS.awaitingOperator) {
      needs.push({
        at: record.waitingSince ?? record.createdAt,
        what: html`${recordLink(record.id)}: outcome unknown${
          record.external ? html` (outside call <code>${record.external.name}</code>)` : ''
        }: did the outside system receive the call?`,
        next: html`<a href="${actionHref('verify', { id: record.id })}">Answer…</a>`,
      });
    } else if (record.status === QUARANTINE_STATUS.replaying) {
      needs.push({
        at: record.createdAt,
        what: html`${recordLink(record.id)}: a replay broke half-way`,
        next: html`<code>pq replay ${record.id} --resume --reason "..."</code>`,
      });
    }
  }
  needs.sort((a, b) => a.at.localeCompare(b.at));
  return table(
    'Waiting for a person, oldest first',
    ['Since', 'What', 'Next'],
    needs.map((need) => [when(need.at || undefined, now), need.what, need.next]),
    'nothing waits for a person.',
  );
}

const UNRESOLVED_COLUMNS = [
  QUARANTINE_STATUS.open,
  QUARANTINE_STATUS.awaitingOperator,
  QUARANTINE_STATUS.replaying,
] as const;
const CLOSED_COLUMNS = [QUARANTINE_STATUS.resolved, QUARANTINE_STATUS.replayed] as const;

/**
 * By reason and status: the unresolved records whatever their age (what needs a person), and the
 * closed ones of the chart's span (closed records only pile up: all of them would say little).
 */
function counts(overview: Overview, span: ChartSpan): Html {
  const records = [
    ...overview.unresolved,
    ...overview.recent.filter((record) => (CLOSED_COLUMNS as readonly string[]).includes(record.status)),
  ];
  const byReason = new Map<string, Map<string, number>>();
  for (const record of records) {
    const row = byReason.get(record.reason) ?? new Map<string, number>();
    row.set(record.status, (row.get(record.status) ?? 0) + 1);
    byReason.set(record.reason, row);
  }
  const rows = [...byReason.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([reason, row]) => [
      html`<a href="/records?reason=${encodeURIComponent(reason)}&status=all">${reason}</a>`,
      ...[...UNRESOLVED_COLUMNS, ...CLOSED_COLUMNS].map((status) => row.get(status) ?? 0),
    ]);
  const within = span === '24h' ? 'last 24 h' : 'last 14 days';
  return table(
    'Quarantine records by reason and status',
    ['Reason', ...UNRESOLVED_COLUMNS, ...CLOSED_COLUMNS.map((status) => `${status} (${within})`)],
    rows,
    'nothing is quarantined.',
  );
}
