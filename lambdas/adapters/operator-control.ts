/**
 * What the operator reads and writes on the control table beyond ControlState: the answer to a
 * pause episode (its item `operator`/`answer#<epoch>`: the action, its audit, whether the pause
 * execution waits for it), the stop requests it lifts, and the replay freeze's who/when/why.
 * These live in the operator partition, which the consumer's role cannot write. The wait's task
 * token is a bearer secret: only `breakerTaskToken` returns it; every other read turns it into a
 * yes/no.
 */
import {
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  type TransactWriteItem,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import {
  ANSWER_ATTRIBUTES as A,
  BREAKER_ATTRIBUTES as B,
  BREAKER_STATE,
  type BreakerAction,
  CONSUMER_PARTITIONS,
  STOPS_LIFTED_ATTRIBUTES as L,
  OPERATOR_ACTION,
} from '../../contract/control';
import type { BreakerReading } from '../core/breaker';
import type { IsolationTrial } from '../core/isolation';
import type { AuditEntry } from '../core/quarantine-record';
import { BreakerNotPausedError, ControlStateUnavailableError, MalformedItemError } from '../ports/errors';
import { type Item, ItemReader, N, S } from './attribute-values';
import {
  APPEND_AUDIT,
  AUDIT_INTACT,
  auditProblem,
  auditValues,
  BEGIN_AUDIT,
  guarded,
  namesIn,
  updateIf,
  valuesIn,
} from './conditional-writes';
import {
  answerKey,
  BREAKER_KEY,
  FREEZE_KEY,
  ISOLATION_KEY,
  readBreaker,
  STOPS_LIFTED_KEY,
  toIsolation,
} from './control-items';
import { auditEntryAttribute } from './quarantine-item';
import { describeSdkError, isSdkError } from './sdk-errors';

// An answer belongs to the episode it names: the breaker must still be paused in that epoch.
const IS_PAUSED = `attribute_exists(#pk) AND #${B.state} IN (:open, :halfOpen) AND #${B.epoch} = :epoch`;
const SET_ACTION = `SET #${A.action} = :action, ${APPEND_AUDIT}`;
// A trail that is not intact (no list, edited by hand, or replaced or cut by another writer)
// is not appended to: it is kept aside, as it was, and a new trail begins, so the operator's
// answer is never refused for it (a removed trail leaves an empty list aside).
const AUDIT_NOT_INTACT = `NOT ${AUDIT_INTACT}`;
const SET_ACTION_NEW_AUDIT = `SET #${A.action} = :action, #${A.garbledAudit} = if_not_exists(#${A.audit}, :noAudit), ${BEGIN_AUDIT}`;
// The watermark only moves forward: a resume that saw fewer requests lifts no more than it saw.
const LIFTS_MORE = `attribute_not_exists(#${L.liftedThrough}) OR #${L.liftedThrough} < :newest`;
/** The code of a transaction item whose condition failed. */
const CONDITION_FAILED = 'ConditionalCheckFailed';

export interface BreakerView {
  /** Undefined: the breaker never opened (no item). */
  readonly breaker: BreakerReading | undefined;
  readonly operatorAction?: string;
  /** A pause execution waits for an operator's answer (a task token is stored). */
  readonly waitingForOperator: boolean;
  readonly audit: readonly AuditEntry[];
  /** An unreadable item's attributes as stored, for a person to see what is wrong (no token lives there). */
  readonly storedAttributes?: Item;
  /**
   * A breaker that reads well but whose answer (`action`, `audit`) does not: what is wrong with
   * it. The breaker is still shown; a new action writes them afresh.
   */
  readonly operatorFieldsProblem?: string;
  /** The newest stop request no operator lifted (its sort key): the pause restores nothing while it stands. */
  readonly stopRequested?: string;
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
    const [breaker, isolation, freeze, stopRequested] = await Promise.all([
      this.get(BREAKER_KEY),
      this.get(ISOLATION_KEY),
      this.get(FREEZE_KEY),
      this.stopInForce(),
    ]);
    // The latest episode's answer (its trail stays readable once the breaker closed).
    const epoch = breaker && readBreaker(breaker, this.defaultCooldownSeconds).epoch;
    const answer = epoch === undefined ? undefined : await this.get(answerKey(epoch));
    return {
      breaker: { ...this.breakerView(breaker, answer), ...(stopRequested ? { stopRequested } : {}) },
      isolation: isolation && toIsolation(isolation),
      freeze: freezeView(freeze),
    };
  }

  /** The token of the current pause episode's open wait, if any. Never log or print it. */
  async breakerTaskToken(): Promise<string | undefined> {
    const epoch = await this.pausedEpoch();
    if (epoch === undefined) return undefined;
    const item = await this.get(answerKey(epoch), `#${A.taskToken}`);
    return item && new ItemReader(item, 'answer').optionalString(A.taskToken);
  }

  /**
   * Rule 4: the operator's answer to the current pause, with its audit entry, on the episode's
   * answer item, while the breaker is still paused in that epoch (BreakerNotPausedError when it
   * closed or moved on first). A resume first lifts every stop request made so far.
   */
  async setOperatorAction(action: BreakerAction, entry: AuditEntry): Promise<void> {
    const epoch = await this.pausedEpoch();
    if (epoch === undefined) throw notPaused(action);
    const lifted = action === OPERATOR_ACTION.resume ? await this.liftStops() : undefined;
    const values: Item = {
      ':action': S(action),
      ...(lifted === undefined ? {} : { ':lifted': S(lifted) }),
      ...auditValues(auditEntryAttribute(entry)),
    };
    const lift = lifted === undefined ? '' : `, #${A.liftedThrough} = :lifted`;
    const write = (update: string, condition: string) =>
      this.answer(epoch, { update: `${update}${lift}`, condition, values }, action);
    let outcome = await write(SET_ACTION, AUDIT_INTACT);
    if (outcome.kind === 'answer-refused' && auditProblem(outcome.old ?? {}) !== undefined)
      outcome = await write(SET_ACTION_NEW_AUDIT, AUDIT_NOT_INTACT);
    if (outcome.kind !== 'written') throw notPaused(action);
  }

  /**
   * Rule 11: lifts every stop request made so far (the watermark moves to the newest); the one
   * lifted, or undefined when there was none. A request made after this read stays in force.
   */
  private async liftStops(): Promise<string | undefined> {
    const newest = await this.newestStopRequest();
    if (newest === undefined) return undefined;
    await this.guard('stop requests not lifted', () =>
      updateIf(this.dynamodb, {
        tableName: this.table,
        key: STOPS_LIFTED_KEY,
        update: `SET #${L.liftedThrough} = :newest`,
        condition: LIFTS_MORE,
        values: { ':newest': S(newest) },
      }),
    );
    return newest;
  }

  /** The newest stop request no resume lifted, if any. */
  private async stopInForce(): Promise<string | undefined> {
    const [newest, lifted] = await Promise.all([this.newestStopRequest(), this.get(STOPS_LIFTED_KEY)]);
    const through = lifted && new ItemReader(lifted, 'stops lifted').optionalString(L.liftedThrough);
    return newest !== undefined && (through === undefined || newest > through) ? newest : undefined;
  }

  private async newestStopRequest(): Promise<string | undefined> {
    const { Items: items } = await this.guard('stop requests not read', () =>
      this.dynamodb.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: '#pk = :stop',
          ExpressionAttributeNames: namesIn('#pk #sk'),
          ExpressionAttributeValues: { ':stop': S(CONSUMER_PARTITIONS.stop) },
          ProjectionExpression: '#sk',
          ScanIndexForward: false,
          Limit: 1,
          ConsistentRead: true,
        }),
      ),
    );
    return items?.[0]?.sk?.S;
  }

  /** The epoch of a paused breaker (open or half-open), strongly consistent; undefined otherwise. */
  private async pausedEpoch(): Promise<number | undefined> {
    const item = await this.get(BREAKER_KEY);
    return item && pausedEpochOf(item, this.defaultCooldownSeconds);
  }

  /**
   * The answer's write and the check that the breaker is still paused in its epoch, in one
   * transaction: which of the two refused it, and the answer item as it was.
   */
  private async answer(
    epoch: number,
    write: { readonly update: string; readonly condition: string; readonly values: Item },
    action: BreakerAction,
  ): Promise<
    { readonly kind: 'written' | 'not-paused' } | { readonly kind: 'answer-refused'; readonly old?: Item }
  > {
    const pausedValues = {
      ':open': S(BREAKER_STATE.open),
      ':halfOpen': S(BREAKER_STATE.halfOpen),
      ':epoch': N(epoch),
    };
    const items: TransactWriteItem[] = [
      {
        ConditionCheck: {
          TableName: this.table,
          Key: BREAKER_KEY,
          ConditionExpression: IS_PAUSED,
          ExpressionAttributeNames: namesIn(IS_PAUSED),
          ExpressionAttributeValues: pausedValues,
        },
      },
      {
        Update: {
          TableName: this.table,
          Key: answerKey(epoch),
          UpdateExpression: write.update,
          ConditionExpression: write.condition,
          ExpressionAttributeNames: namesIn(write.update, write.condition),
          ExpressionAttributeValues: valuesIn(write.values, write.update, write.condition),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ];
    try {
      await this.dynamodb.send(new TransactWriteItemsCommand({ TransactItems: items }));
      return { kind: 'written' };
    } catch (error) {
      const [breaker, answer] = isSdkError(error, 'TransactionCanceledException')
        ? ((error as { CancellationReasons?: { Code?: string; Item?: Item }[] }).CancellationReasons ?? [])
        : [];
      if (breaker?.Code === CONDITION_FAILED) return { kind: 'not-paused' };
      if (answer?.Code === CONDITION_FAILED) return { kind: 'answer-refused', old: answer.Item };
      throw this.unavailable(`${action} not recorded`, error);
    }
  }

  private async get(key: Item, projection?: string): Promise<Item | undefined> {
    const { Item: item } = await this.guard(`${key.pk?.S ?? 'item'} ${key.sk?.S ?? ''} not read`, () =>
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
    );
    return item;
  }

  private guard<T>(what: string, call: () => Promise<T>): Promise<T> {
    return guarded(call, (error) => this.unavailable(what, error));
  }

  private unavailable(what: string, error: unknown): ControlStateUnavailableError {
    return new ControlStateUnavailableError(
      `Control table ${this.table}: ${what}: ${describeSdkError(error)}`,
      {
        cause: error,
      },
    );
  }

  private breakerView(item: Item | undefined, answer: Item | undefined): BreakerView {
    if (item === undefined) return { breaker: undefined, waitingForOperator: false, audit: [] };
    const breaker = readBreaker(item, this.defaultCooldownSeconds);
    // A closed episode's token is of a wait that ended.
    const waitingForOperator =
      pausedEpochOf(item, this.defaultCooldownSeconds) !== undefined && answer?.[A.taskToken] !== undefined;
    if (breaker.state === 'unreadable') {
      const { pk, sk, ...storedAttributes } = item;
      return { breaker, waitingForOperator, audit: [], storedAttributes };
    }
    try {
      return { breaker, waitingForOperator, ...operatorFields(answer ?? {}) };
    } catch (error) {
      if (!(error instanceof MalformedItemError)) throw error;
      return { breaker, waitingForOperator, audit: [], operatorFieldsProblem: error.message };
    }
  }
}

/** Only a paused episode (open or half-open) has an answer to give or a wait to answer. */
function pausedEpochOf(item: Item, defaultCooldownSeconds: number): number | undefined {
  const breaker = readBreaker(item, defaultCooldownSeconds);
  return breaker.state === BREAKER_STATE.open || breaker.state === BREAKER_STATE.halfOpen
    ? breaker.epoch
    : undefined;
}

function notPaused(action: BreakerAction): BreakerNotPausedError {
  return new BreakerNotPausedError(
    `the breaker closed (or a new pause began) before ${action} was recorded: look at pq status again`,
  );
}

/** What operators wrote on the episode's answer item: their last action and the audit trail. */
function operatorFields(item: Item): Pick<BreakerView, 'operatorAction' | 'audit'> {
  const read = new ItemReader(item, 'answer');
  const operatorAction = read.optionalString(A.action);
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
