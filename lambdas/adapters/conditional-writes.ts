/**
 * The one DynamoDB pattern every adapter uses: a conditional write that, when its condition
 * fails, returns the item as it was (ALL_OLD), so the caller learns why without a read.
 * Attribute names are taken from the expressions themselves (`#name` -> `name`): the expression
 * text is the single place an attribute is named, and no placeholder can go unused.
 */
import {
  type AttributeValue,
  type DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { Item } from './attribute-values';
import { isSdkError } from './errors';

export type ConditionalOutcome =
  | { readonly ok: true; readonly item: Item }
  /** `old` is undefined when there was no item. */
  | { readonly ok: false; readonly old?: Item };

export interface ConditionalUpdate {
  readonly tableName: string;
  readonly key: Item;
  readonly update: string;
  readonly condition: string;
  readonly values: Record<string, AttributeValue>;
}

/** `#name` placeholders of the expressions, mapped to the attribute names they stand for. */
export function namesIn(...expressions: readonly string[]): Record<string, string> {
  const names: Record<string, string> = {};
  for (const expression of expressions) {
    for (const [placeholder, name] of expression.matchAll(/#([A-Za-z0-9_]+)/g)) names[placeholder] = name;
  }
  return names;
}

/** UpdateItem with ALL_NEW on success and ALL_OLD on a failed condition; other errors are thrown as they are. */
export async function updateIf(
  client: DynamoDBClient,
  input: ConditionalUpdate,
): Promise<ConditionalOutcome> {
  try {
    const result = await client.send(
      new UpdateItemCommand({
        TableName: input.tableName,
        Key: input.key,
        UpdateExpression: input.update,
        ConditionExpression: input.condition,
        ExpressionAttributeNames: namesIn(input.update, input.condition),
        ExpressionAttributeValues: input.values,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { ok: true, item: result.Attributes ?? {} };
  } catch (error) {
    if (!isSdkError(error, 'ConditionalCheckFailedException')) throw error;
    return { ok: false, old: (error as { Item?: Item }).Item };
  }
}

/** PutItem under a condition, with ALL_OLD on failure; other errors are thrown as they are. */
export async function putIf(
  client: DynamoDBClient,
  input: {
    readonly tableName: string;
    readonly item: Item;
    readonly condition: string;
    readonly values?: Record<string, AttributeValue>;
  },
): Promise<ConditionalOutcome> {
  try {
    await client.send(
      new PutItemCommand({
        TableName: input.tableName,
        Item: input.item,
        ConditionExpression: input.condition,
        ExpressionAttributeNames: namesIn(input.condition),
        ...(input.values === undefined ? {} : { ExpressionAttributeValues: input.values }),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { ok: true, item: input.item };
  } catch (error) {
    if (!isSdkError(error, 'ConditionalCheckFailedException')) throw error;
    return { ok: false, old: (error as { Item?: Item }).Item };
  }
}

/** Runs `call`, turning any error into the adapter's own (`toError` keeps the SDK error as cause). */
export async function guarded<T>(call: () => Promise<T>, toError: (error: unknown) => Error): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toError(error);
  }
}
