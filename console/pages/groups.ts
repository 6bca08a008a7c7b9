/**
 * Failure groups (as `pq list --group`): unresolved records with the same error signature, biggest
 * first, with how many have a cause (rule 12: a group replays once its members have one).
 */
import { html } from 'hono/html';
import type { FailureGroup } from '../../lambdas/core/operator';
import { actionHref } from './action-links';
import { type Html, table, when } from './layout';

export function groupsPage(groups: readonly FailureGroup[], now: Date): Html {
  return html`<p>Unresolved records (open, awaiting an operator, replaying) with the same error signature: the
  same error class and name, the same first stack frame, the same message with numbers and quoted
  values blanked out.</p>
  ${table(
    'Failure groups, biggest first',
    ['Group', 'Records', 'With a cause', 'Reasons', 'Oldest', 'Newest', 'Error signature', 'Act'],
    groups.map((group) => [
      html`<code class="id">${group.group}</code>`,
      html`<a href="/records?group=${encodeURIComponent(group.group)}&status=unresolved">${group.count}</a>`,
      `${group.withCause} of ${group.count}`,
      group.reasons.join(', '),
      when(group.firstAt, now),
      when(group.lastAt, now),
      html`<code class="signature">${group.errorSignature}</code>`,
      html`<a href="${actionHref('cause', { group: group.group })}">Record a cause…</a>
        <a href="${actionHref('replay-group', { group: group.group })}">Replay the group…</a>`,
    ]),
    'nothing is quarantined.',
  )}`;
}
