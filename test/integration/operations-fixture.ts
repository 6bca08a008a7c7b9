/**
 * The operations state machines EXECUTING in moto: the construct's template (synthPipeline) is
 * deployed through tools/local-aws/deploy, an SQS queue subscribed to the operator topic captures every
 * notification, and small helpers read items, the mapping and executions with bounded polls.
 */
import { CloudWatchClient, GetMetricStatisticsCommand } from '@aws-sdk/client-cloudwatch';
import { GetItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { GetEventSourceMappingCommand, UpdateEventSourceMappingCommand } from '@aws-sdk/client-lambda';
import {
  DescribeExecutionCommand,
  type DescribeExecutionCommandOutput,
  ListExecutionsCommand,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { SubscribeCommand } from '@aws-sdk/client-sns';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { ENV } from '../../contract/env';
import { METRIC_NAMESPACE } from '../../contract/metrics';
import { type AwsClients, createClients } from '../../lambdas/adapters/clients';
import type { StateMachineArns } from '../../lambdas/core/config';
import type { PoisonQuarantineProps } from '../../lib/poison-quarantine';
import { type CfnTemplate, deployTemplate } from '../../tools/local-aws/deploy';
import { LOCAL_CREDENTIALS, type LocalAws, startLocalAws } from '../../tools/local-aws/moto';
import { synthPipeline } from '../cdk/synth';

export type Item = Record<string, { S?: string; N?: string; BOOL?: boolean; L?: unknown[] }>;

export interface OperationsFixture {
  readonly clients: AwsClients;
  readonly stateMachines: StateMachineArns;
  readonly mappingUuid: string;
  readonly tables: { readonly quarantine: string; readonly attempts: string; readonly control: string };
  /** Starts an execution of the `pause` or the `verification` machine. */
  start(machine: keyof StateMachineArns, name: string, input: object): Promise<string>;
  /** Polls DescribeExecution until it is no longer RUNNING (bounded). */
  finished(executionArn: string, timeoutMs?: number): Promise<DescribeExecutionCommandOutput>;
  status(executionArn: string): Promise<string | undefined>;
  /** Stops what a test left running, so the next test owns the mapping and the breaker alone. */
  stopRunning(): Promise<void>;
  getItem(table: string, key: Item): Promise<Item | undefined>;
  putItem(table: string, item: Item): Promise<void>;
  update(table: string, key: Item, expression: string, values: Item): Promise<void>;
  mapping(): Promise<{ state?: string; batchSize?: number; maxConcurrency?: number }>;
  /** `maxConcurrency` undefined: no ScalingConfig (an empty one removes it). */
  setMapping(settings: { enabled: boolean; batchSize: number; maxConcurrency?: number }): Promise<void>;
  /** Every notification published so far (the SNS envelope's Message, parsed). */
  notifications(): Promise<Record<string, unknown>[]>;
  /** The values the machine published for this metric of the pipeline's queue (the alarms' series). */
  metricValues(metricName: string): Promise<number[]>;
  stop(): Promise<void>;
}

/** Polls `read` every 100 ms until it returns a value; fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  read: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await read();
    if (value !== undefined && value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export async function startOperations(
  props: Partial<PoisonQuarantineProps> = {},
): Promise<OperationsFixture> {
  const template = synthPipeline(props, undefined, { bundle: true }).template.toJSON() as CfnTemplate;
  const aws = await startLocalAws();
  try {
    return await deploy(aws, template);
  } catch (error) {
    await aws.stop();
    throw error;
  }
}

async function deploy(aws: LocalAws, template: CfnTemplate): Promise<OperationsFixture> {
  const clients = createClients({
    endpoint: aws.endpoint,
    region: aws.region,
    credentials: LOCAL_CREDENTIALS,
  });
  const stack = await deployTemplate(template, { clients, region: aws.region, stackName: 'ops' });
  const consumer = stack.functions.find((fn) => fn.environment[ENV.controlTable] !== undefined);
  // The template names each machine in the consumer's environment; its account and region are
  // the test's (synthPipeline), so the deployed machine is found by its name.
  const deployed = (variable: string) => {
    const name = consumer?.environment[variable]?.split(':').at(-1);
    return stack.stateMachines.find((machine) => machine.arn.endsWith(`:stateMachine:${name}`))?.arn;
  };
  const pause = deployed(ENV.pauseStateMachineArn);
  const verification = deployed(ENV.verificationStateMachineArn);
  const [mapping] = stack.eventSourceMappings;
  const topic = Object.values(stack.resources).find((resource) => resource.type === 'AWS::SNS::Topic');
  if (!consumer || !pause || !verification || !mapping || !topic) {
    throw new Error('the deployed template lacks a part');
  }
  const stateMachines: StateMachineArns = { pause, verification };

  // A queue subscribed to the topic: what operators would receive.
  const { QueueUrl } = await clients.sqs.send(new CreateQueueCommand({ QueueName: 'ops-notifications' }));
  const alertsUrl = String(QueueUrl);
  const { Attributes } = await clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: alertsUrl, AttributeNames: ['QueueArn'] }),
  );
  await clients.sns.send(
    new SubscribeCommand({ TopicArn: topic.physicalId, Protocol: 'sqs', Endpoint: Attributes?.QueueArn }),
  );
  const received: Record<string, unknown>[] = [];

  const { dynamodb, lambda, sfn } = clients;
  const fixture: OperationsFixture = {
    clients,
    stateMachines,
    mappingUuid: mapping.uuid,
    tables: {
      quarantine: consumer.environment[ENV.quarantineTable],
      attempts: consumer.environment[ENV.attemptsTable],
      control: consumer.environment[ENV.controlTable],
    },
    async start(machine, name, input) {
      const { executionArn } = await sfn.send(
        new StartExecutionCommand({
          stateMachineArn: stateMachines[machine],
          name,
          input: JSON.stringify(input),
        }),
      );
      return String(executionArn);
    },
    async finished(executionArn, timeoutMs = 20_000) {
      return eventually(
        `${executionArn} to finish`,
        async () => {
          const execution = await sfn.send(new DescribeExecutionCommand({ executionArn }));
          return execution.status === 'RUNNING' ? undefined : execution;
        },
        timeoutMs,
      );
    },
    async status(executionArn) {
      return (await sfn.send(new DescribeExecutionCommand({ executionArn }))).status;
    },
    async stopRunning() {
      for (const stateMachineArn of Object.values(stateMachines)) {
        const { executions } = await sfn.send(
          new ListExecutionsCommand({ stateMachineArn, statusFilter: 'RUNNING' }),
        );
        for (const execution of executions ?? []) {
          await sfn.send(new StopExecutionCommand({ executionArn: execution.executionArn }));
        }
      }
    },
    async getItem(table, key) {
      const { Item } = await dynamodb.send(
        new GetItemCommand({ TableName: table, Key: key as never, ConsistentRead: true }),
      );
      return Item as Item | undefined;
    },
    async putItem(table, item) {
      await dynamodb.send(new PutItemCommand({ TableName: table, Item: item as never }));
    },
    async update(table, key, expression, values) {
      await dynamodb.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key as never,
          UpdateExpression: expression,
          ExpressionAttributeValues: values as never,
        }),
      );
    },
    async mapping() {
      const found = await lambda.send(new GetEventSourceMappingCommand({ UUID: mapping.uuid }));
      return {
        state: found.State,
        batchSize: found.BatchSize,
        maxConcurrency: found.ScalingConfig?.MaximumConcurrency,
      };
    },
    async setMapping({ enabled, batchSize, maxConcurrency }) {
      await lambda.send(
        new UpdateEventSourceMappingCommand({
          UUID: mapping.uuid,
          Enabled: enabled,
          BatchSize: batchSize,
          ScalingConfig: maxConcurrency === undefined ? {} : { MaximumConcurrency: maxConcurrency },
        }),
      );
    },
    async metricValues(metricName) {
      const cloudwatch = new CloudWatchClient({
        endpoint: aws.endpoint,
        region: aws.region,
        credentials: LOCAL_CREDENTIALS,
      });
      const now = Date.now();
      const { Datapoints } = await cloudwatch.send(
        new GetMetricStatisticsCommand({
          Namespace: METRIC_NAMESPACE,
          MetricName: metricName,
          Dimensions: [{ Name: 'Queue', Value: consumer.environment[ENV.sourceQueueArn] }],
          StartTime: new Date(now - 3_600_000),
          EndTime: new Date(now + 60_000),
          Period: 60,
          Statistics: ['Maximum'],
        }),
      );
      return (Datapoints ?? []).map((point) => Number(point.Maximum));
    },
    async notifications() {
      for (;;) {
        const { Messages } = await clients.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: alertsUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 0,
            // Read once: never visible again.
            VisibilityTimeout: 43_200,
          }),
        );
        if (!Messages?.length) return received;
        for (const message of Messages) {
          const envelope = JSON.parse(String(message.Body)) as { Message: string };
          received.push(JSON.parse(envelope.Message) as Record<string, unknown>);
        }
      }
    },
    stop: () => aws.stop(),
  };
  return fixture;
}
