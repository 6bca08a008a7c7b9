/**
 * The source queue's adapter with its own SQS client. The consumer loads this module, a chunk of
 * its own, when it first hands a message back or acknowledges one early (create-consumer.ts).
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ClientOptions } from './client-config';
import { SourceQueue } from './source-queue';
import { sqsClient } from './sqs-client';

export function connectSourceQueue(
  options: ClientOptions,
  queueUrl: string,
): { readonly client: SQSClient; readonly adapter: SourceQueue } {
  const client = sqsClient(options);
  return { client, adapter: new SourceQueue(client, queueUrl) };
}
