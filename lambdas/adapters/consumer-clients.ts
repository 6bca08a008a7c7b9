/**
 * The AWS SDK v3 clients the consumer calls, and no others, made at once for the CLI, the local
 * AWS and the tests (clients.ts). The consumer itself makes each where it is needed: the DynamoDB
 * client at its cold start, the others with the rare path that uses them (connect-*.ts).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ClientOptions } from './client-config';
import { dynamodbClient } from './dynamodb-client';
import { s3Client } from './s3-client';
import { sfnClient } from './sfn-client';
import { sqsClient } from './sqs-client';

export interface ConsumerClients {
  readonly dynamodb: DynamoDBClient;
  readonly s3: S3Client;
  readonly sqs: SQSClient;
  readonly sfn: SFNClient;
}

export function createConsumerClients(options: ClientOptions = {}): ConsumerClients {
  return {
    dynamodb: dynamodbClient(options),
    s3: s3Client(options),
    sqs: sqsClient(options),
    sfn: sfnClient(options),
  };
}
