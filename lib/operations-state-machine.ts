import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { EXECUTION_INPUT_KIND } from '../contract/executions';
import { outcomeUnknownPath } from './operations/outcome-unknown';
import { pausePath } from './operations/pause';
import type { PauseContext } from './operations/pause-resume';
import { FAILURE } from './operations/protocol';
import { Steps } from './operations/steps';

export interface OperationsStateMachineProps {
  /** A fixed name: the consumer's environment refers to it without a reference cycle. */
  readonly stateMachineName: string;
  /** The consumer's event source mapping: its id (Uuid) and ARN. */
  readonly eventSourceMappingId: string;
  readonly eventSourceMappingArn: string;
  readonly quarantineTable: dynamodb.ITable;
  /** The attempts ledger: a `done` decision marks the message completed there. */
  readonly attemptsTable: dynamodb.ITable;
  readonly controlTable: dynamodb.ITable;
  readonly topic: sns.ITopic;
  /** The source queue's ARN: the dimension of the metrics the machine publishes for the alarms. */
  readonly queueArn: string;
  readonly logRetention: logs.RetentionDays;
  /** An operator wait without an answer for this long is escalated (and waited for again). */
  readonly operatorHeartbeat: Duration;
  /** The hard limit of one operator wait; also escalated and waited for again. */
  readonly operatorTimeout: Duration;
  /** Pause timings for a pause input that does not carry them (the input's own win). */
  readonly pauseDefaults: PauseTimings;
}

/** The timings of a pause, in seconds; each may also come in the execution input. */
export interface PauseTimings {
  readonly cooldownSeconds: number;
  readonly maxCooldownSeconds: number;
  readonly probeSeconds: number;
  readonly pollSeconds: number;
}

/**
 * What needs a person or a pause: outcome-unknown verification (rule 8) and outage pauses
 * (rules 7, 11). Standard workflow (callbacks need it), JSONPath (moto runs no JSONata), direct
 * service integrations instead of glue Lambdas. Execution data is kept out of the logs: a task
 * token is a bearer secret. The protocol (inputs, attributes, outputs): operations/protocol.ts.
 */
export class OperationsStateMachine extends Construct {
  public readonly stateMachine: sfn.StateMachine;

  constructor(scope: Construct, id: string, props: OperationsStateMachineProps) {
    super(scope, id);
    const steps = new Steps(this, props);
    const wait = { operatorHeartbeat: props.operatorHeartbeat, operatorTimeout: props.operatorTimeout };

    const pauseFailed = steps
      .notify('NotifyPauseFailed', 'poison-quarantine: a pause needs an operator', {
        event: 'pause-failed',
        reason: sfn.JsonPath.stringAt('$.reason'),
        epoch: sfn.JsonPath.numberAt('$.epoch'),
        error: sfn.JsonPath.stringAt('$.failure.error'),
        cause: sfn.JsonPath.stringAt('$.failure.cause'),
      })
      .next(
        new sfn.Fail(this, 'PauseFailed', { errorPath: '$.failure.error', causePath: '$.failure.cause' }),
      );
    const context: PauseContext = {
      scope: this,
      steps,
      controlTable: props.controlTable,
      ...wait,
      superseded: new sfn.Succeed(this, 'Superseded', {
        comment: 'A newer pause (a higher epoch) owns the breaker and the mapping.',
      }),
      failed: pauseFailed,
    };

    const rejectInput = new sfn.Fail(this, 'RejectInput', {
      error: FAILURE.invalidInput,
      cause:
        'Expected { kind: "outcome-unknown", quarantineId, messageKey } or { kind: "pause", reason, epoch, stop, ' +
        'and optionally cooldownSeconds >= 1, maxCooldownSeconds >= cooldownSeconds, probeSeconds >= 1, pollSeconds >= 1 }.',
    });
    // The input's timings win over the construct's, so tests and rehearsals scale them down.
    const pauseWithDefaults = new sfn.Pass(this, 'PauseDefaults', {
      result: sfn.Result.fromObject({ ...props.pauseDefaults }),
      resultPath: '$.defaults',
    })
      .next(
        new sfn.Pass(this, 'ApplyPauseDefaults', {
          parameters: {
            input: sfn.JsonPath.jsonMerge(
              sfn.JsonPath.objectAt('$.defaults'),
              sfn.JsonPath.objectAt('$$.Execution.Input'),
            ),
          },
          outputPath: '$.input',
        }),
      )
      .next(
        new sfn.Choice(this, 'CheckPauseInput')
          .when(validPauseInput(), pausePath(context))
          .otherwise(rejectInput),
      );
    const definition = new sfn.Choice(this, 'Route')
      .when(
        validOutcomeUnknownInput(),
        outcomeUnknownPath(this, steps, {
          quarantineTable: props.quarantineTable,
          attemptsTable: props.attemptsTable,
          ...wait,
        }),
      )
      .when(kindIs(EXECUTION_INPUT_KIND.pause), pauseWithDefaults)
      .otherwise(rejectInput);

    const logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stateMachine = new sfn.StateMachine(this, 'Resource', {
      stateMachineName: props.stateMachineName,
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromChainable(definition),
      // A person may take days and is reminded, not replaced: allow a Standard execution's full year.
      timeout: Duration.days(365),
      tracingEnabled: true,
      logs: { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
    });
    // sns:Publish and, for an encrypted topic, the key actions publishing needs.
    props.topic.grantPublish(this.stateMachine);
    Validations.of(this.stateMachine.role).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'X-Ray (PutTraceSegments, PutTelemetryRecords, GetSampling*), CloudWatch Logs log delivery ' +
          '(CreateLogDelivery, PutResourcePolicy, ...) and CloudWatch PutMetricData do not support ' +
          'resource-level permissions.',
      },
      {
        id: 'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
        reason: "Publishing to the KMS-encrypted topic needs GenerateDataKey* on the topic's key only.",
      },
    );
  }
}

const text = (path: string) => sfn.Condition.and(sfn.Condition.isPresent(path), sfn.Condition.isString(path));
const number = (path: string) =>
  sfn.Condition.and(sfn.Condition.isPresent(path), sfn.Condition.isNumeric(path));
const atLeastOne = (path: string) =>
  sfn.Condition.and(number(path), sfn.Condition.numberGreaterThanEquals(path, 1));

const kindIs = (kind: string) =>
  sfn.Condition.and(text('$.kind'), sfn.Condition.stringEquals('$.kind', kind));

function validOutcomeUnknownInput(): sfn.Condition {
  return sfn.Condition.and(
    kindIs(EXECUTION_INPUT_KIND.outcomeUnknown),
    text('$.quarantineId'),
    text('$.messageKey'),
  );
}

function validPauseInput(): sfn.Condition {
  return sfn.Condition.and(
    text('$.reason'),
    number('$.epoch'),
    sfn.Condition.and(sfn.Condition.isPresent('$.stop'), sfn.Condition.isBoolean('$.stop')),
    atLeastOne('$.cooldownSeconds'),
    number('$.maxCooldownSeconds'),
    sfn.Condition.numberGreaterThanEqualsJsonPath('$.maxCooldownSeconds', '$.cooldownSeconds'),
    atLeastOne('$.probeSeconds'),
    atLeastOne('$.pollSeconds'),
  );
}
