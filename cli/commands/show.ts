/** `pq show ID`: everything known about one quarantined message, and its exact bytes. */
import { writeFile } from 'node:fs/promises';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import { absentAs } from '../../lambdas/ports/errors';
import type { LedgerEntry } from '../../lambdas/ports/ledger';
import { positionals } from '../arguments';
import { type BodyDescription, bodyText, describeBody } from '../body';
import type { Command, CommandContext } from '../command';
import { NotFound, Refused } from '../errors';
import { block, fields, section, table } from '../output';

export const show: Command = {
  name: 'show',
  options: { 'body-out': { type: 'string' } },
  help: `pq show ID - one quarantined message, everything known about it

Usage: pq show ID [--body-out FILE] [--output FORMAT]

Shows the evidence (reason, attempts started/charged, last known stage, last error with its
stack head, the outside call if one was declared), the attempts ledger item (the attempt
history: state, counters, generation), the message and system attributes, the audit trail
(who did what, when, why), and the body:
  - printed between BEGIN/END lines when it is plain UTF-8 text;
  - otherwise only its size and sha256 (it holds bytes a terminal should not print).
  --body-out FILE   writes the body's exact bytes to a new FILE, readable by you only (mode
                    0600); refuses to overwrite a file.

Next: pq cause ID "what went wrong"`,
  async run(context: CommandContext) {
    const [id] = positionals(context.args, ['ID']);
    const bodyOut = context.args.string('body-out');
    const deployment = await context.deployment();
    const record = await deployment.records.get(id);
    if (record === undefined) throw new NotFound(`no quarantine record ${id} (pq list shows the ids)`);
    const [ledger, envelope, bytes] = await Promise.all([
      deployment.ledger.get(record.messageKey),
      deployment.records.readEnvelope(id).catch(absentAs(undefined)),
      deployment.records.readBody(id),
    ]);
    if (bodyOut !== undefined) await writeBody(bodyOut, bytes);
    const body = describeBody(bytes);
    const json = {
      record,
      ledger: ledger ?? null,
      messageAttributes: envelope?.messageAttributes ?? null,
      attributes: envelope?.attributes ?? null,
      body,
      ...(bodyOut === undefined ? {} : { bodyWrittenTo: bodyOut }),
    };
    return { json, text: render(record, ledger, envelope, body, bodyOut) };
  },
};

/**
 * A body can hold personal data or secrets: the file is readable by its owner only (0600).
 * `wx` (O_CREAT | O_EXCL) creates a new file or fails, also on a symlink planted at the path,
 * so nothing is followed and no existing file, with whatever mode it has, is ever written.
 */
async function writeBody(file: string, bytes: Buffer): Promise<void> {
  try {
    await writeFile(file, bytes, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new Refused(`${file} exists: not overwritten`);
    throw error;
  }
}

function render(
  record: QuarantineRecord,
  ledger: LedgerEntry | undefined,
  envelope: Record<string, unknown> | undefined,
  body: BodyDescription,
  bodyOut: string | undefined,
): string {
  const evidence = fields([
    ['Status', record.status],
    ['Reason', record.reason],
    ['Cause', record.cause],
    ['Message key', record.messageKey],
    ['Message id', record.messageId],
    [
      'Attempts',
      `${record.attemptsStarted} started, ${record.attemptsCharged} charged (generation ${record.generation})`,
    ],
    ['Last stage', record.stage],
    ['Attempts between', `${record.firstAttemptAt} .. ${record.lastAttemptAt}`],
    ['Quarantined at', record.createdAt],
    ['Source queue', record.sourceQueueArn],
    ...(record.messageGroupId === undefined
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
            `${record.external.name}: ${record.external.status} at ${record.external.at}`,
          ] as const,
        ]),
    ['Error signature', record.errorSignature],
  ]);
  const error = record.lastError
    ? `${record.lastError.class} ${record.lastError.name}: ${record.lastError.message}\n${block(record.lastError.stackHead)}`
    : `none caught: the worker crashed (last stage ${record.stage})\n`;
  const attributes = Object.entries(
    (envelope?.messageAttributes ?? {}) as Record<string, Record<string, unknown>>,
  );
  return (
    `Quarantine record ${record.id}\n${evidence}` +
    section('Last error', error) +
    section(
      `Attempts ledger (key ${record.messageKey})`,
      ledger ? ledgerFields(ledger) : '(no ledger item)\n',
    ) +
    section(
      'Message attributes',
      table(
        ['NAME', 'TYPE', 'VALUE'],
        attributes.map(([name, value]) => [
          name,
          value.dataType,
          value.stringValue ?? `(binary, base64) ${value.binaryValue}`,
        ]),
      ),
    ) +
    section(
      'Audit',
      table(
        ['WHEN', 'WHO', 'WHAT', 'WHY'],
        record.audit.map((entry) => [entry.when, entry.who, entry.what, entry.why]),
        '(no operator action yet)',
      ),
    ) +
    section(`Body: ${body.bytes} bytes, sha256 ${body.sha256}`, bodyText(body, bodyOut))
  );
}

function ledgerFields(ledger: LedgerEntry): string {
  return fields([
    ['State', ledger.state],
    ['Attempts started', `${ledger.attempts} (all generations)`],
    ['Charged', ledger.charged],
    ['Transient failures', ledger.transientFailures],
    ['Unknown failures', ledger.unknownFailures],
    ['Generation', ledger.generation],
    ['Last stage', ledger.stage],
    ['First attempt', ledger.firstAttemptAt],
    ['Last attempt', ledger.lastAttemptAt],
    ['Last ended', ledger.lastEndedAt],
    ['Replayed at', ledger.replayedAt],
  ]);
}
