/**
 * The AWS SDK v3 clients the consumer calls, and no others: the consumer's bundle starts from
 * this module, so clients only the CLI, the local AWS or the tests use (clients.ts) stay out of
 * it. `endpoint` points them at the embedded local AWS or LocalStack; without it the SDK's own
 * resolution applies (AWS_ENDPOINT_URL included).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';

export interface ClientOptions {
  readonly region?: string;
  readonly endpoint?: string;
  /** A profile of the shared AWS config and credentials files (the operator's `pq --profile`). */
  readonly profile?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

export interface ConsumerClients {
  readonly dynamodb: DynamoDBClient;
  readonly s3: S3Client;
  readonly sqs: SQSClient;
  readonly sfn: SFNClient;
}

/** The configuration every client shares: only what was given, so the SDK resolves the rest. */
export function clientConfig(options: ClientOptions): ClientOptions {
  return {
    ...(options.region ? { region: options.region } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.profile ? { profile: options.profile } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  };
}

export function createConsumerClients(options: ClientOptions = {}): ConsumerClients {
  const common = clientConfig(options);
  return {
    dynamodb: new DynamoDBClient(common),
    // Path-style addressing: local endpoints have no per-bucket DNS names.
    s3: new S3Client({ ...common, forcePathStyle: Boolean(options.endpoint) }),
    sqs: new SQSClient(common),
    sfn: new SFNClient(common),
  };
}
