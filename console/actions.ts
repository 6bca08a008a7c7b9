/**
 * The state-changing routes. Each action runs the CLI's own command (cli/commands/*) with the
 * arguments its form gathered, so the rules, refusals, conditional writes and audit entries are
 * exactly those of `pq cause`, `pq replay`, `pq verify`, `pq discard`, `pq freeze`/`unfreeze` and
 * `pq hold`/`resume`: nothing here decides. What the console adds is the confirmation page, which
 * reads what the action will touch before anything changes; a replay's shows `pq replay --dry-run`'s
 * verdicts (for a group: how many would be replayed, and which refused, and why).
 */
import type { Hono } from 'hono';
import { html } from 'hono/html';
import type { Command } from '../cli/command';
import { type BackstopRow, backstop } from '../cli/commands/backstop';
import { hold, resume } from '../cli/commands/breaker';
import { cause } from '../cli/commands/cause';
import { discard } from '../cli/commands/discard';
import { freeze, unfreeze } from '../cli/commands/freeze';
import { unresolvedInGroup } from '../cli/commands/group-members';
import { replay } from '../cli/commands/replay';
import { verify } from '../cli/commands/verify';
import type { Deployment } from '../cli/deployment';
import { Refused } from '../cli/errors';
import { describeProduce } from '../cli/kafka-replay';
import { VERIFY_DECISION } from '../contract/quarantine';
import type { QuarantineRecord } from '../lambdas/core/quarantine-record';
import { type CliArgs, type CommandDeps, replayVerdicts, runCommand, type Verdict } from './cli-commands';
import { type ActionName, isAction } from './pages/action-links';
import {
  causeField,
  confirmForm,
  decisionFields,
  outcomeSection,
  rateField,
  reasonField,
  type Subject,
} from './pages/forms';
import { type Html, page, recordLink, statusBadge, table } from './pages/layout';
import { readBackstop } from './reads';

export interface ActionDeps extends CommandDeps {
  readonly csrf: string;
}

type Form = Readonly<Record<string, string | undefined>>;

interface ActionSpec {
  readonly title: (subject: Subject) => string;
  /** What will happen, and the fields: read before anything changes. */
  readonly confirm: (
    deps: ActionDeps,
    subject: Subject,
  ) => Promise<{ happens: Html; fields: Html; confirm: string; blocked?: string }>;
  /** The CLI command and the arguments the form gives it. */
  readonly command: Command;
  readonly args: (form: Form) => CliArgs;
}

const ACTIONS: Readonly<Record<ActionName, ActionSpec>> = {
  cause: {
    title: (subject) =>
      subject.group ? `Record a cause for group ${subject.group}` : `Record a cause for ${subject.id}`,
    confirm: async ({ deployment }, subject) => {
      if (subject.group) {
        const members = await unresolvedInGroup(deployment, subject.group);
        return {
          happens: html`<p>The cause is written on the ${members.length} open or awaiting-operator record(s) of group
            <code>${subject.group}</code>, each with an audit entry (you, now). Replay is refused until a record has
            a cause (rule 12).</p>${memberList(members)}`,
          fields: causeField(undefined),
          confirm: `Record the cause on ${members.length} record(s)`,
        };
      }
      const record = await existing(deployment, subject.id);
      return {
        happens: html`<p>The cause is written on ${recordLink(record.id)} with an audit entry (you, now). Replay is
          refused until a record has a cause (rule 12). Its cause now: <strong>${record.cause}</strong>.</p>`,
        fields: causeField(record.cause),
        confirm: 'Record the cause',
      };
    },
    command: cause,
    args: (form) =>
      form.group
        ? { positionals: [form.cause ?? ''], options: { group: form.group } }
        : { positionals: [form.id ?? '', form.cause ?? ''] },
  },
  replay: {
    title: (subject) => `Replay ${subject.id}`,
    confirm: async (deps, subject) => {
      const record = await existing(deps.deployment, subject.id);
      const goesBack = deps.deployment.kafka
        ? html`its exact key, value (${record.bodyBytes} bytes) and headers are produced back to its Kafka topic
          and partition with the headers <code>pq-replay-of=${record.id}</code> and <code>pq-message-key</code>`
        : html`its exact body (${record.bodyBytes} bytes) goes back to the source queue with its message
          attributes${record.messageGroupId ? ' and FIFO group' : ''} and <code>pq-replay-of=${record.id}</code>`;
      return {
        happens: html`<p>${recordLink(record.id)} is marked replaying; its ledger item gets a fresh attempt budget
          (generation ${record.generation + 1}); ${goesBack}; the record becomes replayed, with an audit entry (you,
          now, your reason or its cause). If the fix is not deployed yet, the message fails again and is quarantined
          under a new id.</p>
          ${dryRunTable(await replayVerdicts(deps, { positionals: [record.id] }), `Dry run of the replay of ${record.id}`)}`,
        fields: reasonField('Why now', false, `Default: its cause ("${record.cause}").`),
        confirm: 'Replay it',
      };
    },
    command: replay,
    args: (form) => ({ positionals: [form.id ?? ''], options: { reason: optional(form.reason) } }),
  },
  'replay-group': {
    title: (subject) => `Replay group ${subject.group}`,
    confirm: async (deps, subject) => {
      const verdicts = await replayVerdicts(deps, {
        positionals: [],
        options: { group: subject.group ?? '' },
      });
      const replayed = verdicts.filter((verdict) => verdict.refused === undefined).length;
      return {
        happens: html`<p><strong>${replayed} of ${verdicts.length} record(s) would be replayed</strong>,
          ${verdicts.length - replayed} refused. Each one replayed goes back to the source queue with a fresh
          attempt budget, as a single replay does, at most as many a second as you allow (as
          <code>pq replay --rate</code>); each one refused is left as it is.</p>
          ${dryRunTable(verdicts, `Dry run of group ${subject.group ?? ''}, oldest first`)}`,
        fields: html`${reasonField('Why now', false, "Default: each record's cause.")}${rateField()}`,
        confirm: `Replay ${replayed} record(s)`,
        ...(replayed === 0
          ? {
              blocked:
                'Nothing to replay: every record of the group would be refused (the dry run says why).',
            }
          : {}),
      };
    },
    command: replay,
    args: (form) => ({
      positionals: [],
      options: { group: form.group ?? '', reason: optional(form.reason), rate: optional(form.rate) },
    }),
  },
  verify: {
    title: (subject) => `Answer ${subject.id}: outcome unknown`,
    confirm: async ({ deployment, now }, subject) => {
      const record = await existing(deployment, subject.id);
      return {
        happens: html`<p>Your answer goes to the verification execution waiting for it (or, if that execution is
          gone, is recorded on the record itself), with your identity and reason in the audit. The record leaves
          awaiting-operator once.</p>`,
        fields: html`${decisionFields(record, now())}${reasonField('What you checked', true)}`,
        confirm: 'Send the answer',
      };
    },
    command: verify,
    args: (form) => ({
      positionals: [form.id ?? ''],
      options: {
        reason: form.reason,
        ...(isDecision(form.decision) ? { [form.decision]: true } : {}),
      },
    }),
  },
  discard: {
    title: (subject) => `Discard ${subject.id}`,
    confirm: async ({ deployment }, subject) => {
      const record = await existing(deployment, subject.id);
      return {
        happens: html`<p>${recordLink(record.id)} becomes resolved without being replayed, with an audit entry (you,
          now, discard, your reason). Nothing is sent and nothing is deleted: the evidence and the exact body stay.
          Refused unless the record is open (an outcome-unknown record is answered instead).</p>`,
        fields: reasonField('Why it must not run', true),
        confirm: 'Discard it',
      };
    },
    command: discard,
    args: (form) => ({ positionals: [form.id ?? ''], options: { reason: form.reason } }),
  },
  freeze: breakerLike(
    'Freeze replay',
    'Every replay (and every not-done answer, which replays) is refused until someone unfreezes. The consumer keeps consuming; only replays stop.',
    freeze,
  ),
  unfreeze: breakerLike(
    'Unfreeze replay',
    'Replays are allowed again. Make sure the reason it was frozen for is gone.',
    unfreeze,
  ),
  hold: breakerLike(
    'Hold the pause',
    'The pause execution stops probing and keeps consumption paused until someone resumes (recorded on the breaker, with an audit entry).',
    hold,
  ),
  'backstop-take': {
    title: (subject) => `Take ${subject.message} into quarantine`,
    confirm: async ({ deployment }, subject) => {
      const row = await backstopMessage(deployment, subject.message);
      return {
        happens: html`<p>Message <code>${row.messageId}</code> (${row.bytes} bytes, key <code>${row.key}</code>, ledger:
          ${row.ledger}) becomes quarantine record <code>${row.recordId}</code> with reason <strong>backstop</strong>:
          its exact body and attributes go to the quarantine bucket, the record gets an audit entry (you, now, your
          reason), its key's ledger item is quarantined by it, and only then is it deleted from the backstop. Then
          record a cause and replay or discard it as any other record.</p>`,
        fields: reasonField('Why you take it', true),
        confirm: 'Take it into quarantine',
      };
    },
    command: backstop,
    args: (form) => ({ positionals: ['take', form.message ?? ''], options: { reason: form.reason } }),
  },
  'backstop-redrive': {
    title: (subject) => `Redrive ${subject.message}`,
    confirm: async ({ deployment }, subject) => {
      const row = await backstopMessage(deployment, subject.message);
      return {
        happens: html`<p>Message <code>${row.messageId}</code> (${row.bytes} bytes, key <code>${row.key}</code>, ledger:
          ${row.ledger}) goes back to the source queue unchanged (body, attributes, FIFO group), then is deleted from
          the backstop. The consumer works it under its ledger: a key already completed or quarantined is
          acknowledged as a duplicate. No record is made.</p>`,
        fields: html``,
        confirm: 'Redrive it',
      };
    },
    command: backstop,
    args: (form) => ({ positionals: ['redrive', form.message ?? ''] }),
  },
  resume: breakerLike(
    'Resume consumption',
    'The pause execution restores the event source mapping: the consumer consumes again (recorded on the breaker, with an audit entry). Check that the cause of the pause is gone. If no pause execution waits, one is started to carry it out.',
    resume,
  ),
};

/** The actions that take only a reason: freeze, unfreeze, hold, resume. */
function breakerLike(title: string, happens: string, command: Command): ActionSpec {
  return {
    title: () => title,
    confirm: async () => ({
      happens: html`<p>${happens}</p>`,
      fields: reasonField('Reason', true),
      confirm: title,
    }),
    command,
    args: (form) => ({ positionals: [], options: { reason: form.reason } }),
  };
}

export function registerActions(app: Hono, deps: ActionDeps): void {
  app.get('/act/:action', async (c) => {
    const action = c.req.param('action');
    if (!isAction(action)) return c.notFound();
    const spec = ACTIONS[action];
    const subject = subjectOf(c.req.query());
    const frame = { title: spec.title(subject), functionName: deps.deployment.functionName };
    try {
      const parts = await spec.confirm(deps, subject);
      return c.html(page(frame, confirmForm(action, subject, deps.csrf, parts)));
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      return c.html(page(frame, outcomeSection({ kind: 'refused', reason: error.message }, subject)), 409);
    }
  });

  app.post('/act/:action', async (c) => {
    const action = c.req.param('action');
    if (!isAction(action)) return c.notFound();
    const spec = ACTIONS[action];
    const form = Object.fromEntries(
      Object.entries(await c.req.parseBody()).map(([name, value]) => [
        name,
        typeof value === 'string' ? value : undefined,
      ]),
    );
    const subject = subjectOf(form);
    const outcome = await runCommand(spec.command, spec.args(form), deps);
    const status = outcome.kind === 'done' ? 200 : outcome.kind === 'refused' ? 409 : 500;
    const title = outcome.kind === 'done' ? 'Done' : outcome.kind === 'refused' ? 'Refused' : 'Failed';
    return c.html(
      page(
        { title: `${title}: ${spec.title(subject)}`, functionName: deps.deployment.functionName },
        outcomeSection(outcome, subject),
      ),
      status,
    );
  });
}

function subjectOf(query: Form): Subject {
  const id = query.id?.trim();
  const group = query.group?.trim();
  const message = query.message?.trim();
  return { ...(id ? { id } : {}), ...(group ? { group } : {}), ...(message ? { message } : {}) };
}

/** A backstop message a confirmation page is about; a refusal, as in the CLI, when it is gone. */
async function backstopMessage(deployment: Deployment, messageId: string | undefined): Promise<BackstopRow> {
  const row = (await readBackstop(deployment)).rows.find((candidate) => candidate.messageId === messageId);
  if (row === undefined)
    throw new Refused(`no message ${messageId ?? ''} in the backstop (the backstop page lists them)`);
  return row;
}

/** A record a confirmation page is about; a refusal, as in the CLI, when there is none. */
async function existing(deployment: Deployment, id: string | undefined): Promise<QuarantineRecord> {
  const record = id ? await deployment.records.get(id) : undefined;
  if (record === undefined)
    throw new Refused(`no quarantine record ${id ?? ''} (the records page lists them)`);
  return record;
}

function dryRunTable(verdicts: readonly Verdict[], caption: string): Html {
  return table(
    caption,
    ['Record', 'Would be', 'Cause'],
    verdicts.map((verdict) => [
      recordLink(verdict.id),
      verdict.refused === undefined ? 'replayed' : html`<strong>refused</strong>: ${verdict.refused}`,
      `${verdict.cause ?? ''}${verdict.produce ? `; ${describeProduce(verdict.produce)}` : ''}`,
    ]),
  );
}

function memberList(members: readonly QuarantineRecord[]): Html {
  return html`<ul>${members.map((record) => html`<li>${recordLink(record.id)} ${statusBadge(record.status)}</li>`)}</ul>`;
}

/** An empty optional field is no value: the CLI then uses its default. */
function optional(value: string | undefined): string | undefined {
  return value?.trim() ? value : undefined;
}

function isDecision(
  value: string | undefined,
): value is (typeof VERIFY_DECISION)[keyof typeof VERIFY_DECISION] {
  return (Object.values(VERIFY_DECISION) as (string | undefined)[]).includes(value);
}
