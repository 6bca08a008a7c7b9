/**
 * `pq find --key K | --message-id ID`: the records of one message, by the key its ledger item
 * has (a business key, or the SQS message id by default) or by the SQS message id of the delivery
 * that was quarantined; newest first, through an index of each, without reading other records.
 */
import { positionals, positiveInteger } from '../arguments';
import type { Command, CommandContext } from '../command';
import { NotFound, UsageError } from '../errors';
import { recordsShown } from './list';

/** More records than this for one message is a replay loop worth a look of its own. */
const FIND_MAX = 50;

export const find: Command = {
  name: 'find',
  options: { key: { type: 'string' }, 'message-id': { type: 'string' }, limit: { type: 'string' } },
  help: `pq find - the quarantine records of one message

Usage: pq find --key KEY [--limit N] [--output FORMAT]
       pq find --message-id ID [--limit N] [--output FORMAT]

  --key KEY         the message key: the value at messageKeyPath in the body, or the SQS
                    message id when the pipeline has none (every replay keeps its message's key);
                    a Kafka record's is its topic-partition-offset by default, not its Kafka key
  --message-id ID   the SQS message id of the delivery that was quarantined; for Kafka, the
                    record's topic-partition-offset (orders-2-17)
  --limit N         at most N records, newest first (default ${FIND_MAX})

Not found (exit 3) when no record has it.

Next: pq show ID`,
  async run(context: CommandContext) {
    const { args } = context;
    positionals(args, []);
    const key = args.string('key');
    const messageId = args.string('message-id');
    if ((key === undefined) === (messageId === undefined)) {
      throw new UsageError('give one of --key KEY or --message-id ID');
    }
    const limitText = args.string('limit');
    const limit = limitText === undefined ? FIND_MAX : positiveInteger('limit', limitText);
    const by = key === undefined ? { messageId: messageId ?? '' } : { messageKey: key };
    const deployment = await context.deployment();
    const records = await deployment.records.find(by, limit);
    if (records.length === 0) {
      throw new NotFound(
        `no quarantine record of ${key === undefined ? `message id ${messageId}` : `key ${key}`} (pq list shows them all)`,
      );
    }
    const shown = await recordsShown(deployment, records);
    return { json: { records: shown.json }, text: shown.text };
  },
};
