/**
 * One factory for every AWS SDK v3 client the runtime, the local runner and the CLI use.
 * `endpoint` points all of them at the embedded local AWS or LocalStack; without it the SDK's
 * own resolution applies (AWS_ENDPOINT_URL included).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { STSClient } from '@aws-sdk/client-sts';

export interface ClientOptions {
  readonly region?: string;
  readonly endpoint?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

export interface AwsClients {
  readonly dynamodb: DynamoDBClient;
  readonly s3: S3Client;
  readonly sqs: SQSClient;
  readonly sfn: SFNClient;
  readonly sns: SNSClient;
  readonly lambda: LambdaClient;
  readonly sts: STSClient;
}

export function createClients(options: ClientOptions = {}): AwsClients {
  const common = {
    ...(options.region ? { region: options.region } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  };
  return {
    dynamodb: new DynamoDBClient(common),
    // Path-style addressing: local endpoints have no per-bucket DNS names.
    s3: new S3Client({ ...common, forcePathStyle: Boolean(options.endpoint) }),
    sqs: new SQSClient(common),
    sfn: new SFNClient(common),
    sns: new SNSClient(common),
    lambda: new LambdaClient(common),
    sts: new STSClient(common),
  };
}
