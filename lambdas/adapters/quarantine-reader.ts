/**
 * The operator's side of the quarantine: records, exact content, cause, status and audit
 * (rules 4 and 12). The task token an open operator wait stored on a record is a bearer
 * secret: only `taskTokenOf` returns it; every other read projects it away, so it never even
 * leaves DynamoDB.
 */
import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { type QuarantineStatus, RECORD_ATTRIBUTES as R } from '../../contract/quarantine';
import type { QuarantineRecord } from '../core/quarantine-record';
import { type Item, ItemReader, L, S } from './attribute-values';
import { guarded, namesIn, updateIf } from './conditional-writes';
import {
  describeSdkError,
  isSdkError,
  QuarantineNotFoundError,
  QuarantineReadError,
  QuarantineStatusConflictError,
} from './errors';
import { auditEntryAttribute, RECORD_READ_ATTRIBUTES, toQuarantineRecord } from './quarantine-item';
import { quarantineObjectKeys } from './quarantine-writer';

/** Who acts and why; `what` is filled in by the action. */
export interface OperatorAction {
  readonly who: string;
  readonly when: Date;
  readonly why: string;
}

const PROJECTION = RECORD_READ_ATTRIBUTES.map((attribute) => `#${attribute}`).join(', ');

// Record timeline: open | awaiting-operator --(operator: cause, decision)--> resolved | replayed;
// open --(operator: discard)--> resolved.
// Every update names an existing record, so a typo never creates a half-empty one.
const EXISTS = 'attribute_exists(#id)';
const APPEND_AUDIT = `#${R.audit} = list_append(if_not_exists(#${R.audit}, :noAudit), :entry)`;

export class QuarantineRecords {
  constructor(
    private readonly s3: S3Client,
    private readonly dynamodb: DynamoDBClient,
    private readonly bucket: string,
    private readonly table: string,
  ) {}

  async get(id: string): Promise<QuarantineRecord | undefined> {
    const result = await this.guard('get', id, () =>
      this.dynamodb.send(
        new GetItemCommand({
          TableName: this.table,
          Key: { id: S(id) },
          ConsistentRead: true,
          ProjectionExpression: PROJECTION,
          ExpressionAttributeNames: namesIn(PROJECTION),
        }),
      ),
    );
    return result.Item === undefined ? undefined : toQuarantineRecord(result.Item);
  }

  /** Records of one status, newest first (the byStatus index; eventually consistent on AWS). */
  async list(query: {
    readonly status: QuarantineStatus;
    readonly since?: Date;
    readonly limit?: number;
  }): Promise<QuarantineRecord[]> {
    const records: QuarantineRecord[] = [];
    const limit = query.limit ?? Number.POSITIVE_INFINITY;
    const ofStatus = `#${R.status} = :status`;
    const keyCondition = query.since ? `${ofStatus} AND #createdAt >= :since` : ofStatus;
    let startKey: Item | undefined;
    do {
      const page = await this.guard('list', query.status, () =>
        this.dynamodb.send(
          new QueryCommand({
            TableName: this.table,
            IndexName: 'byStatus',
            KeyConditionExpression: keyCondition,
            ProjectionExpression: PROJECTION,
            ExpressionAttributeNames: namesIn(keyCondition, PROJECTION),
            ExpressionAttributeValues: {
              ':status': S(query.status),
              ...(query.since ? { ':since': S(query.since.toISOString()) } : {}),
            },
            ScanIndexForward: false,
            Limit: Number.isFinite(limit) ? limit - records.length : undefined,
            ExclusiveStartKey: startKey,
          }),
        ),
      );
      records.push(...(page.Items ?? []).map(toQuarantineRecord));
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined && records.length < limit);
    return records;
  }

  /** The body exactly as SQS delivered it, as bytes. */
  async readBody(id: string): Promise<Buffer> {
    return this.readObject(quarantineObjectKeys(id).bodyKey);
  }

  async readEnvelope(id: string): Promise<Record<string, unknown>> {
    const key = quarantineObjectKeys(id).envelopeKey;
    const bytes = await this.readObject(key);
    try {
      return JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    } catch (error) {
      throw new QuarantineReadError(`Quarantine bucket ${this.bucket}: ${key} is not JSON`, { cause: error });
    }
  }

  /** Rule 12: records the cause an operator found; replay is allowed only after this. */
  async setCause(id: string, cause: string, action: OperatorAction): Promise<QuarantineRecord> {
    return this.update('setCause', id, `SET #cause = :cause, ${APPEND_AUDIT}`, EXISTS, {
      ':cause': S(cause),
      ...auditValues({ ...action, what: `set-cause ${JSON.stringify(cause)}` }),
    });
  }

  /** Rule 4: any other operator action worth remembering. */
  async appendAudit(
    id: string,
    entry: { readonly who: string; readonly when: Date; readonly what: string; readonly why: string },
  ): Promise<QuarantineRecord> {
    return this.update('appendAudit', id, `SET ${APPEND_AUDIT}`, EXISTS, auditValues(entry));
  }

  /**
   * A status change with its audit entry; with `expected`, refused unless the record is in one
   * of them. `what` names the action in the audit (@default `set-status <status>`). `closeWait`
   * also removes the operator wait's token and time, as the state machine does when it applies
   * a decision (@default false).
   */
  async setStatus(
    id: string,
    status: QuarantineStatus,
    action: OperatorAction,
    options: {
      readonly expected?: readonly QuarantineStatus[];
      readonly what?: string;
      readonly closeWait?: boolean;
    } = {},
  ): Promise<QuarantineRecord> {
    const expected = options.expected ?? [];
    const placeholders = expected.map((_, index) => `:expected${index}`);
    const condition =
      expected.length > 0 ? `${EXISTS} AND #${R.status} IN (${placeholders.join(', ')})` : EXISTS;
    const closeWait = options.closeWait === true ? ` REMOVE #${R.taskToken}, #${R.waitingSince}` : '';
    return this.update(
      'setStatus',
      id,
      `SET #${R.status} = :status, ${APPEND_AUDIT}${closeWait}`,
      condition,
      {
        ':status': S(status),
        ...Object.fromEntries(expected.map((value, index) => [placeholders[index], S(value)])),
        ...auditValues({ ...action, what: options.what ?? `set-status ${status}` }),
      },
    );
  }

  /** The token of the open operator wait, if any. A bearer secret: never log or print it. */
  async taskTokenOf(id: string): Promise<string | undefined> {
    const result = await this.guard('taskTokenOf', id, () =>
      this.dynamodb.send(
        new GetItemCommand({
          TableName: this.table,
          Key: { id: S(id) },
          ConsistentRead: true,
          ProjectionExpression: `#${R.taskToken}`,
          ExpressionAttributeNames: namesIn(`#${R.taskToken}`),
        }),
      ),
    );
    return result.Item && new ItemReader(result.Item, `record ${id}`).optionalString(R.taskToken);
  }

  private async update(
    operation: string,
    id: string,
    update: string,
    condition: string,
    values: Record<string, AttributeValue>,
  ): Promise<QuarantineRecord> {
    const outcome = await this.guard(operation, id, () =>
      updateIf(this.dynamodb, { tableName: this.table, key: { id: S(id) }, update, condition, values }),
    );
    if (outcome.ok) return toQuarantineRecord(outcome.item);
    if (outcome.old === undefined)
      throw new QuarantineNotFoundError(`Quarantine table ${this.table}: no record ${id}`);
    const status = new ItemReader(outcome.old, `record ${id}`).string(R.status);
    throw new QuarantineStatusConflictError(
      `Quarantine record ${id}: ${operation} refused, its status is ${status}`,
    );
  }

  private async readObject(key: string): Promise<Buffer> {
    try {
      const result = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (result.Body === undefined)
        throw new QuarantineReadError(`Quarantine bucket ${this.bucket}: ${key} has no body`);
      return Buffer.from(await result.Body.transformToByteArray());
    } catch (error) {
      if (error instanceof QuarantineReadError) throw error;
      if (isSdkError(error, 'NoSuchKey', 'NotFound')) {
        throw new QuarantineNotFoundError(`Quarantine bucket ${this.bucket}: no object ${key}`, {
          cause: error,
        });
      }
      throw new QuarantineReadError(
        `Quarantine bucket ${this.bucket}: ${key} not read: ${describeSdkError(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  private guard<T>(operation: string, subject: string, call: () => Promise<T>): Promise<T> {
    return guarded(
      call,
      (error) =>
        new QuarantineReadError(
          `Quarantine table ${this.table}: ${operation} ${subject} failed: ${describeSdkError(error)}`,
          {
            cause: error,
          },
        ),
    );
  }
}

function auditValues(entry: {
  readonly who: string;
  readonly when: Date;
  readonly what: string;
  readonly why: string;
}) {
  const audit = { who: entry.who, when: entry.when.toISOString(), what: entry.what, why: entry.why };
  return { ':entry': L([auditEntryAttribute(audit)]), ':noAudit': L([]) };
}
