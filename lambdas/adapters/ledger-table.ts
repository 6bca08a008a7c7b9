/**
 * The attempts table's conditional writes and its consistent read, shared by the consumer's
 * ledger (attempt-ledger.ts) and the operator's (operator-ledger.ts), and the one write both make:
 * the quarantine mark (the consumer's last quarantine step; the operator's undo of a replay).
 */
import { type AttributeValue, type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { LEDGER_STATE } from '../../contract/ledger';
import { LedgerStateMismatchError, LedgerUnavailableError, StaleAttemptError } from '../ports/errors';
import type { LedgerEntry, QuarantineMark } from '../ports/ledger';
import { N, S } from './attribute-values';
import { type ConditionalOutcome, guarded, updateIf } from './conditional-writes';
import { describeEntry, toLedgerEntry } from './ledger-item';
import { describeSdkError } from './sdk-errors';

export const IS_NEW = 'attribute_not_exists(#pk)';
export const IS_ATTEMPT = '#attemptId = :attemptId';
export const IS_OPEN = '#state IN (:inFlight, :ready)';
export const IS_QUARANTINED = '#state = :quarantined';

export const IN_FLIGHT = S(LEDGER_STATE.inFlight);
export const READY = S(LEDGER_STATE.ready);
export const COMPLETED = S(LEDGER_STATE.completed);
export const QUARANTINED = S(LEDGER_STATE.quarantined);

export type Outcome =
  | { readonly ok: true; readonly item: LedgerEntry }
  | { readonly ok: false; readonly previous?: LedgerEntry };

export class LedgerTable {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  /** The item as it is now (strongly consistent). */
  async get(key: string): Promise<LedgerEntry | undefined> {
    const result = await guarded(
      () =>
        this.client.send(
          new GetItemCommand({ TableName: this.tableName, Key: { pk: S(key) }, ConsistentRead: true }),
        ),
      (error) => this.unavailable('get', error),
    );
    return result.Item === undefined ? undefined : toLedgerEntry(result.Item);
  }

  /**
   * The last quarantine step before the acknowledgement. The TTL is removed: a quarantined key
   * must stay known (rule 13 duplicates, a later replay) for as long as its record is open.
   */
  async markQuarantined(key: string, mark: QuarantineMark): Promise<LedgerEntry> {
    const { attemptId } = mark;
    const outcome = await this.update('markQuarantined', key, {
      update:
        'SET #state = :quarantined, #quarantineId = :quarantineId, #lastEndedAt = :now ' +
        'REMOVE #envId, #expiresAt, #quarantining ADD #charged :charge',
      condition: attemptId === undefined ? IS_OPEN : `${IS_ATTEMPT} AND ${IS_OPEN}`,
      values: {
        ':quarantined': QUARANTINED,
        ':inFlight': IN_FLIGHT,
        ':ready': READY,
        ':quarantineId': S(mark.quarantineId),
        ':now': S(mark.now.toISOString()),
        ':charge': N(mark.charge ?? 0),
        ...(attemptId === undefined ? {} : { ':attemptId': S(attemptId) }),
      },
    });
    if (outcome.ok) return outcome.item;
    const current = outcome.previous;
    // A retry after the mark landed: the same quarantine, nothing left to do (and nothing charged twice).
    if (current?.state === LEDGER_STATE.quarantined && current.quarantineId === mark.quarantineId)
      return current;
    const message = `markQuarantined refused for key ${JSON.stringify(key)}: ${describeEntry(current)}`;
    throw attemptId === undefined
      ? new LedgerStateMismatchError(message, current)
      : new StaleAttemptError(message, current);
  }

  async update(
    operation: string,
    key: string,
    parts: {
      readonly update: string;
      readonly condition: string;
      readonly values: Record<string, AttributeValue>;
    },
  ): Promise<Outcome> {
    const outcome: ConditionalOutcome = await guarded(
      () => updateIf(this.client, { tableName: this.tableName, key: { pk: S(key) }, ...parts }),
      (error) => this.unavailable(operation, error),
    );
    if (outcome.ok) return { ok: true, item: toLedgerEntry(outcome.item) };
    return { ok: false, previous: outcome.old && toLedgerEntry(outcome.old) };
  }

  unavailable(operation: string, error: unknown): LedgerUnavailableError {
    return new LedgerUnavailableError(
      `Attempts table ${this.tableName}: ${operation} failed: ${describeSdkError(error)}`,
      {
        cause: error,
      },
    );
  }
}
