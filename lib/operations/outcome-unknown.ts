/**
 * Rule 8: an external call whose outcome is unknown waits for a person. The machine notifies,
 * stores its task token on the quarantine record and waits; a silent operator is reminded
 * (escalated) and waited for again, never decided for. The operator's CLI answers with
 * SendTaskSuccess `{ decision, who, why, at }`; a `not-done` has already been replayed by the CLI.
 */
import type { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { QUARANTINE_STATUS as RECORD_STATUS } from '../../contract/quarantine';
import {
  DECISION,
  FAILURE,
  LEDGER_COMPLETED,
  LEDGER_QUARANTINED,
  OPERATIONS_METRIC,
  RECORD_ATTRIBUTES,
} from './protocol';
import { CONDITION_FAILED, enteredTime, type Steps, stringAt } from './steps';

export interface OutcomeUnknownPathProps {
  readonly quarantineTable: dynamodb.ITable;
  readonly attemptsTable: dynamodb.ITable;
  readonly operatorHeartbeat: Duration;
  readonly operatorTimeout: Duration;
}

const RECORD_KEY = { id: stringAt('$.quarantineId') };
const names = (...attributes: string[]) => Object.fromEntries(attributes.map((name) => [`#${name}`, name]));
const present = (path: string) =>
  sfn.Condition.and(sfn.Condition.isPresent(path), sfn.Condition.isString(path));
const decisionIs = (value: string) => sfn.Condition.stringEquals('$.decision.decision', value);

/**
 * The outcome-unknown branch; its input is `{ kind, quarantineId, messageKey }`. It acts only on
 * the record `quarantineId` names and on the ledger item that record names.
 */
export function outcomeUnknownPath(
  scope: Construct,
  steps: Steps,
  props: OutcomeUnknownPathProps,
): sfn.IChainable {
  const failed = failureChain(scope, steps);
  const failWith = (id: string, error: string, cause: string) =>
    new sfn.Pass(scope, id, {
      result: sfn.Result.fromObject({ error, cause }),
      resultPath: '$.failure',
    }).next(failed);

  const notify = steps.notify(
    'NotifyOutcomeUnknown',
    'poison-quarantine: outcome unknown, check the outside system',
    {
      event: 'outcome-unknown',
      quarantineId: sfn.JsonPath.stringAt('$.quarantineId'),
      instruction:
        'Check the outside system first: did the external call happen? Then record done (it happened), ' +
        'not-done (it did not: the CLI replays the message once) or discard.',
    },
  );

  const { status, taskToken, waitingSince, audit } = RECORD_ATTRIBUTES;
  const awaitDecision = steps.updateItem('AwaitOperatorDecision', {
    table: props.quarantineTable,
    key: RECORD_KEY,
    update: `SET #${status} = :awaiting, #${taskToken} = :token, #${waitingSince} = :now`,
    condition: `attribute_exists(#id) AND #${status} IN (:open, :awaiting)`,
    names: names('id', status, taskToken, waitingSince),
    values: {
      ':awaiting': { S: RECORD_STATUS.awaitingOperator },
      ':open': { S: RECORD_STATUS.open },
      ':token': { S: sfn.JsonPath.taskToken },
      ':now': enteredTime(),
    },
    resultPath: '$.decision',
    waitForOperator: { heartbeat: props.operatorHeartbeat, timeout: props.operatorTimeout },
  });
  const escalate = steps.notify(
    'EscalateOutcomeUnknown',
    'poison-quarantine: an operator decision is overdue',
    {
      event: 'outcome-unknown-overdue',
      quarantineId: sfn.JsonPath.stringAt('$.quarantineId'),
      waitingSince: sfn.JsonPath.stringAt('$$.State.EnteredTime'),
      instruction: 'Still waiting: check the outside system, then record done, not-done or discard.',
    },
  );
  const overdue = steps.putMetric('PublishDecisionOverdue', OPERATIONS_METRIC.decisionOverdue, 1);
  awaitDecision.addCatch(overdue.next(escalate).next(awaitDecision), {
    errors: [sfn.Errors.HEARTBEAT_TIMEOUT, sfn.Errors.TIMEOUT],
    resultPath: sfn.JsonPath.DISCARD,
  });
  awaitDecision.addCatch(
    failWith(
      'RecordWasNotOpen',
      FAILURE.recordNotOpen,
      'The quarantine record is missing or neither open nor awaiting-operator: there is nothing to verify.',
    ),
    { errors: [CONDITION_FAILED], resultPath: '$.error' },
  );
  awaitDecision.addCatch(taskFailed(scope, failed, 'WaitFailed', 'Waiting for the operator'), {
    resultPath: '$.error',
  });

  // The ledger item is the one the record names, and only while it still holds this
  // quarantine: the input's messageKey is never trusted with a write.
  const { messageKey } = RECORD_ATTRIBUTES;
  const readRecordKey = steps.getItem(
    'ReadRecordMessageKey',
    props.quarantineTable,
    RECORD_KEY,
    [messageKey],
    {
      resultPath: '$.record',
    },
  );
  readRecordKey.addCatch(taskFailed(scope, failed, 'RecordReadFailed', 'Reading the record'), {
    resultPath: '$.error',
  });
  const markCompleted = steps.updateItem('MarkLedgerCompleted', {
    table: props.attemptsTable,
    key: { pk: stringAt(`$.record.Item.${messageKey}.S`) },
    update: 'SET #state = :completed REMOVE #envId',
    condition: '#quarantineId = :quarantineId AND #state IN (:quarantined, :completed)',
    names: names('state', 'envId', 'quarantineId'),
    values: {
      ':completed': { S: LEDGER_COMPLETED },
      ':quarantined': { S: LEDGER_QUARANTINED },
      ':quarantineId': stringAt('$.quarantineId'),
    },
  });
  markCompleted.addCatch(
    failWith(
      'LedgerMovedOn',
      FAILURE.ledgerNotHoldingQuarantine,
      'The ledger item no longer holds this quarantine (a replay or a later attempt moved it on): ' +
        'nothing was completed and the record stays awaiting-operator.',
    ),
    { errors: [CONDITION_FAILED], resultPath: '$.error' },
  );
  markCompleted.addCatch(
    taskFailed(scope, failed, 'LedgerUpdateFailed', 'Marking the ledger item completed'),
    { resultPath: '$.error' },
  );
  const completeTheRecordsItem = readRecordKey.next(
    new sfn.Choice(scope, 'RecordNamesItsItem')
      .when(present(`$.record.Item.${messageKey}.S`), markCompleted)
      .otherwise(
        failWith(
          'RecordWithoutKey',
          FAILURE.recordNotAwaiting,
          'The quarantine record is missing or names no ledger item: nothing was completed.',
        ),
      )
      .afterwards(),
  );

  const applyDecision = steps.updateItem('ApplyDecision', {
    table: props.quarantineTable,
    key: RECORD_KEY,
    update:
      `SET #${status} = :status, #${audit} = list_append(if_not_exists(#${audit}, :none), :entry) ` +
      `REMOVE #${taskToken}, #${waitingSince}`,
    condition: `#${status} = :awaiting`,
    names: names(status, audit, taskToken, waitingSince),
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
  });
  applyDecision.addCatch(
    failWith(
      'RecordWasNotAwaiting',
      FAILURE.recordNotAwaiting,
      'The quarantine record was no longer awaiting-operator when the decision was applied.',
    ),
    { errors: [CONDITION_FAILED], resultPath: '$.error' },
  );
  applyDecision.addCatch(taskFailed(scope, failed, 'DecisionUpdateFailed', 'Recording the decision'), {
    resultPath: '$.error',
  });
  applyDecision.next(new sfn.Succeed(scope, 'DecisionRecorded'));

  const outcome = (id: string, recordStatus: string) =>
    new sfn.Pass(scope, id, {
      result: sfn.Result.fromObject({ status: recordStatus }),
      resultPath: '$.outcome',
    });
  const wellFormed = sfn.Condition.and(
    present('$.decision.decision'),
    present('$.decision.who'),
    present('$.decision.why'),
    present('$.decision.at'),
  );
  const routeDecision = new sfn.Choice(scope, 'RouteDecision')
    .when(
      sfn.Condition.and(wellFormed, decisionIs(DECISION.done)),
      completeTheRecordsItem.next(outcome('ResolveAsDone', RECORD_STATUS.resolved)).next(applyDecision),
    )
    .when(
      sfn.Condition.and(wellFormed, decisionIs(DECISION.notDone)),
      outcome('ResolveAsReplayed', RECORD_STATUS.replayed).next(applyDecision),
    )
    .when(
      sfn.Condition.and(wellFormed, decisionIs(DECISION.discard)),
      outcome('ResolveAsDiscarded', RECORD_STATUS.resolved).next(applyDecision),
    )
    .otherwise(
      failWith(
        'DecisionWasInvalid',
        FAILURE.invalidDecision,
        "The operator's answer must be { decision: done | not-done | discard, who, why, at }; " +
          'the record stays awaiting-operator.',
      ),
    );

  return notify.next(awaitDecision).next(routeDecision);
}

/** `$.failure = { error, cause }` -> alert -> fail with that error and cause. */
function failureChain(scope: Construct, steps: Steps): sfn.IChainable {
  return steps
    .notify('NotifyVerificationFailed', 'poison-quarantine: outcome-unknown verification failed', {
      event: 'verification-failed',
      quarantineId: sfn.JsonPath.stringAt('$.quarantineId'),
      error: sfn.JsonPath.stringAt('$.failure.error'),
      cause: sfn.JsonPath.stringAt('$.failure.cause'),
    })
    .next(
      new sfn.Fail(scope, 'VerificationFailed', {
        errorPath: '$.failure.error',
        causePath: '$.failure.cause',
      }),
    );
}

/** A caught task error as `$.failure`: its name only (a cause may quote the request). */
function taskFailed(scope: Construct, failed: sfn.IChainable, id: string, what: string): sfn.IChainable {
  return new sfn.Pass(scope, id, {
    parameters: {
      error: FAILURE.verificationFailed,
      cause: sfn.JsonPath.format(`${what} failed with {}`, sfn.JsonPath.stringAt('$.error.Error')),
    },
    resultPath: '$.failure',
  }).next(failed);
}
