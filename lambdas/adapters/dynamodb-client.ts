/**
 * The one client a consumer's cold start loads (create-consumer.ts): a module of its own, because
 * esbuild splits the bundle by file, and a file that also named the S3, SQS or Step Functions
 * client would bring them into the start.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type ClientOptions, clientConfig } from './client-config';

export function dynamodbClient(options: ClientOptions = {}): DynamoDBClient {
  return new DynamoDBClient(clientConfig(options));
}
