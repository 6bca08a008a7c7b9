/**
 * Rule 11a's count of open records, one item of the quarantine table (contract/quarantine.ts
 * OPEN_RECORDS_COUNTER), so that the capacity check reads one item instead of counting the
 * byStatus index. The consumer, the operator CLI and the verification state machine keep it.
 *
 * Counter timeline:
 *   absent (a table written by a version without it)
 *     --first user: COUNT the index, create only if still absent--> openRecords = n
 *     --a record written open or awaiting-operator: ADD 1, in the transaction of its put
 *     --a record moved out of those statuses: ADD -1 (and back in: ADD 1), in the transaction
 *       of its update
 *     --pq recount: SET to the index's count, only if no write moved it while it was counted
 * The record's own condition guards the count: a retried write whose record is already there
 * (or already moved) cancels the whole transaction, so it counts nothing.
 */
import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  type TransactWriteItem,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  COUNTED_STATUSES,
  OPEN_RECORDS_COUNTER,
  QUARANTINE_INDEXES,
  type QuarantineStatus,
  RECORD_ATTRIBUTES as R,
} from '../../contract/quarantine';
import type { AuditEntry } from '../core/quarantine-record';
import { OpenRecordsCountError } from '../ports/errors';
import { type Item, ItemReader, M, N, S } from './attribute-values';
import { namesIn, updateIf } from './conditional-writes';
import { isSdkError } from './sdk-errors';

const C = OPEN_RECORDS_COUNTER.attributes;
export const COUNTER_KEY: Item = { id: S(OPEN_RECORDS_COUNTER.key.id) };

// An ADD on an absent counter would start it from 0 and leave out every record written before.
const COUNTER_EXISTS = `attribute_exists(#${C.count})`;
const COUNTER_ABSENT = `attribute_not_exists(#${C.count})`;
const COUNTER_UNMOVED = `#${C.count} = :was`;
const CONDITION_FAILED = 'ConditionalCheckFailed';
// Transactions on the one counter item conflict when they overlap, and a throttled one is
// cancelled too: retried with jittered backoff (at most about 1.6 s in all).
const RETRYABLE = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);
const CANCEL_RETRIES = 6;
const CANCEL_BACKOFF_MS = 25;
// A recount whose count moved meanwhile (a quarantine, an operator) counts again, this often.
const RECOUNT_ROUNDS = 3;

/** How a record's move from `from` to `to` changes the count. */
export function countChange(from: QuarantineStatus, to: QuarantineStatus): -1 | 0 | 1 {
  const before = COUNTED_STATUSES.includes(from);
  const after = COUNTED_STATUSES.includes(to);
  return before === after ? 0 : after ? 1 : -1;
}

/** The record's side of a transaction: a conditional put or update of one record item. */
export type RecordWrite =
  | { readonly put: { readonly item: Item; readonly condition: string } }
  | {
      readonly update: {
        readonly key: Item;
        readonly update: string;
        readonly condition: string;
        readonly values: Record<string, AttributeValue>;
      };
    };

/** `old` is the record as it was when its condition failed (undefined: there was none). */
export type CountedWriteOutcome = { readonly ok: true } | { readonly ok: false; readonly old?: Item };

export interface Recount {
  /** The counter before; undefined when there was none. */
  readonly was?: number;
  readonly counted: number;
}

export class OpenRecordsCounter {
  constructor(
    private readonly dynamodb: DynamoDBClient,
    private readonly table: string,
  ) {}

  /**
   * The count, strongly consistent: a read a moment old could still see the records an operator
   * has just resolved and stop the consumer for nothing, and a stop waits for a person. Only
   * the quarantine path reads it, so the full read unit is no cost that matters.
   */
  async read(): Promise<number | undefined> {
    const { Item: item } = await this.dynamodb.send(
      new GetItemCommand({
        TableName: this.table,
        Key: COUNTER_KEY,
        ConsistentRead: true,
        ProjectionExpression: `#${C.count}`,
        ExpressionAttributeNames: namesIn(`#${C.count}`),
      }),
    );
    return item?.[C.count] === undefined ? undefined : countOf(item);
  }

  /** The count; without a counter (an upgrade), the index is counted once and the counter created. */
  async current(): Promise<number> {
    return (await this.read()) ?? (await this.establish());
  }

  /**
   * The record's write and the count's `change` in one transaction. A failed record condition
   * is an answer (`ok: false`, nothing written, nothing counted); a missing counter is created
   * from the index first; overlapping transactions are retried.
   */
  async write(record: RecordWrite, change: -1 | 1): Promise<CountedWriteOutcome> {
    const items = [this.recordItem(record), this.changeItem(change)];
    let established = false;
    for (let retry = 0; ; retry++) {
      const reasons = await this.transact(items);
      if (reasons === undefined) return { ok: true };
      const [recordReason, counterReason] = reasons;
      if (recordReason?.Code === CONDITION_FAILED) return { ok: false, old: recordReason.Item };
      if (counterReason?.Code === CONDITION_FAILED && !established) {
        // No counter yet: count what is there (this record not yet), then this write on top.
        await this.establish();
        established = true;
      } else if (retry < CANCEL_RETRIES && reasons.some((reason) => RETRYABLE.has(reason.Code ?? ''))) {
        await backoff(retry);
      } else {
        throw new OpenRecordsCountError(
          `Quarantine table ${this.table}: record and open-record count not written together ` +
            `(${reasons.map((reason) => reason.Code ?? 'None').join(', ')})`,
        );
      }
    }
  }

  /**
   * Sets the counter to the byStatus index's count, only if nothing moved the counter while the
   * index was counted. The index is eventually consistent: a record written in the second
   * before may be missed, so a recount belongs to a quiet moment (and a second one confirms it).
   */
  async recount(entry: Pick<AuditEntry, 'who' | 'when' | 'why'>): Promise<Recount> {
    for (let round = 0; round < RECOUNT_ROUNDS; round++) {
      const was = await this.read();
      const counted = await this.countIndex();
      const outcome = await updateIf(this.dynamodb, {
        tableName: this.table,
        key: COUNTER_KEY,
        update: `SET #${C.count} = :counted, #${C.lastRecount} = :entry`,
        condition: was === undefined ? COUNTER_ABSENT : COUNTER_UNMOVED,
        values: {
          ':counted': N(counted),
          ':entry': M({
            who: S(entry.who),
            when: S(entry.when),
            why: S(entry.why),
            was: was === undefined ? { NULL: true } : N(was),
            counted: N(counted),
          }),
          ...(was === undefined ? {} : { ':was': N(was) }),
        },
      });
      if (outcome.ok) return was === undefined ? { counted } : { was, counted };
    }
    throw new OpenRecordsCountError(
      `Quarantine table ${this.table}: the open-record count moved during ${RECOUNT_ROUNDS} recounts ` +
        '(records are being quarantined or resolved right now): try again in a quiet moment',
    );
  }

  /** The byStatus index's count of every counted status, all pages (keys only, no content). */
  private async countIndex(): Promise<number> {
    let total = 0;
    for (const status of COUNTED_STATUSES) {
      let startKey: Item | undefined;
      do {
        const page = await this.dynamodb.send(
          new QueryCommand({
            TableName: this.table,
            IndexName: QUARANTINE_INDEXES.byStatus,
            KeyConditionExpression: `#${R.status} = :status`,
            ExpressionAttributeNames: namesIn(`#${R.status}`),
            ExpressionAttributeValues: { ':status': S(status) },
            Select: 'COUNT',
            ExclusiveStartKey: startKey,
          }),
        );
        total += page.Count ?? 0;
        startKey = page.LastEvaluatedKey;
      } while (startKey);
    }
    return total;
  }

  /**
   * Counts the index and creates the counter, unless another writer created it first: then its
   * count stands. No record moves meanwhile, as every counted write needs the counter. The
   * update returns nothing: the consumer's role may touch the count and no other attribute.
   */
  private async establish(): Promise<number> {
    const counted = await this.countIndex();
    try {
      await this.dynamodb.send(
        new UpdateItemCommand({
          TableName: this.table,
          Key: COUNTER_KEY,
          UpdateExpression: `SET #${C.count} = :counted`,
          ConditionExpression: COUNTER_ABSENT,
          ExpressionAttributeNames: namesIn(COUNTER_ABSENT),
          ExpressionAttributeValues: { ':counted': N(counted) },
        }),
      );
      return counted;
    } catch (error) {
      if (!isSdkError(error, 'ConditionalCheckFailedException')) throw error;
      return (await this.read()) ?? counted;
    }
  }

  /** The reasons of a cancelled transaction; undefined when it was written. */
  private async transact(items: TransactWriteItem[]): Promise<{ Code?: string; Item?: Item }[] | undefined> {
    try {
      await this.dynamodb.send(new TransactWriteItemsCommand({ TransactItems: items }));
      return undefined;
    } catch (error) {
      if (!isSdkError(error, 'TransactionCanceledException')) throw error;
      return (error as { CancellationReasons?: { Code?: string; Item?: Item }[] }).CancellationReasons ?? [];
    }
  }

  private recordItem(record: RecordWrite): TransactWriteItem {
    if ('put' in record) {
      const { item, condition } = record.put;
      return {
        Put: {
          TableName: this.table,
          Item: item,
          ConditionExpression: condition,
          ExpressionAttributeNames: namesIn(condition),
        },
      };
    }
    const { key, update, condition, values } = record.update;
    return {
      Update: {
        TableName: this.table,
        Key: key,
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeNames: namesIn(update, condition),
        ExpressionAttributeValues: values,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    };
  }

  private changeItem(change: -1 | 1): TransactWriteItem {
    const update = `ADD #${C.count} :change`;
    return {
      Update: {
        TableName: this.table,
        Key: COUNTER_KEY,
        UpdateExpression: update,
        ConditionExpression: COUNTER_EXISTS,
        ExpressionAttributeNames: namesIn(update, COUNTER_EXISTS),
        ExpressionAttributeValues: { ':change': N(change) },
      },
    };
  }
}

function countOf(item: Item): number {
  return new ItemReader(item, 'open-record counter').number(C.count);
}

/** Full jitter: writers that conflicted once must not meet again at the same moment. */
function backoff(retry: number): Promise<void> {
  const ms = Math.random() * CANCEL_BACKOFF_MS * 2 ** retry;
  return new Promise((resolve) => setTimeout(resolve, ms));
}
