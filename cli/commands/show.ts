/** `pq show ID`: everything known about one quarantined message, and its exact bytes. */
import { writeFile } from 'node:fs/promises';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import { absentAs } from '../../lambdas/ports/errors';
import type { LedgerEntry } from '../../lambdas/ports/ledger';
import { positionals } from '../arguments';
import { type BodyDescription, bodyLine, bodyText, describeBody } from '../body';
import type { Command, CommandContext } from '../command';
import { NotFound, Refused } from '../errors';
import { type KafkaRecordView, kafkaFields, kafkaView } from '../kafka-view';
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
A Kafka record shows its topic, partition, offset, timestamp and key, and its headers, instead of
the queue, the FIFO group and the message attributes; its body is the record's value, printed as
text when it is printable UTF-8, else as base64 (the section's title says which). Keys and header
values are shown the same way: "quoted text", or (base64).
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
    const kafka = deployment.kafka === undefined ? undefined : kafkaView(record, envelope);
    if (kafka !== undefined) {
      const shown = 'text' in body ? body : { ...body, base64: bytes.toString('base64') };
      return {
        json: {
          record,
          ledger: ledger ?? null,
          kafka,
          body: shown,
          ...(bodyOut ? { bodyWrittenTo: bodyOut } : {}),
        },
        text: render(record, ledger, { kafka }, body, bodyOut, bytes),
      };
    }
    const json = {
      record,
      ledger: ledger ?? null,
      messageAttributes: envelope?.messageAttributes ?? null,
      attributes: envelope?.attributes ?? null,
      body,
      ...(bodyOut === undefined ? {} : { bodyWrittenTo: bodyOut }),
    };
    return { json, text: render(record, ledger, { envelope }, body, bodyOut, bytes) };
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

/** What the message came with: an SQS message's envelope, or a Kafka record as `kafkaView` reads it. */
type Delivered =
  | { readonly envelope: Record<string, unknown> | undefined; readonly kafka?: undefined }
  | { readonly kafka: KafkaRecordView };

function render(
  record: QuarantineRecord,
  ledger: LedgerEntry | undefined,
  delivered: Delivered,
  body: BodyDescription,
  bodyOut: string | undefined,
  bytes: Buffer,
): string {
  const { kafka } = delivered;
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
    [kafka ? 'Source cluster' : 'Source queue', record.sourceQueueArn],
    ...(kafka ? kafkaFields(kafka, record.orderBroken) : []),
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
            `${record.external.name}: ${record.external.status} at ${record.external.at}`,
          ] as const,
        ]),
    ['Error signature', record.errorSignature],
  ]);
  const error = record.lastError
    ? `${record.lastError.class} ${record.lastError.name}: ${record.lastError.message}\n${block(record.lastError.stackHead)}`
    : `none caught: the worker crashed (last stage ${record.stage})\n`;
  return (
    `Quarantine record ${record.id}\n${evidence}` +
    section('Last error', error) +
    section(
      `Attempts ledger (key ${record.messageKey})`,
      ledger ? ledgerFields(ledger) : '(no ledger item)\n',
    ) +
    (kafka ? headersSection(kafka) : attributesSection(delivered.envelope)) +
    section(
      'Audit',
      table(
        ['WHEN', 'WHO', 'WHAT', 'WHY'],
        record.audit.map((entry) => [entry.when, entry.who, entry.what, entry.why]),
        '(no operator action yet)',
      ),
    ) +
    (kafka
      ? section(`Body (the record's value): ${bodyLine(body)}`, valueText(body, bytes, bodyOut))
      : section(`Body: ${body.bytes} bytes, sha256 ${body.sha256}`, bodyText(body, bodyOut)))
  );
}

function attributesSection(envelope: Record<string, unknown> | undefined): string {
  const attributes = Object.entries(
    (envelope?.messageAttributes ?? {}) as Record<string, Record<string, unknown>>,
  );
  return section(
    'Message attributes',
    table(
      ['NAME', 'TYPE', 'VALUE'],
      attributes.map(([name, value]) => [
        name,
        value.dataType,
        value.stringValue ?? `(binary, base64) ${value.binaryValue}`,
      ]),
    ),
  );
}

/** A Kafka record's headers in order, a repeated name once per value. */
function headersSection(kafka: KafkaRecordView): string {
  if (kafka.headers === undefined) return section('Headers', `(not known: ${kafka.problem})\n`);
  return section(
    'Headers',
    table(
      ['NAME', 'VALUE'],
      kafka.headers.map(({ name, value }) => [
        name,
        'text' in value ? value.text : `(base64) ${value.base64}`,
      ]),
    ),
  );
}

/** A Kafka value is any bytes: printed as text when it is printable UTF-8, else as base64 (never withheld). */
function valueText(body: BodyDescription, bytes: Buffer, bodyOut: string | undefined): string {
  if (body.text !== undefined) return bodyText(body, bodyOut);
  const written = bodyOut === undefined ? '' : `(exact bytes written to ${bodyOut})\n`;
  const lines = bytes.toString('base64').match(/.{1,76}/g) ?? [];
  return `${written}-----BEGIN BODY (base64)-----\n${lines.map((line) => `${line}\n`).join('')}-----END BODY-----\n`;
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
