/**
 * AWS::Lambda::EventSourceMapping -> CreateEventSourceMapping on a decoy queue.
 *
 * An ENABLED mapping makes moto receive from its queue on every SendMessage and invoke the
 * function, which cannot run without Docker: the messages vanish or come back with a raised
 * receive count. So moto's mapping points at an empty `<queue>-esm-decoy` queue, and the project's
 * local runner polls the real queue, reading the mapping's state (enabled, batch size, scaling)
 * from moto, where the state machine toggles it.
 */
import { CreateEventSourceMappingCommand, type FunctionResponseType } from '@aws-sdk/client-lambda';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { LocalDeployError } from './errors';
import type { Properties } from './properties';
import type { CreateContext, InstantiatedType } from './resource-type';
import { queueArn } from './sqs';

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
  ],
  ignores: { MetricsConfig: 'no metrics flow locally', Tags: 'tags carry no behaviour locally' },
  async create(properties, context) {
    const eventSourceArn = properties.requiredString('EventSourceArn');
    const decoy = await createDecoyQueue(sourceQueueName(properties, eventSourceArn), context);
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
      },
    };
  },
};

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
