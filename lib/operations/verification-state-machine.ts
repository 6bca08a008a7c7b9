/**
 * Rule 8: an external call whose outcome is unknown waits for a person. The machine notifies,
 * stores its task token on the quarantine record and waits; a silent operator is reminded
 * (escalated) and waited for again, never decided for. The operator's CLI answers with
 * SendTaskSuccess `{ decision, who, why, at }`; a `not-done` has already been replayed by the CLI.
 * It acts only on the record its input names and on the ledger item that record names.
 */
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { EXECUTION_INPUT_KIND } from '../../contract/executions';
import { LEDGER_STATE } from '../../contract/ledger';
import {
  OPEN_RECORDS_COUNTER,
  RECORD_ATTRIBUTES as R,
  QUARANTINE_STATUS as RECORD_STATUS,
  VERIFIED_STATUS,
  VERIFY_DECISION,
} from '../../contract/quarantine';
import { isText, kindIs, textIs } from './conditions';
import { FailureExit } from './failure';
import { FAILURE, OPERATIONS_METRIC } from './protocol';
import {
  attributeNames,
  CONDITION_FAILED,
  enteredTime,
  Steps,
  stringAt,
  TRANSACTION_CANCELLED,
  type TransactUpdate,
} from './steps';
import { type OperationsMachineProps, operationsWorkflow } from './workflow';

export interface VerificationStateMachineProps extends OperationsMachineProps {
  readonly quarantineTable: dynamodb.ITable;
  /** The attempts ledger: a `done` decision marks the message completed there. */
  readonly attemptsTable: dynamodb.ITable;
}

/** Runs `ou-<quarantine id>` executions, input `{ kind: "outcome-unknown", quarantineId, messageKey }`. */
export class VerificationStateMachine extends Construct {
  public readonly stateMachine: sfn.StateMachine;

  constructor(scope: Construct, id: string, props: VerificationStateMachineProps) {
    super(scope, id);
    this.stateMachine = operationsWorkflow(this, {
      ...props,
      comment:
        'Rule 8: an outcome-unknown record waits for an operator to check the outside system and decide.',
      definition: new VerificationDefinition(this, props).build(),
    });
  }
}

const RECORD_KEY = { id: stringAt('$.quarantineId') };
const RECORD_MESSAGE_KEY = `$.record.Item.${R.messageKey}.S`;

/** The named steps of a verification; `build` strings them together. */
class VerificationDefinition {
  private readonly steps: Steps;
  private readonly failure: FailureExit;

  constructor(
    private readonly scope: Construct,
    private readonly props: VerificationStateMachineProps,
  ) {
    this.steps = new Steps(scope, props);
    this.failure = new FailureExit(scope, this.steps, {
      notifyId: 'NotifyVerificationFailed',
      failId: 'VerificationFailed',
      subject: 'poison-quarantine: outcome-unknown verification failed',
      message: { event: 'verification-failed', quarantineId: sfn.JsonPath.stringAt('$.quarantineId') },
      taskError: FAILURE.verificationFailed,
    });
  }

  /** Accept the input, tell a person, wait for the answer, apply it. */
  build(): sfn.IChainable {
    return this.acceptInput(this.notifyOperator().next(this.awaitDecision()).next(this.routeDecision()));
  }

  private acceptInput(verify: sfn.IChainable): sfn.Choice {
    const valid = sfn.Condition.and(
      kindIs(EXECUTION_INPUT_KIND.outcomeUnknown),
      isText('$.quarantineId'),
      isText('$.messageKey'),
    );
    return new sfn.Choice(this.scope, 'IsVerificationInput', {
      comment: 'This machine verifies outcome-unknown records only; anything else is refused untouched.',
    })
      .when(valid, verify, { comment: 'an outcome-unknown input' })
      .otherwise(
        new sfn.Fail(this.scope, 'RejectInput', {
          comment: 'Nothing was read or written: the input names no record to verify.',
          error: FAILURE.invalidInput,
          cause: 'Expected { kind: "outcome-unknown", quarantineId, messageKey }.',
        }),
      );
  }

  private notifyOperator(): sfn.TaskStateBase {
    return this.steps.notify(
      'NotifyOutcomeUnknown',
      'The operator must check the outside system before anything else happens to this message.',
      'poison-quarantine: outcome unknown, check the outside system',
      {
        event: 'outcome-unknown',
        quarantineId: sfn.JsonPath.stringAt('$.quarantineId'),
        instruction:
          'Check the outside system first: did the external call happen? Then record done (it happened), ' +
          'not-done (it did not: the CLI replays the message once) or discard.',
      },
    );
  }

  /**
   * Stores the task token on the record and waits. A missed heartbeat is counted for the
   * overdue-decision alarm, escalated, and waited for again with a new token.
   */
  private awaitDecision(): sfn.TaskStateBase {
    const wait = this.steps.updateItem('AwaitOperatorDecision', {
      comment: 'The record holds the token pq verify answers with; only an open or waiting record can wait.',
      table: this.props.quarantineTable,
      key: RECORD_KEY,
      update: `SET #${R.status} = :awaiting, #${R.taskToken} = :token, #${R.waitingSince} = :now`,
      condition: `attribute_exists(#id) AND #${R.status} IN (:open, :awaiting)`,
      names: attributeNames('id', R.status, R.taskToken, R.waitingSince),
      values: {
        ':awaiting': { S: RECORD_STATUS.awaitingOperator },
        ':open': { S: RECORD_STATUS.open },
        ':token': { S: sfn.JsonPath.taskToken },
        ':now': enteredTime(),
      },
      resultPath: '$.decision',
      waitForOperator: { heartbeat: this.props.operatorHeartbeat, timeout: this.props.operatorTimeout },
    });
    const remind = this.steps
      .putMetric(
        'PublishDecisionOverdue',
        'The overdue-decision alarm counts every heartbeat a record waited without an answer.',
        OPERATIONS_METRIC.decisionOverdue,
        1,
      )
      .next(this.escalate())
      .next(wait);
    wait.addCatch(remind, {
      errors: [sfn.Errors.HEARTBEAT_TIMEOUT, sfn.Errors.TIMEOUT],
      resultPath: sfn.JsonPath.DISCARD,
    });
    wait.addCatch(
      this.failure.because(
        'RecordWasNotOpen',
        'A record that is missing, resolved or replayed has nothing left to verify.',
        FAILURE.recordNotOpen,
        'The quarantine record is missing or neither open nor awaiting-operator: there is nothing to verify.',
      ),
      { errors: [CONDITION_FAILED], resultPath: '$.error' },
    );
    return this.failure.onError(wait, 'Waiting for the operator');
  }

  private escalate(): sfn.TaskStateBase {
    return this.steps.notify(
      'EscalateOutcomeUnknown',
      'A silent operator is reminded, never decided for.',
      'poison-quarantine: an operator decision is overdue',
      {
        event: 'outcome-unknown-overdue',
        quarantineId: sfn.JsonPath.stringAt('$.quarantineId'),
        waitingSince: sfn.JsonPath.stringAt('$$.State.EnteredTime'),
        instruction: 'Still waiting: check the outside system, then record done, not-done or discard.',
      },
    );
  }

  /** Each well-formed decision sets the record's outcome, then one write applies it. */
  private routeDecision(): sfn.Choice {
    const apply = this.applyDecision();
    const decided = (decision: string) =>
      sfn.Condition.and(
        textIs('$.decision.decision', decision),
        isText('$.decision.who'),
        isText('$.decision.why'),
        isText('$.decision.at'),
      );
    return new sfn.Choice(this.scope, 'RouteDecision', {
      comment: "The operator's answer decides what the record becomes; a malformed one decides nothing.",
    })
      .when(
        decided(VERIFY_DECISION.done),
        this.completeLedgerItem()
          .next(
            this.outcome(
              'ResolveAsDone',
              VERIFIED_STATUS[VERIFY_DECISION.done],
              'The call happened: the message is done.',
            ),
          )
          .next(apply),
        { comment: 'done' },
      )
      .when(
        decided(VERIFY_DECISION.notDone),
        this.outcome(
          'ResolveAsReplayed',
          VERIFIED_STATUS[VERIFY_DECISION.notDone],
          'The call did not happen: the CLI has already replayed the message once.',
        ).next(apply),
        { comment: 'not-done (replayed once by the CLI)' },
      )
      .when(
        decided(VERIFY_DECISION.discard),
        this.outcome(
          'ResolveAsDiscarded',
          VERIFIED_STATUS[VERIFY_DECISION.discard],
          'The message must never run again.',
        ).next(apply),
        { comment: 'discard' },
      )
      .otherwise(
        this.failure.because(
          'DecisionWasInvalid',
          'An answer this machine cannot read must not move the record on.',
          FAILURE.invalidDecision,
          "The operator's answer must be { decision: done | not-done | discard, who, why, at }; " +
            'the record stays awaiting-operator.',
        ),
      );
  }

  /**
   * `done`: the ledger item the record names becomes completed, so the message is never run
   * again, and only while it still holds this quarantine: the input's messageKey is never
   * trusted with a write.
   */
  private completeLedgerItem(): sfn.Chain {
    const readKey = this.failure.onError(
      this.steps.getItem('ReadRecordMessageKey', {
        comment: 'The ledger item to complete is the one the record names, not the one the input names.',
        table: this.props.quarantineTable,
        key: RECORD_KEY,
        attributes: [R.messageKey],
        resultPath: '$.record',
      }),
      'Reading the record',
    );
    const markCompleted = this.steps.updateItem('MarkLedgerCompleted', {
      comment: 'A completed ledger item is acknowledged without work at every later delivery.',
      table: this.props.attemptsTable,
      key: { pk: stringAt(RECORD_MESSAGE_KEY) },
      update: 'SET #state = :completed REMOVE #envId',
      condition: '#quarantineId = :quarantineId AND #state IN (:quarantined, :completed)',
      names: attributeNames('state', 'envId', 'quarantineId'),
      values: {
        ':completed': { S: LEDGER_STATE.completed },
        ':quarantined': { S: LEDGER_STATE.quarantined },
        ':quarantineId': stringAt('$.quarantineId'),
      },
    });
    markCompleted.addCatch(
      this.failure.because(
        'LedgerMovedOn',
        'A replay or a later attempt owns the ledger item now: completing it would lose that work.',
        FAILURE.ledgerNotHoldingQuarantine,
        'The ledger item no longer holds this quarantine (a replay or a later attempt moved it on): ' +
          'nothing was completed and the record stays awaiting-operator.',
      ),
      { errors: [CONDITION_FAILED], resultPath: '$.error' },
    );
    this.failure.onError(markCompleted, 'Marking the ledger item completed');
    return readKey.next(
      new sfn.Choice(this.scope, 'RecordNamesItsItem', {
        comment: 'Without the key the record stores there is no ledger item to complete.',
      })
        .when(isText(RECORD_MESSAGE_KEY), markCompleted, { comment: 'the record names its ledger item' })
        .otherwise(
          this.failure.because(
            'RecordWithoutKey',
            'A record gone or without its key cannot say which message was done.',
            FAILURE.recordNotAwaiting,
            'The quarantine record is missing or names no ledger item: nothing was completed.',
          ),
        )
        .afterwards(),
    );
  }

  /** The record status a decision leads to, in `$.outcome`. */
  private outcome(id: string, status: string, comment: string): sfn.Pass {
    return new sfn.Pass(this.scope, id, {
      comment,
      result: sfn.Result.fromObject({ status }),
      resultPath: '$.outcome',
    });
  }

  /**
   * One transaction: the new status, the audit entry and the token gone with the wait, and rule
   * 11a's count one less (the record leaves awaiting-operator), so the count moves exactly when
   * the record does.
   */
  private applyDecision(): sfn.TaskStateBase {
    const record: TransactUpdate = {
      table: this.props.quarantineTable,
      key: RECORD_KEY,
      update:
        `SET #${R.status} = :status, #${R.audit} = list_append(if_not_exists(#${R.audit}, :none), :entry) ` +
        `REMOVE #${R.taskToken}, #${R.waitingSince}`,
      condition: `#${R.status} = :awaiting`,
      names: attributeNames(R.status, R.audit, R.taskToken, R.waitingSince),
      values: {
        ':status': stringAt('$.outcome.status'),
        ':awaiting': { S: RECORD_STATUS.awaitingOperator },
        ':none': { L: [] },
        ':entry': {
          L: [
            {
              M: {
                who: stringAt('$.decision.who'),
                when: stringAt('$.decision.at'),
                what: stringAt('$.decision.decision'),
                why: stringAt('$.decision.why'),
              },
            },
          ],
        },
      },
    };
    const apply = this.steps.transactUpdates(
      'ApplyDecision',
      'Records who decided what, when and why, once: only a record still awaiting an operator.',
      [record, this.oneOpenRecordLess()],
    );
    apply.addCatch(
      this.failure.because(
        'RecordWasNotAwaiting',
        'Someone else moved the record on (pq verify without this execution): the decision is recorded once.',
        FAILURE.recordNotAwaiting,
        'The decision was not applied: the quarantine record was no longer awaiting-operator, or the ' +
          'open-record count is missing (pq recount creates it) or kept changing. Nothing changed; once ' +
          'this execution has ended, pq verify records the decision on the record itself.',
      ),
      { errors: [TRANSACTION_CANCELLED], resultPath: '$.error' },
    );
    this.failure.onError(apply, 'Recording the decision');
    apply.next(
      new sfn.Succeed(this.scope, 'DecisionRecorded', {
        comment: 'The record is resolved or replayed, with its audit entry: nothing more to wait for.',
      }),
    );
    return apply;
  }

  /**
   * Rule 11a's count (contract/quarantine.ts OPEN_RECORDS_COUNTER) one less. Only an existing
   * counter: an ADD would create a missing one from nothing, which the consumer then trusts.
   */
  private oneOpenRecordLess(): TransactUpdate {
    const count = OPEN_RECORDS_COUNTER.attributes.count;
    return {
      table: this.props.quarantineTable,
      key: { id: { S: OPEN_RECORDS_COUNTER.key.id } },
      update: `ADD #${count} :oneLess`,
      condition: `attribute_exists(#${count})`,
      names: attributeNames(count),
      values: { ':oneLess': { N: '-1' } },
    };
  }
}
