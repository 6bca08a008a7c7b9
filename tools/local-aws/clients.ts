/**
 * The AWS SDK clients the local AWS tools call, pointed at the local AWS. Any object holding
 * them will do: the tools take no client factory of their own.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { STSClient } from '@aws-sdk/client-sts';

export interface LocalAwsClients {
  readonly dynamodb: DynamoDBClient;
  readonly s3: S3Client;
  readonly sqs: SQSClient;
  readonly sfn: SFNClient;
  readonly sns: SNSClient;
  readonly lambda: LambdaClient;
  readonly sts: STSClient;
}
