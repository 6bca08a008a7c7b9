/**
 * The control table's guarded writes and the reads both sides make (the snapshot, a stop request),
 * shared by the consumer's ControlState (control-state.ts) and the operator's
 * (operator-control-state.ts). Every failure becomes ControlStateUnavailableError naming the table.
 */
import {
  type AttributeValue,
  BatchGetItemCommand,
  type DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { CONSUMER_PARTITIONS as P, stopRequestSortKey } from '../../contract/control';
import type { Policy } from '../core/types';
import type { ControlSnapshot } from '../ports/control';
import { ControlStateUnavailableError } from '../ports/errors';
import { type Item, ItemReader, S } from './attribute-values';
import { type ConditionalUpdate, guarded, namesIn, updateIf } from './conditional-writes';
import { BREAKER_KEY, FREEZE_KEY, ISOLATION_KEY, readBreaker, toIsolation } from './control-items';
import { describeSdkError } from './sdk-errors';

/** The first cool-down, written when the breaker item is created by a trip. */
export type FirstCooldown = Pick<Policy, 'breakerCooldownSeconds'>;

/** BatchGetItem may leave keys unprocessed under load; after this many rounds the read fails. */
const BATCH_ROUNDS = 5;

export class ControlTable {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly timings: FirstCooldown,
  ) {}

  /** Breaker, isolation trial and freeze in one BatchGetItem (strongly consistent). */
  async snapshot(): Promise<ControlSnapshot> {
    let keys: Item[] = [BREAKER_KEY, ISOLATION_KEY, FREEZE_KEY];
    const items: Item[] = [];
    for (let round = 0; keys.length > 0; round++) {
      if (round === BATCH_ROUNDS) {
        throw new ControlStateUnavailableError(
          `Control table ${this.tableName}: snapshot left keys unprocessed`,
        );
      }
      if (round > 0) await sleep(25 * 2 ** round);
      const request = { RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } } };
      const result = await this.guard('snapshot', () => this.client.send(new BatchGetItemCommand(request)));
      items.push(...(result.Responses?.[this.tableName] ?? []));
      keys = result.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
    }
    const find = (key: Item) => items.find((item) => item.pk?.S === key.pk?.S && item.sk?.S === key.sk?.S);
    const breaker = find(BREAKER_KEY);
    const isolation = find(ISOLATION_KEY);
    const freeze = find(FREEZE_KEY);
    return {
      breaker: breaker && readBreaker(breaker, this.timings.breakerCooldownSeconds),
      isolation: isolation && toIsolation(isolation),
      replayFrozen: freeze !== undefined && new ItemReader(freeze, 'replay freeze').boolean('frozen'),
    };
  }

  /**
   * Rule 11: a stop request, in force until an operator's resume lifts it. An UpdateItem, which
   * creates it, so that an operator's reset (whose role holds no PutItem) requests one as well.
   */
  async requestStop(reason: string, at: Date): Promise<void> {
    await this.guard('requestStop', () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { pk: S(P.stop), sk: S(stopRequestSortKey(at, reason)) },
          UpdateExpression: 'SET #reason = :reason',
          ExpressionAttributeNames: namesIn('#reason'),
          ExpressionAttributeValues: { ':reason': S(reason) },
        }),
      ),
    );
  }

  update(operation: string, key: Item, parts: Omit<ConditionalUpdate, 'tableName' | 'key'>) {
    return this.guard(operation, () => updateIf(this.client, { tableName: this.tableName, key, ...parts }));
  }

  /**
   * An UpdateItem without a condition: it sets what it names and keeps the item's other
   * attributes; returns the item as it is now.
   */
  async set(
    operation: string,
    key: Item,
    update: string,
    values: Record<string, AttributeValue>,
  ): Promise<Item> {
    const result = await this.guard(operation, () =>
      this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: update,
          ExpressionAttributeNames: namesIn(update),
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return result.Attributes ?? {};
  }

  async put(operation: string, item: Item): Promise<void> {
    await this.guard(operation, () =>
      this.client.send(new PutItemCommand({ TableName: this.tableName, Item: item })),
    );
  }

  guard<T>(operation: string, call: () => Promise<T>): Promise<T> {
    return guarded(
      call,
      (error) =>
        new ControlStateUnavailableError(
          `Control table ${this.tableName}: ${operation} failed: ${describeSdkError(error)}`,
          {
            cause: error,
          },
        ),
    );
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
