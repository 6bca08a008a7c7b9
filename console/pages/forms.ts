/**
 * Confirmation pages and their outcome. Every action is two steps: this page says what will
 * happen, with the fields the CLI asks for (a cause, a reason, a decision), and a button that
 * posts it with the console's CSRF token; the outcome page shows what the CLI would print, or
 * its refusal. Plain forms: they work from the keyboard and need no script.
 */
import { html } from 'hono/html';
import { VERIFY_DECISION } from '../../contract/quarantine';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import { CSRF_FIELD } from '../security';
import { type ActionName, actionHref } from './action-links';
import { type Html, recordHref, when } from './layout';

export interface Subject {
  readonly id?: string;
  readonly group?: string;
  /** A message in the backstop queue (its SQS message id). */
  readonly message?: string;
}

/** The form: what happens, the fields, the hidden subject and token, confirm and cancel. */
export function confirmForm(
  action: ActionName,
  subject: Subject,
  csrf: string,
  parts: {
    readonly happens: Html;
    readonly fields: Html;
    readonly confirm: string;
    /** Why there is nothing to confirm: the button is then disabled and says so. */
    readonly blocked?: string;
  },
): Html {
  const back = subject.id
    ? recordHref(subject.id)
    : subject.group
      ? '/groups'
      : subject.message
        ? '/backstop'
        : '/';
  return html`<section aria-labelledby="what-happens" class="confirm">
  <h2 id="what-happens">What will happen</h2>
  ${parts.happens}
</section>
<form method="post" action="/act/${action}" class="confirm-form">
  <input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
  ${subject.id ? html`<input type="hidden" name="id" value="${subject.id}">` : ''}
  ${subject.group ? html`<input type="hidden" name="group" value="${subject.group}">` : ''}
  ${subject.message ? html`<input type="hidden" name="message" value="${subject.message}">` : ''}
  ${parts.fields}
  ${
    parts.blocked === undefined
      ? html`<p><button type="submit" class="primary">${parts.confirm}</button> <a href="${back}">Cancel</a></p>`
      : html`<p><button type="submit" class="primary" disabled aria-describedby="blocked">${parts.confirm}</button>
    <a href="${back}">Cancel</a></p><p class="hint" id="blocked">${parts.blocked}</p>`
  }
</form>`;
}

export function reasonField(label: string, required: boolean, hint?: string): Html {
  return html`<p class="field">
  <label for="reason">${label}${required ? '' : ' (optional)'}</label>
  ${hint ? html`<span class="hint" id="reason-hint">${hint}</span>` : ''}
  <input id="reason" name="reason" type="text" size="60" maxlength="1000"${required ? html` required` : ''}${
    hint ? html` aria-describedby="reason-hint"` : ''
  }>
</p>`;
}

/** A group replay's pace: `pq replay --rate`, which also checks it. */
export function rateField(): Html {
  return html`<p class="field">
  <label for="rate">Messages a second (optional)</label>
  <span class="hint" id="rate-hint">Evenly spaced: 0.5 is one every 2 s. Empty: all at once. This page answers once
    the last one is sent.</span>
  <input id="rate" name="rate" type="text" inputmode="decimal" size="8" aria-describedby="rate-hint">
</p>`;
}

export function causeField(current: string | undefined): Html {
  return html`<p class="field">
  <label for="cause">Cause: what went wrong</label>
  <span class="hint" id="cause-hint">For the next person, e.g. "order schema v3 not deployed to the consumer (OPS-123)".
    A cause can be corrected by recording another.</span>
  <textarea id="cause" name="cause" rows="3" cols="60" maxlength="2000" required aria-describedby="cause-hint">${
    current && current !== 'unidentified' ? current : ''
  }</textarea>
</p>`;
}

/** Rule 8: the question, the call it is about, and the three answers with what each does. */
export function decisionFields(record: QuarantineRecord, now: Date): Html {
  const call = record.external;
  return html`<fieldset class="decision">
  <legend>Did the outside system receive this call?</legend>
  <p>${
    call
      ? html`The worker called <code>${call.name}</code> (last recorded: ${call.status}, ${when(call.at, now)}) and died
        before recording the result.`
      : html`The worker may have called an outside system before it died.`
  } Check that system first: the <a href="${recordHref(record.id)}#body-title">body</a> identifies the request
    (message key <code>${record.messageKey}</code>).</p>
  ${radio(VERIFY_DECISION.done, 'Yes, it happened (done)', 'The message counts as completed and is never replayed.')}
  ${radio(
    VERIFY_DECISION.notDone,
    'No, it did not happen (not-done)',
    'Your reason becomes its cause and the message is replayed once: the outside call will be made again.',
  )}
  ${radio(
    VERIFY_DECISION.discard,
    'Neither: discard it (discard)',
    'Nothing is replayed; the record is resolved and its content kept.',
  )}
</fieldset>`;
}

function radio(value: string, label: string, effect: string): Html {
  const id = `decision-${value}`;
  return html`<p class="choice"><input type="radio" id="${id}" name="decision" value="${value}" required
    aria-describedby="${id}-effect"> <label for="${id}">${label}</label>
    <span class="hint" id="${id}-effect">${effect}</span></p>`;
}

export type Outcome =
  | { readonly kind: 'done'; readonly text: string; readonly refusal?: string }
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'failed'; readonly message: string };

/** What the CLI would have printed: its output, its refusal (nothing changed), or its failure. */
export function outcomeSection(outcome: Outcome, next: Subject): Html {
  const links = html`<p>${next.id ? html`<a href="${recordHref(next.id)}">Back to the record</a> · ` : ''}${
    next.group
      ? html`<a href="/records?group=${encodeURIComponent(next.group)}&status=all">The group's records</a> · `
      : ''
  }${next.message ? html`<a href="/backstop">The backstop</a> · ` : ''}<a href="/">Overview</a></p>`;
  if (outcome.kind === 'refused') {
    // A refusal that names a pq command for this record links to doing it here.
    const cause = next.id !== undefined && outcome.reason.includes(`pq cause ${next.id} `);
    return html`<div class="outcome refused" role="alert">
  <p><strong>Refused:</strong> ${outcome.reason}</p>
  <p>Nothing was changed.</p>
  ${cause ? html`<p><a href="${actionHref('cause', { id: next.id })}">Record a cause…</a></p>` : ''}
</div>${links}`;
  }
  if (outcome.kind === 'failed') {
    return html`<div class="outcome failed" role="alert">
  <p><strong>Failed:</strong> ${outcome.message}</p>
  <p>What was done before the failure stays done; look at the record before trying again.</p>
</div>${links}`;
  }
  return html`<div class="outcome done" role="status">
  <pre>${outcome.text}</pre>
  ${outcome.refusal ? html`<p><strong>Refused in part:</strong> ${outcome.refusal}</p>` : ''}
</div>${links}`;
}
