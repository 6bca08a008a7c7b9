/**
 * One factory for every AWS SDK v3 client the local runner, the CLI and the tests use: the
 * consumer's own clients (consumer-clients.ts) plus those the consumer never calls.
 */
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SNSClient } from '@aws-sdk/client-sns';
import { STSClient } from '@aws-sdk/client-sts';
import { type ClientOptions, clientConfig } from './client-config';
import { type ConsumerClients, createConsumerClients } from './consumer-clients';

export interface AwsClients extends ConsumerClients {
  readonly sns: SNSClient;
  readonly lambda: LambdaClient;
  readonly sts: STSClient;
  /**
   * Made, and its SDK package loaded, on first use: only `pq status` and the console read
   * CloudWatch (the queue's oldest message age), so no other command loads it.
   */
  cloudwatch(): Promise<CloudWatchClient>;
}

export function createClients(options: ClientOptions = {}): AwsClients {
  const common = clientConfig(options);
  let cloudwatch: Promise<CloudWatchClient> | undefined;
  return {
    ...createConsumerClients(options),
    sns: new SNSClient(common),
    lambda: new LambdaClient(common),
    sts: new STSClient(common),
    cloudwatch: () => {
      cloudwatch ??= import('@aws-sdk/client-cloudwatch').then(
        ({ CloudWatchClient }) => new CloudWatchClient(common),
      );
      return cloudwatch;
    },
  };
}
