/**
 * The operator's side of the attempts table (pq, the console): the item as it is, a fresh budget
 * for a replay, the item a key-collision's message never had, a verified call counted as done, and
 * the undo of a replay. The consumer's side is attempt-ledger.ts; both write through LedgerTable.
 */
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { LEDGER_STATE } from '../../contract/ledger';
import { LedgerStateMismatchError } from '../ports/errors';
import type { LedgerEntry, QuarantineMark } from '../ports/ledger';
import { N, S } from './attribute-values';
import { describeEntry } from './ledger-item';
import { COMPLETED, IS_NEW, IS_QUARANTINED, LedgerTable, QUARANTINED, READY } from './ledger-table';

export class OperatorLedger {
  private readonly table: LedgerTable;

  constructor(client: DynamoDBClient, tableName: string) {
    this.table = new LedgerTable(client, tableName);
  }

  /** The item as it is now (strongly consistent). */
  get(key: string): Promise<LedgerEntry | undefined> {
    return this.table.get(key);
  }

  /**
   * Back to `quarantined` by the record (an undone replay): with an attempt id, only while that
   * attempt is still the latest.
   */
  markQuarantined(key: string, mark: QuarantineMark): Promise<LedgerEntry> {
    return this.table.markQuarantined(key, mark);
  }

  /**
   * `verify --done` with no execution left to apply it: the call happened, so the message counts
   * as completed; only while the item still holds this quarantine (or already
   * completed it: a retry).
   */
  async completeQuarantined(key: string, quarantineId: string, now: Date): Promise<LedgerEntry> {
    const outcome = await this.table.update('completeQuarantined', key, {
      update: 'SET #state = :completed, #lastEndedAt = :now REMOVE #envId',
      condition: '#quarantineId = :quarantineId AND #state IN (:quarantined, :completed)',
      values: {
        ':completed': COMPLETED,
        ':quarantined': QUARANTINED,
        ':quarantineId': S(quarantineId),
        ':now': S(now.toISOString()),
      },
    });
    if (outcome.ok) return outcome.item;
    throw new LedgerStateMismatchError(
      `completeQuarantined refused for key ${JSON.stringify(key)}: expected quarantined by ${quarantineId}, found ${describeEntry(outcome.previous)}`,
      outcome.previous,
    );
  }

  /**
   * before a replay: a fresh budget (generation + 1, counters 0), `ready`. The
   * attempt count and `lastError` stay: they are history, not budget. With `quarantineId`, only
   * that quarantine is reset (an old record cannot reset a newer generation's quarantine).
   */
  async resetForReplay(
    key: string,
    reset: {
      readonly expectedState: typeof LEDGER_STATE.quarantined;
      readonly quarantineId?: string;
      readonly now: Date;
    },
  ): Promise<LedgerEntry> {
    const { quarantineId } = reset;
    const outcome = await this.table.update('resetForReplay', key, {
      update:
        'SET #state = :ready, #charged = :zero, #transientFailures = :zero, #unknownFailures = :zero, ' +
        `#replayedAt = :now${quarantineId === undefined ? '' : ', #replayOf = :quarantineId'} ` +
        'REMOVE #external, #unrepeatable, #quarantineId, #envId, #failedProbes, #crashes ADD #generation :one',
      condition:
        quarantineId === undefined ? IS_QUARANTINED : `${IS_QUARANTINED} AND #quarantineId = :quarantineId`,
      values: {
        ':ready': READY,
        ':quarantined': QUARANTINED,
        ':zero': N(0),
        ':one': N(1),
        ':now': S(reset.now.toISOString()),
        ...(quarantineId === undefined ? {} : { ':quarantineId': S(quarantineId) }),
      },
    });
    if (outcome.ok) return outcome.item;
    const expected = quarantineId === undefined ? 'quarantined' : `quarantined by ${quarantineId}`;
    throw new LedgerStateMismatchError(
      `resetForReplay refused for key ${JSON.stringify(key)}: expected ${expected}, found ${describeEntry(outcome.previous)}`,
      outcome.previous,
    );
  }

  /**
   * before the first replay of a `key-collision` record: the item its message never
   * had, under its own key (core/replay-message.ts `replayKeyOf`), `ready` for exactly that replay,
   * a generation after the record's. Undefined, and nothing written, when the key has an item.
   */
  async createForReplay(
    key: string,
    created: {
      readonly quarantineId: string;
      readonly generation: number;
      readonly messageId: string;
      readonly now: Date;
    },
  ): Promise<LedgerEntry | undefined> {
    return this.create('createForReplay', key, {
      state: READY,
      ...created,
      marks: '#replayedAt = :now, #replayOf = :quarantineId',
    });
  }

  /**
   * `pq backstop take` of a message the consumer never recorded: its item, quarantined by the
   * take's record, so the record's replay resets it as any other. Undefined, and nothing written,
   * when the key has an item (the consumer recorded a copy meanwhile).
   */
  async createQuarantined(
    key: string,
    created: { readonly quarantineId: string; readonly messageId: string; readonly now: Date },
  ): Promise<LedgerEntry | undefined> {
    return this.create('createQuarantined', key, {
      state: QUARANTINED,
      generation: 0,
      ...created,
      marks: '#lastEndedAt = :now, #quarantineId = :quarantineId',
    });
  }

  /**
   * An item with no attempt yet, in `state`, tied to the record by `marks`; only when the key
   * has none (undefined otherwise, nothing written).
   */
  private async create(
    operation: string,
    key: string,
    item: {
      readonly state: AttributeValue;
      readonly generation: number;
      readonly messageId: string;
      readonly quarantineId: string;
      readonly now: Date;
      readonly marks: string;
    },
  ): Promise<LedgerEntry | undefined> {
    const outcome = await this.table.update(operation, key, {
      update:
        'SET #state = :state, #attempts = :zero, #charged = :zero, #transientFailures = :zero, ' +
        '#unknownFailures = :zero, #generation = :generation, #attemptId = :none, #messageId = :messageId, ' +
        `#stage = :notStarted, #firstAttemptAt = :now, #lastAttemptAt = :now, ${item.marks}`,
      condition: IS_NEW,
      values: {
        ':state': item.state,
        ':zero': N(0),
        ':generation': N(item.generation),
        ':none': S('none'),
        ':messageId': S(item.messageId),
        ':notStarted': S('not-started'),
        ':now': S(item.now.toISOString()),
        ':quarantineId': S(item.quarantineId),
      },
    });
    return outcome.ok ? outcome.item : undefined;
  }
}
