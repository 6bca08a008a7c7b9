/**
 * The backstop (as `pq backstop list`): what SQS moved to the source queue's dead-letter queue
 * past our ledger, each message with our ledger's view of its key and the two ways out of it.
 */
import { html } from 'hono/html';
import type { BackstopView } from '../reads';
import { BACKSTOP_SHOWN } from '../reads';
import { actionHref } from './action-links';
import { type Html, table, when } from './layout';

export function backstopPage(view: BackstopView, now: Date): Html {
  if (view.queue === undefined || view.depth === undefined) {
    return html`<p>The source queue has no redrive policy: SQS moves nothing to a backstop.</p>`;
  }
  return html`<p>SQS moves a message to the backstop queue <code>${view.queue.arn}</code> after
  ${view.queue.maxReceiveCount} receives. The consumer quarantines well before that, so a message here means it
  could not decide in time (it could not record, or a stop outlasted the receives), and the BackstopNotEmpty alarm
  fires. Here a message has no record and no evidence: take it into quarantine, or redrive it to the source queue,
  before the queue's retention ends. For many at once: <code>pq backstop take --all --reason "..."</code>.</p>
  <p><strong>${view.depth.visible} visible</strong>, ${view.depth.inFlight} held by a take or a redrive under way
  (SQS's approximate counts).</p>
  ${table(
    `Messages in the backstop (at most ${BACKSTOP_SHOWN})`,
    ['Message', 'Sent', 'Receives', 'Bytes', 'Key', 'Our ledger', 'Act'],
    view.rows.map((row) => [
      html`<code class="id">${row.messageId}</code>`,
      when(row.sentAt, now),
      String(row.receiveCount),
      String(row.bytes),
      html`<code>${row.key}</code>`,
      row.ledger,
      html`<a href="${actionHref('backstop-take', { message: row.messageId })}">Take into quarantine…</a>
        <a href="${actionHref('backstop-redrive', { message: row.messageId })}">Redrive…</a>`,
    ]),
    'the backstop is empty.',
  )}`;
}
