/**
 * The operator's writes to the consumer's partitions of the control table (pq reset-breaker, pq
 * freeze), and the snapshot pq and the console read. The consumer's side is control-state.ts; the
 * operator's own partition (answers, lifted stops) is operator-control.ts.
 */
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { BREAKER_ATTRIBUTES as A } from '../../contract/control';
import type { BreakerReading, OpenBreaker } from '../core/breaker';
import type { AuditEntry } from '../core/quarantine-record';
import { defaultPolicy } from '../core/types';
import type { ControlSnapshot } from '../ports/control';
import { ControlStateUnavailableError } from '../ports/errors';
import { BOOL, type Item, M, N, S } from './attribute-values';
import { APPEND_AUDIT, AUDIT_INTACT, auditProblem, auditValues } from './conditional-writes';
import { BREAKER_KEY, BREAKER_READ_ATTRIBUTES, FREEZE_KEY, readBreaker } from './control-items';
import { ControlTable, type FirstCooldown } from './control-table';
import { auditEntryAttribute } from './quarantine-item';

/** The breaker item as stored, and as read: what an operator's reset is conditioned on. */
export interface BreakerItem {
  readonly reading: BreakerReading;
  readonly attributes: Item;
}

export interface ReplayFreeze {
  readonly frozen: boolean;
  readonly who: string;
  /** ISO-8601. */
  readonly when: string;
  readonly why: string;
}

export class OperatorControlState {
  private readonly table: ControlTable;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly timings: FirstCooldown = defaultPolicy(),
  ) {
    this.table = new ControlTable(client, tableName, timings);
  }

  /** Breaker, isolation trial and freeze in one BatchGetItem (strongly consistent). */
  snapshot(): Promise<ControlSnapshot> {
    return this.table.snapshot();
  }

  /** The breaker item, strongly consistent; undefined when the breaker never opened. */
  async breakerItem(): Promise<BreakerItem | undefined> {
    const result = await this.table.guard('breakerItem', () =>
      this.client.send(
        new GetItemCommand({ TableName: this.tableName, Key: BREAKER_KEY, ConsistentRead: true }),
      ),
    );
    const attributes = result.Item;
    if (attributes === undefined) return undefined;
    return { reading: readBreaker(attributes, this.timings.breakerCooldownSeconds), attributes };
  }

  /**
   * An operator's repair of an unreadable breaker item (`pq reset-breaker`): it becomes
   * `repaired`, with the audit entry, only while every attribute a reading depends on is as
   * `read` had it, so a breaker a consumer or the state machine rewrote since is left alone. The
   * old episode's probe counts go (its answers are its own epoch's); what the pause remembered
   * of the mapping stays, for the resume to restore. A repaired stop is requested, as a trip's.
   */
  async resetUnreadableBreaker(
    read: BreakerItem,
    repaired: OpenBreaker,
    entry: AuditEntry,
  ): Promise<{ readonly reset: boolean }> {
    const unchanged = BREAKER_READ_ATTRIBUTES.map((name) =>
      read.attributes[name] === undefined ? `attribute_not_exists(#${name})` : `#${name} = :was_${name}`,
    );
    const was = Object.fromEntries(
      BREAKER_READ_ATTRIBUTES.filter((name) => read.attributes[name] !== undefined).map((name) => [
        `:was_${name}`,
        read.attributes[name],
      ]),
    );
    const outcome = await this.table.update('resetUnreadableBreaker', BREAKER_KEY, {
      update:
        `SET #${A.state} = :open, #${A.reason} = :reason, #${A.epoch} = :epoch, #${A.openedAt} = :openedAt, ` +
        `#${A.stop} = :stop, #${A.cooldownSeconds} = :cooldown, ${APPEND_AUDIT} ` +
        `REMOVE #${A.probeSuccesses}, #${A.probeFailures}, #${A.probeRepeatFailures}, #${A.halfOpenAt}`,
      condition: ['attribute_exists(#pk)', ...unchanged, AUDIT_INTACT].join(' AND '),
      values: {
        ...was,
        ':open': S(repaired.state),
        ':reason': S(repaired.reason),
        ':epoch': N(repaired.epoch),
        ':openedAt': N(repaired.openedAt),
        ':stop': BOOL(repaired.stop),
        ':cooldown': N(repaired.cooldownSeconds),
        ...auditValues(auditEntryAttribute(entry)),
      },
    });
    if (outcome.ok && repaired.stop)
      await this.table.requestStop(repaired.reason, new Date(repaired.openedAt));
    return { reset: outcome.ok };
  }

  /** Rule 11c: an operator freezes (or thaws) all replay. */
  async setReplayFreeze(freeze: {
    readonly frozen: boolean;
    readonly who: string;
    readonly why: string;
    readonly now: Date;
  }): Promise<ReplayFreeze> {
    const record = {
      frozen: freeze.frozen,
      who: freeze.who,
      when: freeze.now.toISOString(),
      why: freeze.why,
    };
    // The latest state on top, every change kept in `audit` (rule 4: every action is recorded).
    const entry = M({
      who: S(record.who),
      when: S(record.when),
      what: S(record.frozen ? 'freeze' : 'unfreeze'),
      why: S(record.why),
    });
    const outcome = await this.table.update('setReplayFreeze', FREEZE_KEY, {
      update: `SET #frozen = :frozen, #who = :who, #when = :when, #why = :why, ${APPEND_AUDIT}`,
      condition: AUDIT_INTACT,
      values: {
        ':frozen': BOOL(record.frozen),
        ':who': S(record.who),
        ':when': S(record.when),
        ':why': S(record.why),
        ...auditValues(entry),
      },
    });
    if (!outcome.ok)
      throw new ControlStateUnavailableError(
        `Control table ${this.tableName}: replay not ${record.frozen ? 'frozen' : 'unfrozen'}: the freeze item's ${auditProblem(outcome.old ?? {}) ?? 'audit is not intact'}`,
      );
    return record;
  }
}
