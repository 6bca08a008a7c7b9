/** AWS::SQS::Queue -> CreateQueue. The template's property names are SQS's attribute names. */
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { InstantiatedType } from './resource-type';

const QUEUE_ATTRIBUTES = [
  'FifoQueue',
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
  'DelaySeconds',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'VisibilityTimeout',
  'RedrivePolicy',
  'RedriveAllowPolicy',
  'KmsMasterKeyId',
  'KmsDataKeyReusePeriodSeconds',
  'SqsManagedSseEnabled',
] as const;

export const sqsQueue: InstantiatedType = {
  applies: ['QueueName', 'Tags', ...QUEUE_ATTRIBUTES],
  ignores: {},
  async create(properties, context) {
    const fifo = properties.boolean('FifoQueue') === true;
    const queueName =
      properties.string('QueueName') ?? context.generatedName({ maxLength: 80, suffix: fifo ? '.fifo' : '' });
    const attributes = properties.attributeMap(QUEUE_ATTRIBUTES);
    // SQS refuses FifoQueue=false: a standard queue is one without the attribute.
    if (!fifo) delete attributes.FifoQueue;
    const { QueueUrl } = await context.clients.sqs.send(
      new CreateQueueCommand({ QueueName: queueName, Attributes: attributes, tags: properties.tags() }),
    );
    const queueUrl = required(QueueUrl, queueName);
    const arn = await queueArn(context.clients.sqs, queueUrl);
    return {
      physicalId: queueUrl,
      attributes: { Ref: queueUrl, Arn: arn, QueueUrl: queueUrl, QueueName: queueName },
    };
  },
};

export async function queueArn(sqs: SQSClient, queueUrl: string): Promise<string> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  return required(Attributes?.QueueArn, queueUrl);
}

function required(value: string | undefined, queue: string): string {
  if (!value) throw new Error(`SQS answered without a URL or ARN for queue ${queue}`);
  return value;
}
