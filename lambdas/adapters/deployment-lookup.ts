/**
 * What the operator CLI asks AWS to find a deployment (cli/deployment.ts): the consumer function's
 * environment, the event source mappings that feed it, and who is calling. Every SDK failure
 * leaves as a DeploymentLookupError; a function that does not exist is an answer, not an error.
 */
import {
  GetFunctionConfigurationCommand,
  type LambdaClient,
  ListEventSourceMappingsCommand,
} from '@aws-sdk/client-lambda';
import { GetCallerIdentityCommand, type STSClient } from '@aws-sdk/client-sts';
import { DeploymentLookupError } from '../ports/errors';
import { guarded } from './conditional-writes';
import { describeSdkError, isSdkError } from './sdk-errors';

export interface MappingInfo {
  readonly uuid: string;
  /** Lambda's words: Enabled, Disabled, Enabling, Disabling, Updating... */
  readonly state: string;
  readonly batchSize?: number;
  readonly maximumConcurrency?: number;
}

/** The function's environment variables; undefined when there is no such function. */
export async function functionEnvironment(
  lambda: LambdaClient,
  functionName: string,
): Promise<Record<string, string> | undefined> {
  try {
    const result = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: functionName }));
    return result.Environment?.Variables ?? {};
  } catch (error) {
    if (isSdkError(error, 'ResourceNotFoundException')) return undefined;
    throw new DeploymentLookupError(
      `Lambda function ${functionName}: configuration not read: ${describeSdkError(error)}`,
      { cause: error },
    );
  }
}

/**
 * The mapping that reads the source queue. A function may have others (or, in the embedded local
 * AWS, one on a decoy queue): the source queue's wins, else the only one.
 */
export async function sourceQueueMapping(
  lambda: LambdaClient,
  functionName: string,
  sourceQueueArn: string,
): Promise<MappingInfo | undefined> {
  const { EventSourceMappings = [] } = await guarded(
    () => lambda.send(new ListEventSourceMappingsCommand({ FunctionName: functionName })),
    (error) =>
      new DeploymentLookupError(
        `Lambda function ${functionName}: event source mappings not listed: ${describeSdkError(error)}`,
        { cause: error },
      ),
  );
  const mapping =
    EventSourceMappings.find((candidate) => candidate.EventSourceArn === sourceQueueArn) ??
    (EventSourceMappings.length === 1 ? EventSourceMappings[0] : undefined);
  if (mapping?.UUID === undefined) return undefined;
  return {
    uuid: mapping.UUID,
    state: mapping.State ?? 'unknown',
    ...(mapping.BatchSize === undefined ? {} : { batchSize: mapping.BatchSize }),
    ...(mapping.ScalingConfig?.MaximumConcurrency === undefined
      ? {}
      : { maximumConcurrency: mapping.ScalingConfig.MaximumConcurrency }),
  };
}

/** The caller's ARN (STS GetCallerIdentity); undefined when STS answers without one. */
export async function callerArn(sts: STSClient): Promise<string | undefined> {
  const { Arn } = await guarded(
    () => sts.send(new GetCallerIdentityCommand({})),
    (error) =>
      new DeploymentLookupError(`STS GetCallerIdentity failed: ${describeSdkError(error)}`, { cause: error }),
  );
  return Arn;
}
