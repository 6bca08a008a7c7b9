/**
 * One record, everything `pq show` shows: the evidence, its history as a timeline, the attempts
 * ledger item, the message attributes, the audit trail and the body; and the actions its status
 * allows, each behind a confirmation page.
 */
import { html } from 'hono/html';
import { bytesLine } from '../../cli/body';
import { type KafkaRecordView, keyLine } from '../../cli/kafka-view';
import { QUARANTINE_STATUS } from '../../contract/quarantine';
import { groupId } from '../../lambdas/core/operator';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import type { LedgerEntry } from '../../lambdas/ports/ledger';
import type { RecordDetail } from '../reads';
import { actionHref } from './action-links';
import { bodySection, showBody } from './body';
import { facts, type Html, statusBadge, table, when } from './layout';
import { recordTimeline } from './timeline';

export function recordPage(detail: RecordDetail, view: string | undefined, now: Date): Html {
  const { record, ledger } = detail;
  return html`
${actions(record)}
<section aria-labelledby="evidence">
  <h2 id="evidence">Evidence</h2>
  ${evidence(detail, now)}
</section>
<section aria-labelledby="timeline">
  <h2 id="timeline">Timeline</h2>
  <ol class="timeline">${recordTimeline(record, ledger, detail.kafka !== undefined).map(
    (event) => html`<li class="event-${event.kind}">
      <span class="when">${event.at ? when(event.at, now) : html`<span class="muted">then</span>`}</span>
      <span class="what">${event.what}</span>
      ${event.detail ? html`<span class="detail">${event.detail}</span>` : ''}
    </li>`,
  )}</ol>
</section>
<section aria-labelledby="last-error">
  <h2 id="last-error">Last error</h2>
  ${
    record.lastError
      ? html`<p><code>${record.lastError.class}</code> <strong>${record.lastError.name}</strong>: ${record.lastError.message}</p>
        <pre class="stack" tabindex="0" aria-label="Stack head">${record.lastError.stackHead}</pre>`
      : html`<p>None caught: the worker crashed (last known stage <code>${record.stage}</code>).</p>`
  }
</section>
<section aria-labelledby="ledger">
  <h2 id="ledger">Attempts ledger <span class="muted">(key <code>${record.messageKey}</code>)</span></h2>
  ${ledger ? ledgerFacts(ledger, now) : html`<p class="empty">No ledger item (it expired, or was never written).</p>`}
</section>
${
  detail.kafka
    ? html`<section aria-labelledby="headers">
  <h2 id="headers">Headers</h2>
  ${headers(detail.kafka)}
</section>`
    : html`<section aria-labelledby="attributes">
  <h2 id="attributes">Message attributes</h2>
  ${attributes(detail.envelope)}
</section>`
}
<section aria-labelledby="audit">
  <h2 id="audit">Audit trail</h2>
  ${table(
    'Operator actions on this record',
    ['When', 'Who', 'What', 'Why'],
    record.audit.map((entry) => [when(entry.when, now), entry.who, entry.what, entry.why]),
    'no operator action yet.',
  )}
</section>
${bodySection(record.id, showBody(detail.body, view))}`;
}

function actions(record: QuarantineRecord): Html {
  const id = record.id;
  const links =
    record.status === QUARANTINE_STATUS.open
      ? [
          html`<a class="button" href="${actionHref('cause', { id })}">Record a cause…</a>`,
          html`<a class="button" href="${actionHref('replay', { id })}">Replay…</a>`,
          html`<a class="button" href="${actionHref('discard', { id })}">Discard…</a>`,
        ]
      : record.status === QUARANTINE_STATUS.awaitingOperator
        ? [
            html`<a class="button primary" href="${actionHref('verify', { id })}">Answer: did the outside system receive the call?…</a>`,
            html`<a class="button" href="${actionHref('cause', { id })}">Record a cause…</a>`,
          ]
        : [];
  return html`<section aria-labelledby="decide" class="decide">
  <h2 id="decide">Decide</h2>
  <p>Status ${statusBadge(record.status)} · reason <code>${record.reason}</code> · cause
    ${record.cause === 'unidentified' ? html`<strong>unidentified</strong> (replay is refused until one is recorded)` : record.cause}</p>
  ${
    links.length > 0
      ? html`<p class="actions">${links}</p>`
      : record.status === QUARANTINE_STATUS.replaying
        ? html`<p>A replay broke half-way: <code>pq replay ${id} --resume --reason "..."</code> settles it from the ledger.</p>`
        : html`<p>No decision is pending.</p>`
  }
</section>`;
}

function evidence({ record, verification, kafka }: RecordDetail, now: Date): Html {
  const group = groupId(record.errorSignature);
  return facts([
    ['Record', html`<code>${record.id}</code>`],
    ['Message key', html`<code>${record.messageKey}</code>`],
    ['Message id', html`<code>${record.messageId}</code>`],
    [
      'Attempts',
      `${record.attemptsStarted} started, ${record.attemptsCharged} charged (generation ${record.generation})`,
    ],
    ['Last known stage', record.stage],
    ['Attempts between', html`${when(record.firstAttemptAt, now)} and ${when(record.lastAttemptAt, now)}`],
    ['Quarantined', when(record.createdAt, now)],
    ...(kafka ? kafkaFacts(record, kafka, now) : [['Source queue', record.sourceQueueArn] as const]),
    ...(record.messageGroupId === undefined || kafka
      ? []
      : [
          [
            'FIFO group',
            `${record.messageGroupId}${record.orderBroken ? ' (its order was broken)' : ''}`,
          ] as const,
        ]),
    ...(record.external === undefined
      ? []
      : [
          [
            'Outside call',
            html`<code>${record.external.name}</code>: ${record.external.status} at ${when(record.external.at, now)}`,
          ] as const,
        ]),
    ...(verification === undefined && record.reason !== 'outcome-unknown'
      ? []
      : [
          [
            'Verification',
            html`execution <code>ou-${record.id}</code>: ${verification ?? 'never started'}${
              record.waitingSince
                ? html`, waiting for an operator since ${when(record.waitingSince, now)}`
                : ''
            }`,
          ] as const,
        ]),
    [
      'Error signature',
      html`<code class="signature">${record.errorSignature}</code>
        <a href="/records?group=${encodeURIComponent(group)}&status=all">group <code>${group}</code></a>`,
    ],
  ]);
}

/** A Kafka record's place and key, instead of the queue and the FIFO group. */
function kafkaFacts(
  record: QuarantineRecord,
  kafka: KafkaRecordView,
  now: Date,
): (readonly [string, Html | string | number])[] {
  return [
    ['Source cluster', record.sourceQueueArn],
    ['Topic', html`<code>${kafka.topic}</code>`],
    [
      'Partition',
      `${kafka.partition}${record.orderBroken ? ' (its order was broken: the partition moved on)' : ''}`,
    ],
    ['Offset', kafka.offset],
    ...(kafka.timestamp === undefined
      ? []
      : [['Timestamp', html`${when(kafka.timestamp, now)} ${kafka.timestampType ?? ''}`] as const]),
    ['Key', html`<code>${keyLine(kafka)}</code>`],
  ];
}

/** A Kafka record's headers in order (a name may repeat): text when printable, else base64. */
function headers(kafka: KafkaRecordView): Html {
  if (kafka.headers === undefined) return html`<p class="empty">Not known: ${kafka.problem}.</p>`;
  return table(
    'Headers',
    ['Name', 'Value'],
    kafka.headers.map(({ name, value }) => [name, bytesLine(value)]),
    'none.',
  );
}

function ledgerFacts(ledger: LedgerEntry, now: Date): Html {
  return facts([
    ['State', ledger.state],
    ['Attempts started', `${ledger.attempts} (all generations)`],
    ['Charged', ledger.charged],
    ['Transient failures', ledger.transientFailures],
    ['Unknown failures', ledger.unknownFailures],
    ['Generation', ledger.generation],
    ['Last known stage', ledger.stage],
    ['First attempt', when(ledger.firstAttemptAt, now)],
    ['Last attempt', when(ledger.lastAttemptAt, now)],
    ['Last ended', when(ledger.lastEndedAt, now)],
    ['Reset for a replay', when(ledger.replayedAt, now)],
  ]);
}

function attributes(envelope: Record<string, unknown> | undefined): Html {
  if (envelope === undefined)
    return html`<p class="empty">The envelope is missing from the quarantine bucket.</p>`;
  const message = Object.entries(
    (envelope.messageAttributes ?? {}) as Record<string, Record<string, unknown>>,
  );
  const system = Object.entries((envelope.attributes ?? {}) as Record<string, unknown>);
  return html`${table(
    'Message attributes',
    ['Name', 'Type', 'Value'],
    message.map(([name, value]) => [
      name,
      String(value?.dataType ?? ''),
      value?.stringValue === undefined
        ? `(binary, base64) ${String(value?.binaryValue ?? '')}`
        : String(value.stringValue),
    ]),
    'none.',
  )}
  ${table(
    'System attributes',
    ['Name', 'Value'],
    system.map(([name, value]) => [name, /Timestamp$/.test(name) ? epochTime(String(value)) : String(value)]),
    'none.',
  )}`;
}

/** SQS's times (epoch milliseconds) as a UTC time, the exact value on hover. */
function epochTime(value: string): Html | string {
  const at = /^\d+$/.test(value) ? new Date(Number(value)) : undefined;
  if (at === undefined || Number.isNaN(at.getTime())) return value;
  const iso = at.toISOString();
  return html`<time datetime="${iso}" title="${value}">${iso.replace('T', ' ').slice(0, 19)} UTC</time>`;
}
