/**
 * The SQS client, a module of its own: esbuild splits the consumer's bundle by file, so this
 * client loads only with the chunk that needs it (connect-*.ts), never at a cold start.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { type ClientOptions, clientConfig } from './client-config';

export function sqsClient(options: ClientOptions = {}): SQSClient {
  return new SQSClient(clientConfig(options));
}
