/**
 * AWS::Lambda::EventSourceMapping -> CreateEventSourceMapping on a decoy queue.
 *
 * An ENABLED mapping makes moto receive from its queue on every SendMessage and invoke the
 * function, which cannot run without Docker: the messages vanish or come back with a raised
 * receive count. So moto's mapping points at an empty `<queue>-esm-decoy` queue, and the project's
 * local runner polls the real queue, reading the mapping's state (enabled, batch size, scaling)
 * from moto, where the state machine toggles it. A Kafka mapping (MSK or self-managed) is one moto
 * cannot make at all: it becomes a mapping on a `<topic>-kafka-esm-decoy` queue in the same way,
 * whose state the local Kafka runner reads, with the Kafka source kept beside it.
 */
import { CreateEventSourceMappingCommand, type FunctionResponseType } from '@aws-sdk/client-lambda';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { LocalDeployError } from './errors';
import type { Properties } from './properties';
import type { CreateContext, InstantiatedType } from './resource-type';
import { queueArn } from './sqs';
import type { LocalKafkaSource } from './types';

/** Lambda's defaults for an SQS source. */
const DEFAULT_BATCH_SIZE = 10;
const DEFAULT_BATCHING_WINDOW_SECONDS = 0;
const MAX_QUEUE_NAME = 80;

export const lambdaEventSourceMapping: InstantiatedType = {
  applies: [
    'FunctionName',
    'EventSourceArn',
    'BatchSize',
    'MaximumBatchingWindowInSeconds',
    'ScalingConfig',
    'FunctionResponseTypes',
    'Enabled',
    'FilterCriteria',
    'Topics',
    'StartingPosition',
    'SelfManagedEventSource',
    'SelfManagedKafkaEventSourceConfig',
    'AmazonManagedKafkaEventSourceConfig',
  ],
  ignores: {
    MetricsConfig: 'no metrics flow locally',
    Tags: 'tags carry no behaviour locally',
    ProvisionedPollerConfig: 'the local Kafka runner is one poller whatever the mode',
    SourceAccessConfigurations: 'the embedded broker takes no authentication and has no VPC',
  },
  async create(properties, context) {
    const kafka = kafkaSourceOf(properties);
    const eventSourceArn = properties.string('EventSourceArn') ?? '';
    const decoy = await createDecoyQueue(
      kafka === undefined ? sourceQueueName(properties, eventSourceArn) : `${kafka.topic}-kafka`,
      context,
    );
    const functionName = properties.requiredString('FunctionName');
    const batchSize = properties.number('BatchSize') ?? DEFAULT_BATCH_SIZE;
    const maximumBatchingWindowInSeconds =
      properties.number('MaximumBatchingWindowInSeconds') ?? DEFAULT_BATCHING_WINDOW_SECONDS;
    const scaling = properties.object('ScalingConfig') as { MaximumConcurrency?: number } | undefined;
    const functionResponseTypes = (properties.list('FunctionResponseTypes') ?? []) as FunctionResponseType[];
    const enabled = properties.boolean('Enabled') ?? true;
    const { UUID, EventSourceMappingArn } = await context.clients.lambda.send(
      new CreateEventSourceMappingCommand({
        FunctionName: functionName,
        EventSourceArn: decoy.arn,
        BatchSize: batchSize,
        MaximumBatchingWindowInSeconds: maximumBatchingWindowInSeconds,
        ScalingConfig: scaling,
        FunctionResponseTypes: functionResponseTypes,
        Enabled: enabled,
        FilterCriteria: properties.object('FilterCriteria'),
      }),
    );
    const uuid = String(UUID);
    return {
      physicalId: uuid,
      attributes: { Ref: uuid, Id: uuid, EventSourceMappingArn: String(EventSourceMappingArn) },
      eventSourceMapping: {
        logicalId: context.logicalId,
        uuid,
        functionName,
        eventSourceArn,
        decoyQueueUrl: decoy.url,
        batchSize,
        maximumBatchingWindowInSeconds,
        maximumConcurrency: scaling?.MaximumConcurrency,
        functionResponseTypes,
        enabled,
        ...(kafka === undefined ? {} : { kafka }),
      },
    };
  },
};

/** A Kafka mapping's topic, servers, group and starting position; undefined for any other source. */
function kafkaSourceOf(properties: Properties): LocalKafkaSource | undefined {
  const topics = properties.list('Topics');
  if (topics === undefined) return undefined;
  const [topic] = topics;
  if (topics.length !== 1 || typeof topic !== 'string') {
    throw new LocalDeployError(
      `${properties.where}: a Kafka mapping reads one topic (given ${JSON.stringify(topics)})`,
    );
  }
  const selfManaged = properties.object('SelfManagedEventSource') as
    | { Endpoints?: { KafkaBootstrapServers?: string[] } }
    | undefined;
  const groupConfig = (properties.object('SelfManagedKafkaEventSourceConfig') ??
    properties.object('AmazonManagedKafkaEventSourceConfig')) as { ConsumerGroupId?: string } | undefined;
  const position = properties.string('StartingPosition') ?? 'TRIM_HORIZON';
  if (position !== 'TRIM_HORIZON' && position !== 'LATEST') {
    throw new LocalDeployError(`${properties.where}: StartingPosition ${position} is not played locally`);
  }
  return {
    topic,
    bootstrapServers: selfManaged?.Endpoints?.KafkaBootstrapServers ?? [],
    ...(groupConfig?.ConsumerGroupId === undefined ? {} : { consumerGroupId: groupConfig.ConsumerGroupId }),
    startingPosition: position,
  };
}

function sourceQueueName(properties: Properties, eventSourceArn: string): string {
  const [, , service, , , name] = eventSourceArn.split(':');
  if (service !== 'sqs' || !name) {
    throw new LocalDeployError(
      `${properties.where}: only SQS event sources are supported locally (given ${eventSourceArn})`,
    );
  }
  return name;
}

/** `<queue>-esm-decoy`, keeping `.fifo` last and the whole within SQS's 80 characters. */
function decoyName(queueName: string): string {
  const fifo = queueName.endsWith('.fifo');
  const suffix = `-esm-decoy${fifo ? '.fifo' : ''}`;
  const base = fifo ? queueName.slice(0, -'.fifo'.length) : queueName;
  return base.slice(0, MAX_QUEUE_NAME - suffix.length) + suffix;
}

async function createDecoyQueue(
  queueName: string,
  context: CreateContext,
): Promise<{ url: string; arn: string }> {
  const { QueueUrl } = await context.clients.sqs.send(
    new CreateQueueCommand({
      QueueName: decoyName(queueName),
      Attributes: queueName.endsWith('.fifo') ? { FifoQueue: 'true' } : undefined,
    }),
  );
  const url = String(QueueUrl);
  return { url, arn: await queueArn(context.clients.sqs, url) };
}
