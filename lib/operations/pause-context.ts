/**
 * What every step of a pause works with: the breaker item it acts on, its tasks, its way out
 * when it cannot go on, and where it steps aside for a newer pause. The timeline of the breaker
 * item is in docs/design.md (Control table); its key and attribute names in contract/control.ts.
 */
import type { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { BREAKER_KEY } from '../../contract/control';
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

/** A strongly consistent read of some breaker attributes (never its task token) into `resultPath`. */
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
