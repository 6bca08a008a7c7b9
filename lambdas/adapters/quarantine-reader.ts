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
import {
  OPEN_RECORDS_COUNTER,
  QUARANTINE_INDEXES,
  QUARANTINE_STATUS,
  type QuarantineStatus,
  RECORD_ATTRIBUTES as R,
} from '../../contract/quarantine';
import type { AuditEntry, NewQuarantineRecord, QuarantineRecord } from '../core/quarantine-record';
import { QuarantineNotFoundError, QuarantineReadError, QuarantineStatusConflictError } from '../ports/errors';
import { type Item, ItemReader, L, S } from './attribute-values';
import {
  APPEND_AUDIT,
  AUDIT_INTACT,
  auditProblem,
  auditValues,
  guarded,
  namesIn,
  updateIf,
} from './conditional-writes';
import { countChange, OpenRecordsCounter, type Recount } from './open-records';
import {
  auditEntryAttribute,
  quarantineRecordItem,
  RECORD_READ_ATTRIBUTES,
  toQuarantineRecord,
} from './quarantine-item';
import { quarantineObjectKeys } from './quarantine-writer';
import { describeSdkError, isSdkError } from './sdk-errors';

/** Where a page of a status's records ended: the last record's id and quarantine time. */
export interface RecordPosition {
  readonly id: string;
  readonly createdAt: string;
}

/** Who acts and why; `what` is filled in by the action. */
export interface OperatorAction {
  readonly who: string;
  readonly when: Date;
  readonly why: string;
}

const PROJECTION = RECORD_READ_ATTRIBUTES.map((attribute) => `#${attribute}`).join(', ');

// Record timeline: open | awaiting-operator --(operator: cause, decision)--> resolved | replayed;
// open --(operator: discard)--> resolved. Leaving open | awaiting-operator counts -1 (rule 11a).
// Every update names an existing record, so a typo never creates a half-empty one, and appends
// to its audit trail only while the trail holds every entry appended before (AUDIT_INTACT).
const AUDITED = `attribute_exists(#id) AND ${AUDIT_INTACT}`;

export class QuarantineRecords {
  private readonly counter: OpenRecordsCounter;

  constructor(
    private readonly s3: S3Client,
    private readonly dynamodb: DynamoDBClient,
    private readonly bucket: string,
    private readonly table: string,
  ) {
    this.counter = new OpenRecordsCounter(dynamodb, table);
  }

  async get(id: string): Promise<QuarantineRecord | undefined> {
    // The open-record counter shares the table: its id names no record.
    if (id === OPEN_RECORDS_COUNTER.key.id) return undefined;
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

  /**
   * Every record of a message key, or of an SQS message id, newest first: their ids from the
   * index (eventually consistent on AWS), then each record read whole. At most `limit`.
   */
  async find(
    by: { readonly messageKey: string } | { readonly messageId: string },
    limit: number,
  ): Promise<QuarantineRecord[]> {
    const [index, attribute, value] =
      'messageKey' in by
        ? [QUARANTINE_INDEXES.byMessageKey, R.messageKey, by.messageKey]
        : [QUARANTINE_INDEXES.byMessageId, 'messageId', by.messageId];
    const condition = `#${attribute} = :value`;
    const ids: string[] = [];
    let startKey: Item | undefined;
    do {
      const page = await this.guard('find', value, () =>
        this.dynamodb.send(
          new QueryCommand({
            TableName: this.table,
            IndexName: index,
            KeyConditionExpression: condition,
            ExpressionAttributeNames: namesIn(condition),
            ExpressionAttributeValues: { ':value': S(value) },
            ScanIndexForward: false,
            Limit: limit - ids.length,
            ExclusiveStartKey: startKey,
          }),
        ),
      );
      ids.push(...(page.Items ?? []).map((item) => item.id?.S ?? '').filter((id) => id !== ''));
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined && ids.length < limit);
    const records = await Promise.all(ids.map((id) => this.get(id)));
    return records.filter((record): record is QuarantineRecord => record !== undefined);
  }

  /**
   * One page of one status's records, newest first: a single Query of at most `limit` items,
   * after the record `after` names (its id and createdAt), with `reason` filtered by DynamoDB (a
   * page may then hold fewer). `last` names where the page ended; undefined when nothing follows.
   */
  async page(query: {
    readonly status: QuarantineStatus;
    readonly limit: number;
    readonly after?: RecordPosition;
    readonly reason?: string;
  }): Promise<{ readonly records: QuarantineRecord[]; readonly last?: RecordPosition }> {
    const { after } = query;
    const startKey =
      after === undefined
        ? undefined
        : { id: S(after.id), [R.status]: S(query.status), createdAt: S(after.createdAt) };
    const { records, last } = await this.queryByStatus('page', { ...query, startKey });
    return {
      records,
      ...(last === undefined ? {} : { last: { id: last.id?.S ?? '', createdAt: last.createdAt?.S ?? '' } }),
    };
  }

  /** Records of one status, newest first (the byStatus index; eventually consistent on AWS). */
  async list(query: {
    readonly status: QuarantineStatus;
    readonly since?: Date;
    readonly limit?: number;
  }): Promise<QuarantineRecord[]> {
    const records: QuarantineRecord[] = [];
    const limit = query.limit ?? Number.POSITIVE_INFINITY;
    let startKey: Item | undefined;
    do {
      const page = await this.queryByStatus('list', {
        ...query,
        limit: Number.isFinite(limit) ? limit - records.length : undefined,
        startKey,
      });
      records.push(...page.records);
      startKey = page.last;
    } while (startKey !== undefined && records.length < limit);
    return records;
  }

  /** One Query of the byStatus index, newest first: `list` walks its pages, `page` takes one. */
  private async queryByStatus(
    operation: string,
    query: {
      readonly status: QuarantineStatus;
      readonly since?: Date;
      readonly reason?: string;
      readonly limit?: number;
      readonly startKey?: Item;
    },
  ): Promise<{ readonly records: QuarantineRecord[]; readonly last?: Item }> {
    const ofStatus = `#${R.status} = :status`;
    const keyCondition = query.since ? `${ofStatus} AND #createdAt >= :since` : ofStatus;
    const filter = query.reason === undefined ? undefined : '#reason = :reason';
    const page = await this.guard(operation, query.status, () =>
      this.dynamodb.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: QUARANTINE_INDEXES.byStatus,
          KeyConditionExpression: keyCondition,
          ...(filter === undefined ? {} : { FilterExpression: filter }),
          ProjectionExpression: PROJECTION,
          ExpressionAttributeNames: namesIn(keyCondition, PROJECTION, filter ?? ''),
          ExpressionAttributeValues: {
            ':status': S(query.status),
            ...(query.since ? { ':since': S(query.since.toISOString()) } : {}),
            ...(query.reason === undefined ? {} : { ':reason': S(query.reason) }),
          },
          ScanIndexForward: false,
          Limit: query.limit,
          ExclusiveStartKey: query.startKey,
        }),
      ),
    );
    return { records: (page.Items ?? []).map(toQuarantineRecord), last: page.LastEvaluatedKey };
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

  /**
   * A record an operator made (`pq backstop take`), with its first audit entry, counted (rule
   * 11a) in the same transaction. An update, not a put, since operators hold no PutItem (lib/
   * poison-quarantine.ts); conditioned on no record under the id, so a take run again creates
   * nothing and counts nothing (`created: false`).
   */
  async createTaken(record: NewQuarantineRecord, entry: AuditEntry): Promise<{ readonly created: boolean }> {
    const { id, ...attributes }: Item = {
      ...quarantineRecordItem(record),
      [R.audit]: L([auditEntryAttribute(entry)]),
    };
    const names = Object.keys(attributes);
    const update = `SET ${names.map((name, index) => `#${name} = :v${index}`).join(', ')}`;
    const values = Object.fromEntries(names.map((name, index) => [`:v${index}`, attributes[name]]));
    const outcome = await this.guard('createTaken', record.id, () =>
      this.counter.write(
        {
          update: {
            key: { id: id as AttributeValue },
            update,
            condition: 'attribute_not_exists(#id)',
            values,
          },
        },
        1,
      ),
    );
    return { created: outcome.ok };
  }

  /** Rule 12: records the cause an operator found; replay is allowed only after this. */
  async setCause(id: string, cause: string, action: OperatorAction): Promise<QuarantineRecord> {
    return this.update('setCause', id, `SET #cause = :cause, ${APPEND_AUDIT}`, AUDITED, {
      ':cause': S(cause),
      ...entryValues({ ...action, what: `set-cause ${JSON.stringify(cause)}` }),
    });
  }

  /** Rule 4: any other operator action worth remembering. */
  async appendAudit(
    id: string,
    entry: { readonly who: string; readonly when: Date; readonly what: string; readonly why: string },
  ): Promise<QuarantineRecord> {
    return this.update('appendAudit', id, `SET ${APPEND_AUDIT}`, AUDITED, entryValues(entry));
  }

  /**
   * A status change with its audit entry; with `expected`, refused unless the record is in one
   * of them. `what` names the action in the audit (@default `set-status <status>`). `closeWait`
   * also removes the operator wait's token and time, as the state machine does when it applies
   * a decision (@default false). A change into or out of the open statuses moves rule 11a's
   * count in the same transaction (open-records.ts).
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
    const closeWait = options.closeWait === true ? ` REMOVE #${R.taskToken}, #${R.waitingSince}` : '';
    const update = `SET #${R.status} = :status, ${APPEND_AUDIT}${closeWait}`;
    const values = {
      ':status': S(status),
      ...entryValues({ ...action, what: options.what ?? `set-status ${status}` }),
    };
    // Without `expected`, any status. The statuses are tried in groups by how leaving them moves
    // the count (the record is in one of them), so a change that moves it is counted with it.
    const expected = options.expected?.length ? options.expected : Object.values(QUARANTINE_STATUS);
    let refused: unknown;
    for (const from of byCountChange(expected, status)) {
      try {
        return await this.moveFrom(id, from, update, values);
      } catch (error) {
        if (!(error instanceof QuarantineStatusConflictError)) throw error;
        refused = error;
      }
    }
    throw refused;
  }

  /** Rule 11a's count as the consumer reads it; undefined before the counter exists. */
  async openRecordsCounted(): Promise<number | undefined> {
    return this.guard('openRecordsCounted', 'open records', () => this.counter.read());
  }

  /** Rule 11a's count, set to the byStatus index's (`pq recount`), with who, when and why. */
  async recountOpen(action: OperatorAction): Promise<Recount> {
    const entry = { who: action.who, when: action.when.toISOString(), why: action.why };
    return this.guard('recount', 'open records', () => this.counter.recount(entry));
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

  /** The change of one group of expected statuses, counted in the same transaction when it moves the count. */
  private async moveFrom(
    id: string,
    from: { readonly statuses: readonly QuarantineStatus[]; readonly change: -1 | 0 | 1 },
    update: string,
    values: Record<string, AttributeValue>,
  ): Promise<QuarantineRecord> {
    const placeholders = from.statuses.map((_, index) => `:expected${index}`);
    const condition = `${AUDITED} AND #${R.status} IN (${placeholders.join(', ')})`;
    const allValues = {
      ...values,
      ...Object.fromEntries(from.statuses.map((value, index) => [placeholders[index], S(value)])),
    };
    const { change } = from;
    if (change === 0) return this.update('setStatus', id, update, condition, allValues);
    const key = { id: S(id) };
    const outcome = await this.guard('setStatus', id, () =>
      this.counter.write({ update: { key, update, condition, values: allValues } }, change),
    );
    if (!outcome.ok) throw this.refusal('setStatus', id, outcome.old);
    const record = await this.get(id);
    if (record === undefined)
      throw new QuarantineNotFoundError(`Quarantine table ${this.table}: no record ${id}`);
    return record;
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
    throw this.refusal(operation, id, outcome.old);
  }

  /** Why a conditional write was refused: no such record, its trail is not intact, or it is in another status. */
  private refusal(operation: string, id: string, old: Item | undefined): QuarantineReadError {
    if (old === undefined)
      return new QuarantineNotFoundError(`Quarantine table ${this.table}: no record ${id}`);
    const why = auditProblem(old) ?? `its status is ${new ItemReader(old, `record ${id}`).string(R.status)}`;
    return new QuarantineStatusConflictError(`Quarantine record ${id}: ${operation} refused, ${why}`);
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

function entryValues(entry: {
  readonly who: string;
  readonly when: Date;
  readonly what: string;
  readonly why: string;
}) {
  const audit = { who: entry.who, when: entry.when.toISOString(), what: entry.what, why: entry.why };
  return auditValues(auditEntryAttribute(audit));
}

/** The expected statuses grouped by how leaving them for `to` moves rule 11a's count. */
function byCountChange(
  expected: readonly QuarantineStatus[],
  to: QuarantineStatus,
): { readonly statuses: readonly QuarantineStatus[]; readonly change: -1 | 0 | 1 }[] {
  const groups = new Map<-1 | 0 | 1, QuarantineStatus[]>();
  for (const from of expected) {
    const change = countChange(from, to);
    groups.set(change, [...(groups.get(change) ?? []), from]);
  }
  return [...groups].map(([change, statuses]) => ({ statuses, change }));
}
