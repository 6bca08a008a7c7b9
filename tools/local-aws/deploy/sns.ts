/** AWS::SNS::Topic -> CreateTopic (inline subscriptions included); AWS::SNS::Subscription -> Subscribe. */
import { CreateTopicCommand, type SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import type { InstantiatedType } from './resource-type';

const TOPIC_ATTRIBUTES = [
  'FifoTopic',
  'ContentBasedDeduplication',
  'KmsMasterKeyId',
  'DisplayName',
  'SignatureVersion',
];
const SUBSCRIPTION_ATTRIBUTES = [
  'RawMessageDelivery',
  'FilterPolicy',
  'FilterPolicyScope',
  'RedrivePolicy',
  'DeliveryPolicy',
];

export const snsTopic: InstantiatedType = {
  applies: ['TopicName', 'Tags', 'Subscription', ...TOPIC_ATTRIBUTES],
  ignores: {
    TracingConfig: 'no traces are collected locally',
    DeliveryStatusLogging: 'nothing logs locally',
    DataProtectionPolicy: 'moto does not apply data protection policies',
  },
  async create(properties, context) {
    const fifo = properties.boolean('FifoTopic') === true;
    const name =
      properties.string('TopicName') ??
      context.generatedName({ maxLength: 256, suffix: fifo ? '.fifo' : '' });
    const { TopicArn } = await context.clients.sns.send(
      new CreateTopicCommand({
        Name: name,
        Attributes: properties.attributeMap(TOPIC_ATTRIBUTES),
        Tags: properties.list('Tags') as { Key: string; Value: string }[] | undefined,
      }),
    );
    const topicArn = String(TopicArn);
    for (const subscription of (properties.list('Subscription') ?? []) as {
      Protocol: string;
      Endpoint: string;
    }[]) {
      await subscribe(context.clients.sns, topicArn, subscription.Protocol, subscription.Endpoint, {});
    }
    return { physicalId: topicArn, attributes: { Ref: topicArn, TopicArn: topicArn, TopicName: name } };
  },
};

export const snsSubscription: InstantiatedType = {
  applies: ['TopicArn', 'Protocol', 'Endpoint', ...SUBSCRIPTION_ATTRIBUTES],
  ignores: { Region: 'the local AWS is one region' },
  async create(properties, context) {
    const subscriptionArn = await subscribe(
      context.clients.sns,
      properties.requiredString('TopicArn'),
      properties.requiredString('Protocol'),
      properties.string('Endpoint'),
      properties.attributeMap(SUBSCRIPTION_ATTRIBUTES),
    );
    return { physicalId: subscriptionArn, attributes: { Ref: subscriptionArn, Arn: subscriptionArn } };
  },
};

async function subscribe(
  sns: SNSClient,
  topicArn: string,
  protocol: string,
  endpoint: string | undefined,
  attributes: Record<string, string>,
): Promise<string> {
  const { SubscriptionArn } = await sns.send(
    new SubscribeCommand({
      TopicArn: topicArn,
      Protocol: protocol,
      Endpoint: endpoint,
      Attributes: attributes,
      ReturnSubscriptionArn: true,
    }),
  );
  return String(SubscriptionArn);
}
