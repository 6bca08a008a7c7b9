/**
 * What every step of a pause works with: the breaker item it acts on, the operator's answer to
 * its episode, its tasks, its way out when it cannot go on, and where it steps aside for a newer
 * pause. The items' timelines are in docs/design.md (Control table); their keys and attribute
 * names in contract/control.ts.
 */
import type { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { BREAKER_KEY, OPERATOR_ITEMS, OPERATOR_PARTITION } from '../../contract/control';
import type { FailureExit } from './failure';
import type { PauseSteps } from './steps';

export interface PauseContext {
  readonly scope: Construct;
  readonly steps: PauseSteps;
  /** `$.failure = { error, cause }` -> alert -> fail. */
  readonly failure: FailureExit;
  readonly controlTable: dynamodb.ITable;
  readonly operatorHeartbeat: Duration;
  readonly operatorTimeout: Duration;
  /** Where a newer epoch's execution owns the breaker: nothing more to do here. */
  readonly superseded: sfn.State;
}

export const BREAKER_ITEM_KEY = { pk: { S: BREAKER_KEY.pk }, sk: { S: BREAKER_KEY.sk } };

/** The stop requests an operator lifted (`stops-lifted`). */
export const STOPS_LIFTED_ITEM_KEY = { pk: { S: OPERATOR_PARTITION }, sk: { S: OPERATOR_ITEMS.stopsLifted } };

/** The operator's answer to this run's episode: `operator`/`answer#<epoch>` (contract answerSortKey). */
export const answerItemKey = () => ({
  pk: { S: OPERATOR_PARTITION },
  sk: { S: sfn.JsonPath.format(`${OPERATOR_ITEMS.answerPrefix}{}`, sfn.JsonPath.stringAt('$.epoch')) },
});

/** A strongly consistent read of some breaker attributes into `resultPath`. */
export function readBreaker(
  ctx: PauseContext,
  id: string,
  comment: string,
  attributes: readonly string[],
  result: { readonly resultPath: string; readonly resultSelector?: Record<string, unknown> },
): sfn.TaskStateBase {
  return ctx.steps.getItem(id, {
    comment,
    table: ctx.controlTable,
    key: BREAKER_ITEM_KEY,
    attributes,
    ...result,
  });
}

/** A strongly consistent read of some attributes of this episode's answer (never its task token). */
export function readAnswer(
  ctx: PauseContext,
  id: string,
  comment: string,
  attributes: readonly string[],
  resultPath: string,
): sfn.TaskStateBase {
  return ctx.steps.getItem(id, {
    comment,
    table: ctx.controlTable,
    key: answerItemKey(),
    attributes,
    resultPath,
  });
}
