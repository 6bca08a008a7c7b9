/**
 * One factory for every AWS SDK v3 client the local runner, the CLI and the tests use: the
 * consumer's own clients (consumer-clients.ts) plus those the consumer never calls.
 */
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SNSClient } from '@aws-sdk/client-sns';
import { STSClient } from '@aws-sdk/client-sts';
import {
  type ClientOptions,
  type ConsumerClients,
  clientConfig,
  createConsumerClients,
} from './consumer-clients';

export interface AwsClients extends ConsumerClients {
  readonly sns: SNSClient;
  readonly lambda: LambdaClient;
  readonly sts: STSClient;
}

export function createClients(options: ClientOptions = {}): AwsClients {
  const common = clientConfig(options);
  return {
    ...createConsumerClients(options),
    sns: new SNSClient(common),
    lambda: new LambdaClient(common),
    sts: new STSClient(common),
  };
}
