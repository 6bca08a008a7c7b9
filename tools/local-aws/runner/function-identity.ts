/**
 * What a function process learns about itself from Lambda: its ARN, log group and stream, and
 * the environment variables the Lambda service sets before the user's own.
 */
import { randomBytes } from 'node:crypto';
import { basename, dirname, extname } from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_CREDENTIALS } from '../moto';
import type { HandlerRef } from './types';

export interface FunctionIdentity {
  readonly functionName: string;
  readonly region: string;
  /** Taken from the queue ARN: the local AWS has one account. */
  readonly accountId: string;
  readonly memoryMiB: number;
  /** Lambda's runtime identifier, e.g. `nodejs24.x`. */
  readonly runtime: string;
  readonly handler: HandlerRef;
  /** The local AWS endpoint, when the runner's clients have one. */
  readonly endpoint?: string;
}

export function accountIdOf(arn: string): string {
  const accountId = arn.split(':')[4];
  if (!accountId) throw new Error(`cannot read an account id from the ARN "${arn}"`);
  return accountId;
}

export function functionArnOf(identity: FunctionIdentity): string {
  return `arn:aws:lambda:${identity.region}:${identity.accountId}:function:${identity.functionName}`;
}

/** Lambda names one log stream per execution environment: `YYYY/MM/DD/[$LATEST]<32 hex>`. */
export function newLogStreamName(now: Date): string {
  const day = now.toISOString().slice(0, 10).replaceAll('-', '/');
  return `${day}/[$LATEST]${randomBytes(16).toString('hex')}`;
}

/**
 * The process environment of one execution environment. It starts empty, not from the runner's
 * own environment, so that a handler depending on a variable Lambda would not set fails here too.
 */
export function functionVariables(
  identity: FunctionIdentity,
  logStreamName: string,
  userVariables: Readonly<Record<string, string>>,
): Record<string, string> {
  const handlerModule = basename(identity.handler.file, extname(identity.handler.file));
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'en_US.UTF-8',
    TZ: 'UTC',
    AWS_REGION: identity.region,
    AWS_DEFAULT_REGION: identity.region,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    ...(identity.endpoint ? { AWS_ENDPOINT_URL: identity.endpoint } : {}),
    AWS_EXECUTION_ENV: `AWS_Lambda_${identity.runtime}`,
    AWS_LAMBDA_FUNCTION_NAME: identity.functionName,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(identity.memoryMiB),
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${identity.functionName}`,
    AWS_LAMBDA_LOG_STREAM_NAME: logStreamName,
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    LAMBDA_TASK_ROOT: dirname(identity.handler.file),
    _HANDLER: `${handlerModule}.${identity.handler.exportName}`,
    ...userVariables,
  };
}

/** The endpoint the runner's own clients use becomes the function's AWS_ENDPOINT_URL. */
export async function endpointOf(sqs: SQSClient): Promise<string | undefined> {
  const endpoint = await sqs.config.endpoint?.();
  if (!endpoint) return undefined;
  const port = endpoint.port ? `:${endpoint.port}` : '';
  return `${endpoint.protocol}//${endpoint.hostname}${port}${endpoint.path === '/' ? '' : endpoint.path}`;
}
