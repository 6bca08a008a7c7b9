/**
 * Builders for the operations state machines' tasks: DynamoDB and Lambda through the aws-sdk
 * integration (the optimised DynamoDB integration cannot wait for a task token, and there is no
 * optimised Lambda event source mapping integration), SNS through the optimised one. Every task
 * retries what is transient and nothing else: a failed condition is an answer, not a glitch.
 * Every builder takes the state's comment: each state says why it is there.
 */
import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { METRIC_NAMESPACE } from '../../contract/metrics';

/** Step Functions names aws-sdk errors `<Service>.<Exception>`; DynamoDB's service part is `DynamoDb`. */
export const CONDITION_FAILED = 'DynamoDb.ConditionalCheckFailedException';
/** A transaction a failed condition or an overlapping transaction cancelled (the reason is only in the cause). */
export const TRANSACTION_CANCELLED = 'DynamoDb.TransactionCanceledException';
const DYNAMODB_TRANSIENT = [
  'DynamoDb.ProvisionedThroughputExceededException',
  'DynamoDb.RequestLimitExceededException',
  'DynamoDb.ThrottlingException',
  'DynamoDb.InternalServerErrorException',
  'DynamoDb.TransactionConflictException',
];
// ResourceInUse: the mapping is still Enabling/Disabling/Updating from the previous call.
const LAMBDA_TRANSIENT = [
  'Lambda.ResourceInUseException',
  'Lambda.ResourceConflictException',
  'Lambda.TooManyRequestsException',
  'Lambda.ServiceException',
];
// Throttling is not in CloudWatch's model: the aws-sdk integration names it CloudWatchException.
const CLOUDWATCH_TRANSIENT = ['CloudWatch.CloudWatchException', 'CloudWatch.InternalServiceFaultException'];
const RETRY = { interval: Duration.seconds(2), maxAttempts: 5, backoffRate: 2 };
// An overlap clears in milliseconds; a failed condition fails the same way every time, so its
// retries only delay the catch: a few, short.
const CANCELLED_RETRY = { interval: Duration.seconds(1), maxAttempts: 3, backoffRate: 2 };

/** A DynamoDB attribute value from a JSONPath: `{ S: <string at path> }`. */
export const stringAt = (path: string) => ({ S: sfn.JsonPath.stringAt(path) });
/** A DynamoDB number from a JSONPath holding a JSON number (DynamoDB wants its text). */
export const numberAt = (path: string) => ({ N: sfn.JsonPath.format('{}', sfn.JsonPath.stringAt(path)) });
/** A DynamoDB boolean from a JSONPath holding a JSON boolean. */
export const booleanAt = (path: string) => ({ BOOL: sfn.JsonPath.stringAt(path) });
/** When the current state was entered (ISO-8601): a time the machine writes without a clock of its own. */
export const enteredTime = () => stringAt('$$.State.EnteredTime');
/** `#name` -> name for each attribute an expression names. */
export const attributeNames = (...attributes: string[]) =>
  Object.fromEntries(attributes.map((name) => [`#${name}`, name]));

export interface UpdateItemOptions {
  readonly comment: string;
  readonly table: dynamodb.ITable;
  readonly key: Record<string, unknown>;
  readonly update: string;
  /** `#name` -> attribute name for every name the expressions use. */
  readonly names: Record<string, string>;
  readonly values?: Record<string, unknown>;
  readonly condition?: string;
  /** @default - the result is discarded */
  readonly resultPath?: string;
  /** Store `$$.Task.Token` (through the values) and wait for the operator. */
  readonly waitForOperator?: { readonly heartbeat: Duration; readonly timeout: Duration };
}

/** One item update of a transaction (`transactUpdates`). */
export type TransactUpdate = Omit<UpdateItemOptions, 'comment' | 'resultPath' | 'waitForOperator'>;

export interface GetItemOptions {
  readonly comment: string;
  readonly table: dynamodb.ITable;
  readonly key: Record<string, unknown>;
  /** The only attributes read: never a stored task token. */
  readonly attributes: readonly string[];
  readonly resultPath: string;
  readonly resultSelector?: Record<string, unknown>;
}

export interface NewestOfPartitionOptions {
  readonly comment: string;
  readonly table: dynamodb.ITable;
  /** The partition key's value (`pk`). */
  readonly partition: string;
  readonly resultPath: string;
}

export interface MappingCallOptions {
  readonly comment: string;
  readonly action: 'getEventSourceMapping' | 'updateEventSourceMapping';
  readonly parameters?: Record<string, unknown>;
  readonly resultSelector?: Record<string, unknown>;
  /** @default - the result is discarded */
  readonly resultPath?: string;
}

export interface StepsProps {
  readonly topic: sns.ITopic;
  /** The source's name (the queue's ARN, or a Kafka source's): the `Queue` dimension of the metrics the alarms watch. */
  readonly sourceName: string;
}

/** The consumer's event source mapping: its id (Uuid) and ARN. */
export interface EventSourceMappingRef {
  readonly id: string;
  readonly arn: string;
  /**
   * Whether the mapping takes a ScalingConfig (maximum concurrency): an SQS mapping does, a Kafka
   * mapping does not, so it is probed and restored by its batch size alone.
   */
  readonly scales: boolean;
}

/** The tasks both machines use: DynamoDB items, metrics, notifications. */
export class Steps {
  constructor(
    protected readonly scope: Construct,
    private readonly props: StepsProps,
  ) {}

  updateItem(id: string, options: UpdateItemOptions): sfn.TaskStateBase {
    const wait = options.waitForOperator;
    const task = new tasks.CallAwsService(this.scope, id, {
      comment: options.comment,
      service: 'dynamodb',
      action: 'updateItem',
      parameters: {
        TableName: options.table.tableName,
        Key: options.key,
        UpdateExpression: options.update,
        ExpressionAttributeNames: options.names,
        ...(options.values ? { ExpressionAttributeValues: options.values } : {}),
        ...(options.condition ? { ConditionExpression: options.condition } : {}),
      },
      iamResources: [options.table.tableArn],
      resultPath: options.resultPath ?? sfn.JsonPath.DISCARD,
      ...(wait
        ? {
            integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
            heartbeatTimeout: sfn.Timeout.duration(wait.heartbeat),
            taskTimeout: sfn.Timeout.duration(wait.timeout),
          }
        : {}),
    });
    return task.addRetry({ errors: DYNAMODB_TRANSIENT, ...RETRY });
  }

  /**
   * Item updates in one DynamoDB transaction: all or none. A failed condition cancels it as an
   * overlapping transaction on one of its items does (TRANSACTION_CANCELLED): retried briefly,
   * then the caller's catch decides. IAM knows no transaction action: each item is an UpdateItem.
   */
  transactUpdates(id: string, comment: string, updates: readonly TransactUpdate[]): sfn.TaskStateBase {
    return new tasks.CallAwsService(this.scope, id, {
      comment,
      service: 'dynamodb',
      action: 'transactWriteItems',
      parameters: {
        TransactItems: updates.map((update) => ({
          Update: {
            TableName: update.table.tableName,
            Key: update.key,
            UpdateExpression: update.update,
            ExpressionAttributeNames: update.names,
            ...(update.values ? { ExpressionAttributeValues: update.values } : {}),
            ...(update.condition ? { ConditionExpression: update.condition } : {}),
          },
        })),
      },
      iamAction: 'dynamodb:updateItem',
      iamResources: [...new Set(updates.map((update) => update.table.tableArn))],
      resultPath: sfn.JsonPath.DISCARD,
    })
      .addRetry({ errors: DYNAMODB_TRANSIENT, ...RETRY })
      .addRetry({ errors: [TRANSACTION_CANCELLED], ...CANCELLED_RETRY });
  }

  /** A strongly consistent read of the named attributes only: never a stored task token. */
  getItem(id: string, options: GetItemOptions): sfn.TaskStateBase {
    const names = attributeNames(...options.attributes);
    return new tasks.CallAwsService(this.scope, id, {
      comment: options.comment,
      service: 'dynamodb',
      action: 'getItem',
      parameters: {
        TableName: options.table.tableName,
        Key: options.key,
        ConsistentRead: true,
        ProjectionExpression: Object.keys(names).join(', '),
        ExpressionAttributeNames: names,
      },
      iamResources: [options.table.tableArn],
      resultPath: options.resultPath,
      resultSelector: options.resultSelector,
    }).addRetry({ errors: DYNAMODB_TRANSIENT, ...RETRY });
  }

  /**
   * The newest item of one partition (strongly consistent, its sort key only) into
   * `resultPath`: `{ Count, Items: [{ sk }] }`, no items when the partition is empty.
   */
  newestOfPartition(id: string, options: NewestOfPartitionOptions): sfn.TaskStateBase {
    return new tasks.CallAwsService(this.scope, id, {
      comment: options.comment,
      service: 'dynamodb',
      action: 'query',
      parameters: {
        TableName: options.table.tableName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: attributeNames('pk', 'sk'),
        ExpressionAttributeValues: { ':pk': { S: options.partition } },
        ProjectionExpression: '#sk',
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      },
      iamResources: [options.table.tableArn],
      resultPath: options.resultPath,
    }).addRetry({ errors: DYNAMODB_TRANSIENT, ...RETRY });
  }

  /**
   * One data point of a metric an alarm watches (lib/alarms.ts): `value` is a number or the
   * JSONPath of one. A publish that still fails after its retries is skipped: a metric must
   * never stop a pause or a verification.
   */
  putMetric(id: string, comment: string, metricName: string, value: number | string): sfn.Chain {
    const task = new tasks.CallAwsService(this.scope, id, {
      comment,
      service: 'cloudwatch',
      action: 'putMetricData',
      parameters: {
        Namespace: METRIC_NAMESPACE,
        MetricData: [
          {
            MetricName: metricName,
            Value: typeof value === 'number' ? value : sfn.JsonPath.numberAt(value),
            Dimensions: [{ Name: 'Queue', Value: this.props.sourceName }],
          },
        ],
      },
      // PutMetricData supports no resource-level permissions.
      iamResources: ['*'],
      iamAction: 'cloudwatch:PutMetricData',
      resultPath: sfn.JsonPath.DISCARD,
    }).addRetry({ errors: CLOUDWATCH_TRANSIENT, ...RETRY });
    const skipped = new sfn.Pass(this.scope, `${id}Skipped`, {
      comment: `${metricName} could not be published: an alarm may miss one point, the workflow goes on.`,
    });
    task.addCatch(skipped, { resultPath: sfn.JsonPath.DISCARD });
    return sfn.Chain.custom(task, [task, skipped], skipped);
  }

  /**
   * An operator notification. Messages carry ids, reasons and the execution name, never a task
   * token or message content: the topic's subscribers are not all operators.
   */
  notify(id: string, comment: string, subject: string, message: Record<string, unknown>): sfn.TaskStateBase {
    return new tasks.SnsPublish(this.scope, id, {
      comment,
      topic: this.props.topic,
      subject,
      message: sfn.TaskInput.fromObject({ ...message, execution: sfn.JsonPath.executionName }),
      resultPath: sfn.JsonPath.DISCARD,
    }).addRetry({ errors: [sfn.Errors.TASKS_FAILED], ...RETRY });
  }
}

/** The pause machine's tasks: the shared ones, and calls on the one event source mapping it pauses. */
export class PauseSteps extends Steps {
  constructor(
    scope: Construct,
    props: StepsProps,
    private readonly mapping: EventSourceMappingRef,
  ) {
    super(scope, props);
  }

  /** Whether the mapping takes a ScalingConfig (SQS), or not (Kafka). */
  get mappingScales(): boolean {
    return this.mapping.scales;
  }

  /**
   * Get or update this pipeline's event source mapping. `Uuid` is the Java SDK v2 spelling that
   * Step Functions wants (boto3 says `UUID`; the local deployment translates it for moto).
   */
  mappingCall(id: string, options: MappingCallOptions): sfn.TaskStateBase {
    return new tasks.CallAwsService(this.scope, id, {
      comment: options.comment,
      service: 'lambda',
      action: options.action,
      parameters: { Uuid: this.mapping.id, ...options.parameters },
      iamResources: [this.mapping.arn],
      resultSelector: options.resultSelector,
      resultPath: options.resultPath ?? sfn.JsonPath.DISCARD,
    }).addRetry({ errors: LAMBDA_TRANSIENT, ...RETRY });
  }
}
