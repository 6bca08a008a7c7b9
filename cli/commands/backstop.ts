/**
 * `pq backstop`: what SQS moved to the backstop queue past our ledger (the BackstopNotEmpty
 * alarm), and the two ways out of it. `take` makes each message a quarantine record (reason
 * `backstop`, its exact bytes; then cause / replay / discard as any other), `redrive` sends it back
 * to the source queue unchanged. A message leaves the backstop only after its record is written
 * or its copy sent. The decisions are lambdas/core/backstop.ts's.
 */
import type { BackstopQueue } from '../../lambdas/adapters/backstop-queue';
import {
  BACKSTOP_TAKE_AUDIT,
  type BackstopMessage,
  backstopKey,
  backstopTake,
  decideLedgerHold,
  type LedgerHold,
  refuseOverCapacity,
} from '../../lambdas/core/backstop';
import { backstopQuarantineId } from '../../lambdas/core/ids';
import { StaleAttemptError } from '../../lambdas/ports/errors';
import { oneOf, positiveNumber, requiredReason } from '../arguments';
import { bodyText, describeBody } from '../body';
import type { Command, CommandContext, CommandResult } from '../command';
import type { Deployment } from '../deployment';
import { NotFound, Refused, UsageError } from '../errors';
import { block, fields, section, table } from '../output';
import { pacer } from '../pacing';
import type { Progress } from '../progress';
import { auditEntry } from '../replay-flow';

const ACTIONS = ['list', 'show', 'take', 'redrive'] as const;
type Action = (typeof ACTIONS)[number];

/** A take or a redrive hides the messages it holds this long; one it cannot take goes back at once. */
const HOLD_SECONDS = 300;
/** `list` shows at most this many messages (SQS has no listing: each is a receive). */
const LIST_MAX = 100;

export const backstop: Command = {
  name: 'backstop',
  options: {
    all: { type: 'boolean' },
    reason: { type: 'string' },
    rate: { type: 'string' },
  },
  help: `pq backstop - the messages SQS moved to the backstop queue, and the ways out

Usage: pq backstop [list]                          what it holds (at most ${LIST_MAX})
       pq backstop show MESSAGE_ID                  one message: attributes, body, our ledger's view
       pq backstop take (MESSAGE_ID | --all) --reason "why"
       pq backstop redrive (MESSAGE_ID | --all) [--rate N]

SQS moves a message to the backstop (the source queue's dead-letter queue) after the redrive
policy's maxReceiveCount receives. The consumer quarantines well before that, so a message there
means it could not decide in time: it could not record, or a stop outlasted the receives. The
BackstopNotEmpty alarm fires. There, a message has no record and no evidence: take it or
redrive it before the queue's retention period ends.

take     makes each message a quarantine record with reason "backstop": its exact body and
         attributes to the quarantine bucket, the record with an audit entry (you, now, the
         reason), its key's ledger item quarantined by it; only then is it deleted from the
         backstop. Then: pq cause, pq replay or pq discard, as for any record. Refused (exit 2)
         when it would bring the open records to the capacity at which the consumer stops.
redrive  sends each message back to the source queue unchanged (body, attributes, FIFO group),
         then deletes it from the backstop. The consumer works it under its ledger: a key already
         completed or quarantined is acknowledged as a duplicate.
  --rate N  at most N messages a second (0.5 = one every 2 s).

SQS has no listing: list and show receive each message, hidden for 30 s so the next receive
brings others, then make them all visible again at once. Each look adds one to a message's
receive count.`,
  async run(context: CommandContext): Promise<CommandResult> {
    const [given = 'list', ...rest] = context.args.positionals;
    const action = oneOf('action', given, ACTIONS);
    const deployment = await context.deployment();
    const queue = await deployment.backstop();
    if (queue === undefined) {
      throw new Refused(
        `the source queue ${deployment.config.sourceQueueUrl} has no redrive policy: no backstop`,
      );
    }
    return ACTION_RUNS[action](context, deployment, queue, rest);
  },
};

type ActionRun = (
  context: CommandContext,
  deployment: Deployment,
  queue: BackstopQueue,
  rest: readonly string[],
) => Promise<CommandResult>;

const ACTION_RUNS: Readonly<Record<Action, ActionRun>> = {
  list: async (_context, deployment, queue, rest) => {
    noArguments('list', rest);
    // The depth first: a look hides what it saw for a moment.
    const depth = await queue.depth();
    const messages = await queue.peek(LIST_MAX);
    const rows = await Promise.all(messages.map((message) => backstopRow(deployment, message)));
    const header = `Backstop ${queue.location.arn}: ${depth.visible} visible, ${depth.inFlight} held\n\n`;
    return {
      json: { queue: queue.location, depth, messages: rows },
      text:
        header +
        table(
          ['MESSAGE ID', 'SENT', 'RECEIVES', 'BYTES', 'KEY', 'LEDGER'],
          rows.map((row) => [row.messageId, row.sentAt, row.receiveCount, row.bytes, row.key, row.ledger]),
          '(empty)',
        ),
    };
  },
  show: async (_context, deployment, queue, rest) => {
    const id = oneMessageId('show', rest);
    const message = (await queue.peek(LIST_MAX)).find((candidate) => candidate.messageId === id);
    if (message === undefined)
      throw new NotFound(`no message ${id} in the backstop (pq backstop list shows them)`);
    const row = await backstopRow(deployment, message);
    const body = describeBody(Buffer.from(message.body, 'utf8'));
    const json = {
      ...row,
      attributes: message.attributes,
      messageAttributes: message.messageAttributes,
      body,
    };
    const text =
      fields([
        ['Message', row.messageId],
        ['Sent', row.sentAt],
        ['Receives', row.receiveCount],
        ['Key', row.key],
        ['Ledger', row.ledger],
        ['Record if taken', row.recordId],
      ]) +
      section('Message attributes', block(JSON.stringify(message.messageAttributes, null, 2))) +
      section('SQS attributes', block(JSON.stringify(message.attributes, null, 2))) +
      section(
        `Body (${body.bytes} bytes, sha256 ${body.sha256})`,
        bodyText(body, undefined, 'take it, then pq show ID --body-out FILE'),
      );
    return { json, text };
  },
  take: async (context, deployment, queue, rest) => {
    const why = requiredReason(context.args);
    const wanted = messageSelection(context, 'take', rest);
    const open = (await deployment.records.openRecordsCounted()) ?? 0;
    const taking = wanted === 'all' ? (await queue.depth()).visible : 1;
    const over = refuseOverCapacity(open, taking, deployment.config.quarantineCapacity);
    if (over) throw new Refused(over.reason);
    const actor = await context.actor(why);
    const outcomes = await forEachHeld(queue, wanted, context.progress('taken'), (message) =>
      takeOne(deployment, queue, message, actor),
    );
    return report('Taken', outcomes, (done) => `${done.recordId}${done.note ? ` (${done.note})` : ''}`);
  },
  redrive: async (context, deployment, queue, rest) => {
    const wanted = messageSelection(context, 'redrive', rest);
    const rateText = context.args.string('rate');
    const pace =
      rateText === undefined
        ? async () => {}
        : pacer(positiveNumber('rate', rateText, 'messages per second'), context);
    const outcomes = await forEachHeld(queue, wanted, context.progress('redriven'), async (message) => {
      await pace();
      const sent = await queue.sendCopy(message, deployment.config.sourceQueueUrl);
      await queue.delete(message);
      return { messageId: message.messageId, sentAs: sent.messageId };
    });
    return report('Redriven', outcomes, (done) => `sent to the source queue as ${done.sentAs}`);
  },
};

/** One backstop message as `list` and the console show it. */
export interface BackstopRow {
  readonly messageId: string;
  readonly sentAt: string;
  readonly receiveCount: number;
  readonly bytes: number;
  readonly key: string;
  /** Our ledger's item for the key, in a few words. */
  readonly ledger: string;
  readonly recordId: string;
}

export async function backstopRow(deployment: Deployment, message: BackstopMessage): Promise<BackstopRow> {
  const key = backstopKey(message, deployment.config.messageKeyPath);
  const item = await deployment.ledger.get(key.key);
  const sent = Number(message.attributes.SentTimestamp);
  return {
    messageId: message.messageId,
    sentAt: Number.isSafeInteger(sent) ? new Date(sent).toISOString() : '?',
    receiveCount: Number(message.attributes.ApproximateReceiveCount ?? 0),
    bytes: Buffer.byteLength(message.body, 'utf8'),
    key: key.key,
    ledger:
      item === undefined
        ? 'no item'
        : `${item.state}, ${item.attempts} attempt(s), ${item.charged} charged${item.quarantineId ? `, record ${item.quarantineId}` : ''}`,
    recordId: backstopQuarantineId(message.messageId),
  };
}

interface Taken {
  readonly messageId: string;
  readonly recordId: string;
  readonly ledger: LedgerHold['kind'];
  readonly note?: string;
}

type Outcome<T> = T | { readonly messageId: string; readonly refused: string };

/**
 * Content, record, ledger, then the delete: a take cut short anywhere leaves the message in the
 * backstop, and the next take finishes the same record (its id is the message's).
 */
async function takeOne(
  deployment: Deployment,
  queue: BackstopQueue,
  message: BackstopMessage,
  actor: Parameters<typeof auditEntry>[0],
): Promise<Outcome<Taken>> {
  const { config, ledger } = deployment;
  const key = backstopKey(message, config.messageKeyPath);
  const recordId = backstopQuarantineId(message.messageId);
  const item = await ledger.get(key.key);
  const hold = decideLedgerHold(item, recordId, actor.now, config.policy.attemptTimeoutSeconds);
  if (hold.kind === 'refuse') return { messageId: message.messageId, refused: hold.reason };
  const take = backstopTake({
    message,
    key,
    item,
    sourceQueueArn: config.sourceQueueArn,
    backstopQueueArn: queue.location.arn,
    now: actor.now,
  });
  const stored = await deployment.content.putContent(recordId, {
    body: message.body,
    envelope: take.envelope,
  });
  await deployment.records.createTaken({ ...take.record, ...stored }, auditEntry(actor, BACKSTOP_TAKE_AUDIT));
  const held = await holdLedger(deployment, key.key, hold, {
    recordId,
    messageId: message.messageId,
    now: actor.now,
  });
  if ('refused' in held) return { messageId: message.messageId, refused: held.refused };
  await queue.delete(message);
  return {
    messageId: message.messageId,
    recordId,
    ledger: hold.kind,
    ...(hold.kind === 'keep' && hold.note ? { note: hold.note } : {}),
  };
}

async function holdLedger(
  deployment: Deployment,
  key: string,
  hold: LedgerHold,
  taken: { readonly recordId: string; readonly messageId: string; readonly now: Date },
): Promise<{ readonly ok: true } | { readonly refused: string }> {
  const again = `record ${taken.recordId} is written; the message stays in the backstop: take it again`;
  if (hold.kind === 'create') {
    const created = await deployment.ledger.createQuarantined(key, {
      quarantineId: taken.recordId,
      messageId: taken.messageId,
      now: taken.now,
    });
    return created ? { ok: true } : { refused: `its key's ledger item appeared while taking; ${again}` };
  }
  if (hold.kind === 'mark') {
    try {
      await deployment.ledger.markQuarantined(key, {
        attemptId: hold.attemptId,
        quarantineId: taken.recordId,
        charge: 0,
        now: taken.now,
      });
    } catch (error) {
      if (!(error instanceof StaleAttemptError)) throw error;
      return { refused: `an attempt of its key started while taking; ${again}` };
    }
  }
  return { ok: true };
}

/**
 * Holds the messages ten at a time and works the wanted ones. What it holds but does not take
 * (not wanted, refused, or left by a failure) stays held until the end, so that every receive
 * brings messages not seen yet, and then goes back at once. Ends when a receive brings none.
 */
async function forEachHeld<T extends object>(
  queue: BackstopQueue,
  wanted: string | 'all',
  progress: Progress,
  work: (message: BackstopMessage) => Promise<Outcome<T>>,
): Promise<Outcome<T>[]> {
  const outcomes: Outcome<T>[] = [];
  const held: BackstopMessage[] = [];
  const gone = new Set<string>();
  try {
    while (wanted === 'all' || outcomes.length === 0) {
      const received = await queue.hold(HOLD_SECONDS);
      if (received.length === 0) break;
      held.push(...received);
      for (const message of received.filter((one) => wanted === 'all' || one.messageId === wanted)) {
        progress.step(outcomes.length);
        const outcome = await work(message);
        if (!('refused' in outcome)) gone.add(message.messageId);
        outcomes.push(outcome);
      }
    }
  } finally {
    progress.end();
    const back = held.filter((message) => !gone.has(message.messageId));
    await Promise.allSettled(back.map((message) => queue.release(message)));
  }
  if (wanted !== 'all' && outcomes.length === 0) {
    throw new NotFound(`no message ${wanted} in the backstop (pq backstop list shows them)`);
  }
  return outcomes;
}

function report<T extends { readonly messageId: string }>(
  verb: string,
  outcomes: readonly Outcome<T>[],
  describe: (done: T) => string,
): CommandResult {
  const done = outcomes.filter((outcome): outcome is T => !('refused' in outcome));
  const refused = outcomes.filter((outcome) => 'refused' in outcome) as {
    messageId: string;
    refused: string;
  }[];
  const lines = [
    ...done.map((outcome) => `${verb} ${outcome.messageId}: ${describe(outcome)}\n`),
    ...refused.map((outcome) => `Refused ${outcome.messageId}: ${outcome.refused}\n`),
  ];
  return {
    json: { done, refused },
    text: lines.length === 0 ? 'The backstop is empty: nothing to do.\n' : lines.join(''),
    ...(refused.length === 0
      ? {}
      : { refusal: `${refused.length} message(s) refused, left in the backstop` }),
  };
}

function messageSelection(context: CommandContext, action: Action, rest: readonly string[]): string | 'all' {
  const all = context.args.flag('all');
  if (all && rest.length === 0) return 'all';
  if (!all && rest.length === 1) return oneMessageId(action, rest);
  throw new UsageError(
    `pq backstop ${action} takes one MESSAGE_ID or --all (given ${rest.length} argument(s)${all ? ' and --all' : ''})`,
  );
}

function oneMessageId(action: Action, rest: readonly string[]): string {
  const [id] = rest;
  if (rest.length !== 1 || id === undefined || id === 'all') {
    throw new UsageError(`pq backstop ${action} takes one MESSAGE_ID (given ${rest.length} argument(s))`);
  }
  return id;
}

function noArguments(action: Action, rest: readonly string[]): void {
  if (rest.length > 0)
    throw new UsageError(`pq backstop ${action} takes no arguments (given ${rest.join(' ')})`);
}
