import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';

export interface OperationsStateMachineProps {
  /** A fixed name: the consumer's environment refers to it without a reference cycle. */
  readonly stateMachineName: string;
  /** The consumer's event source mapping: its id (Uuid) and ARN. */
  readonly eventSourceMappingId: string;
  readonly eventSourceMappingArn: string;
  readonly quarantineTable: dynamodb.ITable;
  readonly controlTable: dynamodb.ITable;
  readonly topic: sns.ITopic;
  readonly logRetention: logs.RetentionDays;
}

/**
 * What needs a person or a pause: outcome-unknown verification and outage pauses. Standard
 * workflow (callbacks need it), JSONPath, direct service integrations instead of glue Lambdas.
 * Execution data is kept out of the logs: a task token is a bearer secret.
 */
export class OperationsStateMachine extends Construct {
  public readonly stateMachine: sfn.StateMachine;

  constructor(scope: Construct, id: string, props: OperationsStateMachineProps) {
    super(scope, id);
    const notify = (name: string, subject: string) =>
      new tasks.SnsPublish(this, name, {
        topic: props.topic,
        subject,
        message: sfn.TaskInput.fromObject({
          kind: sfn.JsonPath.stringAt('$.kind'),
          execution: sfn.JsonPath.executionName,
        }),
        resultPath: sfn.JsonPath.DISCARD,
      });

    const disableMapping = new tasks.CallAwsService(this, 'DisableMapping', {
      service: 'lambda',
      action: 'updateEventSourceMapping',
      parameters: { Uuid: props.eventSourceMappingId, Enabled: false },
      iamResources: [props.eventSourceMappingArn],
      resultPath: sfn.JsonPath.DISCARD,
    });
    const markAwaitingOperator = new tasks.CallAwsService(this, 'MarkAwaitingOperator', {
      service: 'dynamodb',
      action: 'updateItem',
      parameters: {
        TableName: props.quarantineTable.tableName,
        Key: { id: { S: sfn.JsonPath.stringAt('$.quarantineId') } },
        UpdateExpression: 'SET #status = :awaiting',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':awaiting': { S: 'awaiting-operator' } },
      },
      iamResources: [props.quarantineTable.tableArn],
      resultPath: sfn.JsonPath.DISCARD,
    });

    const definition = new sfn.Choice(this, 'WhatHappened')
      .when(
        sfn.Condition.stringEquals('$.kind', 'pause'),
        disableMapping.next(notify('NotifyPaused', 'poison-quarantine: consumption paused')),
      )
      .otherwise(
        markAwaitingOperator.next(notify('NotifyOutcomeUnknown', 'poison-quarantine: outcome unknown')),
      );

    const logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stateMachine = new sfn.StateMachine(this, 'Resource', {
      stateMachineName: props.stateMachineName,
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromChainable(definition),
      timeout: Duration.days(30),
      tracingEnabled: true,
      logs: { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
    });
    Validations.of(this.stateMachine.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray (PutTraceSegments, PutTelemetryRecords, GetSampling*) and CloudWatch Logs log delivery ' +
        '(CreateLogDelivery, PutResourcePolicy, ...) do not support resource-level permissions.',
    });
  }
}
