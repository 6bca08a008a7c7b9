/**
 * What the operator reads and writes on the control table beyond ControlState: the breaker's
 * operator fields (operatorAction and its audit, whether a pause execution waits for an answer)
 * and the replay freeze's who/when/why. The breaker's task token is a bearer secret: only
 * `breakerTaskToken` returns it; every other read turns it into a yes/no.
 */
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { BREAKER_ATTRIBUTES as A, BREAKER_STATE, type BreakerAction } from '../../contract/control';
import type { BreakerReading } from '../core/breaker';
import type { IsolationTrial } from '../core/isolation';
import type { AuditEntry } from '../core/quarantine-record';
import { type Item, ItemReader, S } from './attribute-values';
import {
  APPEND_AUDIT,
  AUDIT_INTACT,
  auditProblem,
  auditValues,
  BEGIN_AUDIT,
  guarded,
  namesIn,
  updateIf,
} from './conditional-writes';
import { BREAKER_KEY, FREEZE_KEY, ISOLATION_KEY, readBreaker, toIsolation } from './control-items';
import {
  BreakerNotPausedError,
  ControlStateUnavailableError,
  describeSdkError,
  MalformedItemError,
} from './errors';
import { auditEntryAttribute } from './quarantine-item';

// The pause execution reads operatorAction at each checkpoint and clears it when it closes the
// breaker; the condition re-checks that there is still a pause to answer.
const IS_PAUSED = `attribute_exists(#pk) AND #${A.state} IN (:open, :halfOpen)`;
const SET_ACTION = `SET #${A.operatorAction} = :action, ${APPEND_AUDIT}`;
// A trail that is not intact (no list, edited by hand, or replaced or cut by another writer)
// is not appended to: it is kept aside, as it was, and a new trail begins, so the operator's
// answer is never refused for it (a removed trail leaves an empty list aside).
const AUDIT_NOT_INTACT = `NOT ${AUDIT_INTACT}`;
const SET_ACTION_NEW_AUDIT = `SET #${A.operatorAction} = :action, #${A.garbledAudit} = if_not_exists(#${A.audit}, :noAudit), ${BEGIN_AUDIT}`;

export interface BreakerView {
  /** Undefined: the breaker never opened (no item). */
  readonly breaker: BreakerReading | undefined;
  readonly operatorAction?: string;
  /** A pause execution waits for an operator's answer (a task token is stored). */
  readonly waitingForOperator: boolean;
  readonly audit: readonly AuditEntry[];
  /** An unreadable item's attributes as stored, for a person to see what is wrong; never its task token. */
  readonly storedAttributes?: Item;
  /**
   * A breaker that reads well but whose operator fields (`operatorAction`, `audit`) do not: what
   * is wrong with them. The breaker is still shown; a new action or reset writes them afresh.
   */
  readonly operatorFieldsProblem?: string;
}

export interface FreezeView {
  readonly frozen: boolean;
  readonly who?: string;
  readonly when?: string;
  readonly why?: string;
}

export interface ControlView {
  readonly breaker: BreakerView;
  readonly isolation: IsolationTrial | undefined;
  readonly freeze: FreezeView;
}

export class OperatorControl {
  constructor(
    private readonly dynamodb: DynamoDBClient,
    private readonly table: string,
    private readonly defaultCooldownSeconds: number,
  ) {}

  async read(): Promise<ControlView> {
    const [breaker, isolation, freeze] = await Promise.all([
      this.get(BREAKER_KEY),
      this.get(ISOLATION_KEY),
      this.get(FREEZE_KEY),
    ]);
    return {
      breaker: this.breakerView(breaker),
      isolation: isolation && toIsolation(isolation),
      freeze: freezeView(freeze),
    };
  }

  /** The token of the pause execution's open wait, if any. Never log or print it. */
  async breakerTaskToken(): Promise<string | undefined> {
    const item = await this.get(BREAKER_KEY, `#${A.taskToken}`);
    return item && new ItemReader(item, 'breaker').optionalString(A.taskToken);
  }

  /**
   * Rule 4: the operator's answer to a pause, with its audit entry, on the breaker item.
   * BreakerNotPausedError when the breaker closed first.
   */
  async setOperatorAction(action: BreakerAction, entry: AuditEntry): Promise<void> {
    const write = (update: string, condition: string) =>
      guarded(
        () =>
          updateIf(this.dynamodb, {
            tableName: this.table,
            key: BREAKER_KEY,
            update,
            condition: `${IS_PAUSED} AND ${condition}`,
            values: {
              ':action': S(action),
              ':open': S(BREAKER_STATE.open),
              ':halfOpen': S(BREAKER_STATE.halfOpen),
              ...auditValues(auditEntryAttribute(entry)),
            },
          }),
        (error) =>
          new ControlStateUnavailableError(
            `Control table ${this.table}: ${action} not recorded on the breaker: ${describeSdkError(error)}`,
            { cause: error },
          ),
      );
    let outcome = await write(SET_ACTION, AUDIT_INTACT);
    if (!outcome.ok && outcome.old !== undefined && auditProblem(outcome.old) !== undefined)
      outcome = await write(SET_ACTION_NEW_AUDIT, AUDIT_NOT_INTACT);
    if (!outcome.ok)
      throw new BreakerNotPausedError(
        `the breaker closed before ${action} was recorded: consumption is running`,
      );
  }

  private async get(key: Item, projection?: string): Promise<Item | undefined> {
    const { Item: item } = await guarded(
      () =>
        this.dynamodb.send(
          new GetItemCommand({
            TableName: this.table,
            Key: key,
            ConsistentRead: true,
            ...(projection
              ? { ProjectionExpression: projection, ExpressionAttributeNames: namesIn(projection) }
              : {}),
          }),
        ),
      (error) =>
        new ControlStateUnavailableError(
          `Control table ${this.table}: ${key.pk?.S ?? 'item'} not read: ${describeSdkError(error)}`,
          { cause: error },
        ),
    );
    return item;
  }

  private breakerView(item: Item | undefined): BreakerView {
    if (item === undefined) return { breaker: undefined, waitingForOperator: false, audit: [] };
    const breaker = readBreaker(item, this.defaultCooldownSeconds);
    const waitingForOperator = item[A.taskToken] !== undefined;
    if (breaker.state === 'unreadable') {
      // Its operator fields may be as garbled as the rest: shown as stored, not read.
      const { pk, sk, [A.taskToken]: taskToken, ...storedAttributes } = item;
      return { breaker, waitingForOperator, audit: [], storedAttributes };
    }
    try {
      return { breaker, waitingForOperator, ...operatorFields(item) };
    } catch (error) {
      if (!(error instanceof MalformedItemError)) throw error;
      return { breaker, waitingForOperator, audit: [], operatorFieldsProblem: error.message };
    }
  }
}

/** What operators wrote on the breaker item: their last action and the audit trail. */
function operatorFields(item: Item): Pick<BreakerView, 'operatorAction' | 'audit'> {
  const read = new ItemReader(item, 'breaker');
  const operatorAction = read.optionalString(A.operatorAction);
  return {
    ...(operatorAction === undefined ? {} : { operatorAction }),
    audit: read.list(A.audit).map((entry) => ({
      who: entry.string('who'),
      when: entry.string('when'),
      what: entry.string('what'),
      why: entry.string('why'),
    })),
  };
}

function freezeView(item: Item | undefined): FreezeView {
  if (item === undefined) return { frozen: false };
  const read = new ItemReader(item, 'replay freeze');
  const optional = (name: string) => {
    const value = read.optionalString(name);
    return value === undefined ? {} : { [name]: value };
  };
  return { frozen: read.boolean('frozen'), ...optional('who'), ...optional('when'), ...optional('why') };
}
