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
import { type Item, L, N, S } from './attribute-values';
import { isSdkError } from './sdk-errors';

// The audit trail of an item (a quarantine record, the breaker, the replay freeze): `audit`, a
// list of { who, when, what, why } that our writes only ever append to, and `auditCount`, the
// entries our code appended. Every audited update appends with APPEND_AUDIT under AUDIT_INTACT:
// a trail is intact while it is a list holding at least the entries counted, so one replaced or
// removed by another writer refuses the write, which leaves the item as it was found. Writers
// that append without counting (the verification machine) keep it intact; an item from before
// the count is taken as it is, and counted from its next entry on.
export const AUDIT_INTACT =
  '((attribute_not_exists(#auditCount) AND (attribute_not_exists(#audit) OR attribute_type(#audit, :auditList))) ' +
  'OR (attribute_type(#audit, :auditList) AND size(#audit) >= #auditCount))';
export const APPEND_AUDIT =
  '#audit = list_append(if_not_exists(#audit, :noAudit), :auditEntry), ' +
  '#auditCount = if_not_exists(#auditCount, :noAuditCount) + :oneAuditEntry';
/** A trail begun afresh, for a write that keeps one that is not intact aside (the same values). */
export const BEGIN_AUDIT = '#audit = :auditEntry, #auditCount = :oneAuditEntry';

/** The values APPEND_AUDIT, BEGIN_AUDIT and AUDIT_INTACT name, for one entry (an `M` attribute). */
export function auditValues(entry: AttributeValue): Record<string, AttributeValue> {
  return {
    ':auditEntry': L([entry]),
    ':noAudit': L([]),
    ':noAuditCount': N(0),
    ':oneAuditEntry': N(1),
    ':auditList': S('L'),
  };
}

/**
 * What AUDIT_INTACT found wrong with an item's trail, for the refusal; undefined when it is
 * intact (the write was refused for another of its conditions).
 */
export function auditProblem(item: Item): string | undefined {
  const { audit, auditCount } = item;
  const counted = auditCount?.N === undefined ? undefined : Number(auditCount.N);
  if (audit !== undefined && audit.L === undefined) return 'its audit is no list';
  const held = audit?.L?.length ?? 0;
  return counted !== undefined && held < counted
    ? `its audit holds ${held} entries, fewer than the ${counted} pq appended (replaced or cut by another writer)`
    : undefined;
}

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

/**
 * The values the expressions name. DynamoDB refuses a value no expression uses, so a shared
 * bundle of values (auditValues) may serve a write that uses only part of it.
 */
export function valuesIn(
  values: Record<string, AttributeValue>,
  ...expressions: readonly string[]
): Record<string, AttributeValue> {
  const used = new Set(expressions.flatMap((expression) => expression.match(/:[A-Za-z0-9_]+/g) ?? []));
  return Object.fromEntries(Object.entries(values).filter(([placeholder]) => used.has(placeholder)));
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
        ExpressionAttributeValues: valuesIn(input.values, input.update, input.condition),
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
