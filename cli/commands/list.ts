/** `pq list`: quarantine records, one per line or grouped by how they failed. */
import { QUARANTINE_REASONS, QUARANTINE_STATUS, type QuarantineStatus } from '../../contract/quarantine';
import type { RecordPosition } from '../../lambdas/adapters/quarantine-reader';
import { groupBySignature, hasCause } from '../../lambdas/core/operator';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import { oneOf, parseSince, positionals, positiveInteger } from '../arguments';
import type { Command, CommandContext } from '../command';
import type { Deployment } from '../deployment';
import { UsageError } from '../errors';
import { choicesHelp } from '../help';
import { type KafkaRecordView, kafkaViews, keyLine } from '../kafka-view';
import { table } from '../output';

const STATUSES = Object.values(QUARANTINE_STATUS);
/** Where `--status S` and `--reason R` list their choices in the help. */
const CHOICES_INDENT = 15;
/** Without --status: what still needs a person. */
const DEFAULT_STATUSES = [QUARANTINE_STATUS.open, QUARANTINE_STATUS.awaitingOperator] as const;

export const list: Command = {
  name: 'list',
  options: {
    status: { type: 'string' },
    reason: { type: 'string' },
    since: { type: 'string' },
    group: { type: 'boolean' },
    limit: { type: 'string' },
    'max-items': { type: 'string' },
    'starting-token': { type: 'string' },
  },
  help: `pq list - quarantine records, newest first

Usage: pq list [--status S] [--reason R] [--since 2h|ISO] [--group] [--limit N] [--output FORMAT]
       pq list [--status S] [--reason R] --max-items N [--starting-token T] [--output FORMAT]

  --status S   ${choicesHelp(STATUSES, CHOICES_INDENT)}
               (default: open and awaiting-operator, what still needs a person)
  --reason R   ${choicesHelp(QUARANTINE_REASONS, CHOICES_INDENT)}
  --since T    quarantined within the last 30m / 2h / 7d, or since an ISO time
  --group      one line per failure group (records with the same error signature), biggest
               first. GROUP is a short id: pq replay --group GROUP replays every open record in it
  --limit N    the first N lines only (records, or groups with --group); says how many there were
               (every record of the statuses is read to count them)
  --max-items N        one page of at most N records, as the AWS CLI pages: reads one page of
                       each status, no more, and prints the token that continues after it
  --starting-token T   the next page: the token the previous page printed

CAUSE is "unidentified" until someone runs pq cause; replay is refused until then.
For a Kafka consumer each record also shows its TOPIC, PARTITION, OFFSET and KEY (text when it is
printable UTF-8, else base64; read from the record's envelope in the quarantine bucket).

Next: pq show ID`,
  async run(context: CommandContext) {
    const { args } = context;
    positionals(args, []);
    const status = args.string('status');
    const statuses = status === undefined ? DEFAULT_STATUSES : [oneOf('status', status, STATUSES)];
    const sinceText = args.string('since');
    const since = sinceText === undefined ? undefined : parseSince(sinceText, context.now());
    const reasonText = args.string('reason');
    const reason = reasonText === undefined ? undefined : oneOf('reason', reasonText, QUARANTINE_REASONS);
    const limitText = args.string('limit');
    const limit = limitText === undefined ? undefined : positiveInteger('limit', limitText);
    const maxItemsText = args.string('max-items');
    if (maxItemsText !== undefined || args.string('starting-token') !== undefined) {
      return onePage(context, statuses, reason, maxItemsText);
    }
    const deployment = await context.deployment();
    const pages = await Promise.all(
      statuses.map((state) => deployment.records.list({ status: state, ...(since ? { since } : {}) })),
    );
    const records = pages
      .flat()
      .filter((record) => reason === undefined || record.reason === reason)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    return args.flag('group') ? grouped(records, limit) : oneByOne(deployment, records, limit);
  },
};

/**
 * `--max-items N [--starting-token T]`: one Query of at most N records per status, merged newest
 * first, the first N shown; the token says where each status continues (after its last record
 * shown), so a record fetched but not shown comes on the next page.
 */
async function onePage(
  context: CommandContext,
  statuses: readonly QuarantineStatus[],
  reason: string | undefined,
  maxItemsText: string | undefined,
) {
  const { args } = context;
  const conflicting = ['group', 'limit', 'since'].filter((name) =>
    name === 'group' ? args.flag(name) : args.string(name) !== undefined,
  );
  if (maxItemsText === undefined || conflicting.length > 0) {
    throw new UsageError(
      maxItemsText === undefined
        ? '--starting-token continues a --max-items page: give --max-items N too'
        : `--max-items pages the records as they are stored; it takes no --${conflicting.join(', --')}`,
    );
  }
  const maxItems = positiveInteger('max-items', maxItemsText);
  const from = decodeToken(args.string('starting-token'));
  const deployment = await context.deployment();
  const pages = await Promise.all(
    statuses
      .filter((state) => from[state] !== END)
      .map(async (state) => {
        const after = from[state];
        const page = await deployment.records.page({
          status: state,
          limit: maxItems,
          ...(typeof after === 'object' ? { after } : {}),
          ...(reason === undefined ? {} : { reason }),
        });
        return { state, ...page };
      }),
  );
  const records = pages
    .flatMap((page) => page.records)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    .slice(0, maxItems);
  const next: Positions = { ...from };
  for (const page of pages) {
    const shown = records.filter((record) => record.status === page.state);
    const lastShown = shown.at(-1);
    next[page.state] =
      shown.length === page.records.length
        ? (page.last ?? END)
        : lastShown === undefined
          ? from[page.state]
          : { id: lastShown.id, createdAt: lastShown.createdAt };
  }
  const more = statuses.some((state) => next[state] !== END);
  const nextToken = more ? encodeToken(next) : undefined;
  const shown = await recordsShown(deployment, records);
  return {
    json: { records: shown.json, ...(nextToken === undefined ? {} : { nextToken }) },
    text: shown.text + (nextToken === undefined ? '' : `(more: --starting-token ${nextToken})\n`),
  };
}

/** Where each status continues; END once its records are all shown. */
type Positions = Partial<Record<QuarantineStatus, RecordPosition | typeof END | undefined>>;
const END = 'end';

function encodeToken(positions: Positions): string {
  return Buffer.from(JSON.stringify(positions), 'utf8').toString('base64url');
}

function decodeToken(token: string | undefined): Positions {
  if (token === undefined) return {};
  try {
    const positions = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Positions;
    const valid = Object.entries(positions).every(
      ([state, position]) =>
        STATUSES.includes(state as QuarantineStatus) &&
        (position === END ||
          (typeof position === 'object' &&
            typeof position?.id === 'string' &&
            typeof position.createdAt === 'string')),
    );
    if (valid) return positions;
  } catch {
    // said below
  }
  throw new UsageError(`--starting-token is not a token pq list printed (given ${token})`);
}

/** The first `limit` lines, and a line that says what was left out. */
function limited<T>(lines: readonly T[], limit: number | undefined, what: string) {
  const shown = limit === undefined ? lines : lines.slice(0, limit);
  const note =
    shown.length < lines.length
      ? `(${shown.length} of ${lines.length} ${what} shown: --limit ${limit})\n`
      : '';
  return { shown, total: lines.length, note };
}

async function oneByOne(deployment: Deployment, all: readonly QuarantineRecord[], limit: number | undefined) {
  const { shown: records, total, note } = limited(all, limit, 'records');
  const shown = await recordsShown(deployment, records);
  return { json: { records: shown.json, total }, text: shown.text + note };
}

/**
 * The records as `pq list` and `pq find` print them; a Kafka consumer's with the topic,
 * partition, offset and key of each (its envelope read for them), in the JSON as `kafka`.
 */
export async function recordsShown(
  deployment: Deployment,
  records: readonly QuarantineRecord[],
): Promise<{ readonly json: readonly object[]; readonly text: string }> {
  if (deployment.kafka === undefined) return { json: records, text: recordsTable(records) };
  const views = await kafkaViews(deployment, records);
  return {
    json: records.map((record) => {
      const kafka = views.get(record.id);
      return kafka === undefined ? record : { ...record, kafka };
    }),
    text: recordsTable(records, views),
  };
}

/** One line a record: what `pq list` and `pq find` print; `kafka`: a Kafka consumer's records. */
export function recordsTable(
  records: readonly QuarantineRecord[],
  kafka?: ReadonlyMap<string, KafkaRecordView>,
): string {
  const rows = records.map((record) => {
    const view = kafka?.get(record.id);
    return [
      record.id,
      record.status,
      record.reason,
      record.createdAt,
      `${record.attemptsStarted}/${record.attemptsCharged}`,
      ...(kafka === undefined
        ? []
        : view === undefined
          ? ['?', '?', '?', '(no Kafka record in its envelope)']
          : [view.topic, view.partition, view.offset, keyLine(view)]),
      hasCause(record) ? record.cause : 'unidentified',
      record.lastError
        ? `${record.lastError.name}: ${record.lastError.message.split('\n')[0]}`
        : `crash at ${record.stage}`,
    ];
  });
  const source = kafka === undefined ? [] : ['TOPIC', 'PARTITION', 'OFFSET', 'KEY'];
  return table(['ID', 'STATUS', 'REASON', 'QUARANTINED', 'ATT/CHG', ...source, 'CAUSE', 'LAST ERROR'], rows);
}

function grouped(records: readonly QuarantineRecord[], limit: number | undefined) {
  const { shown: groups, total, note } = limited(groupBySignature(records), limit, 'groups');
  const rows = groups.map((group) => [
    group.group,
    group.count,
    `${group.withCause}/${group.count}`,
    group.reasons.join(','),
    group.lastAt,
    group.errorSignature,
  ]);
  return {
    json: { groups, total },
    text: table(['GROUP', 'COUNT', 'WITH CAUSE', 'REASONS', 'LATEST', 'ERROR SIGNATURE'], rows) + note,
  };
}
