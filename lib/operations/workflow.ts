/**
 * What the two operations state machines share besides their steps: how each runs. Standard
 * workflow (callbacks need it), JSONPath (moto runs no JSONata), direct service integrations
 * instead of glue Lambdas, a role of its own holding what its tasks call. Execution data is kept
 * out of the logs: a task token is a bearer secret.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';

/** What the construct gives each operations state machine. */
export interface OperationsMachineProps {
  /** A fixed name: the consumer's environment refers to it without a reference cycle. */
  readonly stateMachineName: string;
  /** Where operator notifications go. */
  readonly topic: sns.ITopic;
  /**
   * The source's name (the queue's ARN, or a Kafka source's `<cluster>/<topic>`): the `Queue`
   * dimension of the metrics the machine publishes for the alarms.
   */
  readonly sourceName: string;
  readonly logRetention: logs.RetentionDays;
  /** An operator wait without an answer for this long is escalated (and waited for again). */
  readonly operatorHeartbeat: Duration;
  /** The hard limit of one operator wait; also escalated and waited for again. */
  readonly operatorTimeout: Duration;
}

interface OperationsWorkflowProps
  extends Pick<OperationsMachineProps, 'stateMachineName' | 'topic' | 'logRetention'> {
  /** What the machine is for, as its definition's Comment. */
  readonly comment: string;
  readonly definition: sfn.IChainable;
}

/** Creates the state machine (`Resource`) and its log group (`Logs`) in `scope`. */
export function operationsWorkflow(scope: Construct, props: OperationsWorkflowProps): sfn.StateMachine {
  const logGroup = new logs.LogGroup(scope, 'Logs', {
    retention: props.logRetention,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const stateMachine = new sfn.StateMachine(scope, 'Resource', {
    stateMachineName: props.stateMachineName,
    comment: props.comment,
    stateMachineType: sfn.StateMachineType.STANDARD,
    definitionBody: sfn.DefinitionBody.fromChainable(props.definition),
    // A person may take days and is reminded, not replaced: allow a Standard execution's full year.
    timeout: Duration.days(365),
    tracingEnabled: true,
    logs: { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
  });
  // sns:Publish and, for an encrypted topic, the key actions publishing needs.
  props.topic.grantPublish(stateMachine);
  Validations.of(stateMachine.role).acknowledge(
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
  return stateMachine;
}
