/** `pq list`: quarantine records, one per line or grouped by how they failed. */
import { QUARANTINE_STATUS } from '../../contract/quarantine';
import { groupBySignature, hasCause } from '../../lambdas/core/operator';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import type { QuarantineReason } from '../../lambdas/core/types';
import { oneOf, parseSince, positionals } from '../arguments';
import type { Command, CommandContext } from '../command';
import { table } from '../output';

const STATUSES = Object.values(QUARANTINE_STATUS);
const REASONS: readonly QuarantineReason[] = [
  'crash-limit',
  'permanent-error',
  'unknown-error-repeated',
  'transient-retries-exhausted',
  'outcome-unknown',
];
/** Without --status: what still needs a person. */
const DEFAULT_STATUSES = [QUARANTINE_STATUS.open, QUARANTINE_STATUS.awaitingOperator] as const;

export const list: Command = {
  name: 'list',
  summary: 'quarantined records; --group shows failure groups (same error, same place)',
  options: {
    status: { type: 'string' },
    reason: { type: 'string' },
    since: { type: 'string' },
    group: { type: 'boolean' },
  },
  help: `pq list - quarantine records, newest first

Usage: pq list [--status S] [--reason R] [--since 2h|ISO] [--group] [--json]

  --status S   open | awaiting-operator | replaying | resolved | replayed
               (default: open and awaiting-operator, what still needs a person)
  --reason R   crash-limit | permanent-error | unknown-error-repeated |
               transient-retries-exhausted | outcome-unknown
  --since T    quarantined within the last 30m / 2h / 7d, or since an ISO time
  --group      one line per failure group (records with the same error signature), biggest
               first. GROUP is a short id: pq replay --group GROUP replays every open record in it

CAUSE is "unidentified" until someone runs pq cause; replay is refused until then.

Next: pq show ID`,
  async run(context: CommandContext) {
    const { args } = context;
    positionals(args, []);
    const status = args.string('status');
    const statuses = status === undefined ? DEFAULT_STATUSES : [oneOf('status', status, STATUSES)];
    const sinceText = args.string('since');
    const since = sinceText === undefined ? undefined : parseSince(sinceText, context.now());
    const reasonText = args.string('reason');
    const reason = reasonText === undefined ? undefined : oneOf('reason', reasonText, REASONS);
    const deployment = await context.deployment();
    const pages = await Promise.all(
      statuses.map((state) => deployment.records.list({ status: state, ...(since ? { since } : {}) })),
    );
    const records = pages
      .flat()
      .filter((record) => reason === undefined || record.reason === reason)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    return args.flag('group') ? grouped(records) : oneByOne(records);
  },
};

function oneByOne(records: readonly QuarantineRecord[]) {
  const rows = records.map((record) => [
    record.id,
    record.status,
    record.reason,
    record.createdAt,
    `${record.attemptsStarted}/${record.attemptsCharged}`,
    hasCause(record) ? record.cause : 'unidentified',
    record.lastError
      ? `${record.lastError.name}: ${record.lastError.message.split('\n')[0]}`
      : `crash at ${record.stage}`,
  ]);
  return {
    json: { records },
    text: table(['ID', 'STATUS', 'REASON', 'QUARANTINED', 'ATT/CHG', 'CAUSE', 'LAST ERROR'], rows),
  };
}

function grouped(records: readonly QuarantineRecord[]) {
  const groups = groupBySignature(records);
  const rows = groups.map((group) => [
    group.group,
    group.count,
    `${group.withCause}/${group.count}`,
    group.reasons.join(','),
    group.lastAt,
    group.errorSignature,
  ]);
  return {
    json: { groups },
    text: table(['GROUP', 'COUNT', 'WITH CAUSE', 'REASONS', 'LATEST', 'ERROR SIGNATURE'], rows),
  };
}
