/**
 * A stack LocalStack's CloudFormation deployed, read back in the shape the local tools take from
 * our own moto deployer (tools/local-aws/deploy, `LocalStack`): its resources, the functions'
 * settings as Lambda holds them (the environment resolved by CloudFormation, not by us), the
 * event source mappings' UUIDs and the state machines, so that the event-source runner and the
 * rehearsal run unchanged on either.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import {
  GetFunctionConfigurationCommand,
  LambdaClient,
  ListEventSourceMappingsCommand,
} from '@aws-sdk/client-lambda';
import { DescribeStateMachineCommand, SFNClient } from '@aws-sdk/client-sfn';
import { type CfnTemplate, findStack, type LocalStack } from '../local-aws/deploy';
import { codeAssetPath } from '../local-aws/deploy/lambda-function';
import type { DeployedResource, LocalEventSourceMapping, LocalFunction } from '../local-aws/deploy/types';
import { LOCAL_CREDENTIALS } from '../local-aws/moto';
import { LOCALSTACK_ACCOUNT, type LocalStackEndpoint } from './localstack';

export async function readDeployedStack(
  localstack: LocalStackEndpoint,
  assemblyDir: string,
  stackName: string,
  outputs: Readonly<Record<string, string>>,
): Promise<LocalStack> {
  const config = { endpoint: localstack.endpoint, region: localstack.region, credentials: LOCAL_CREDENTIALS };
  const lambda = new LambdaClient(config);
  const template = JSON.parse(
    readFileSync(join(assemblyDir, findStack(assemblyDir, stackName).templateFile), 'utf8'),
  ) as CfnTemplate;
  const { StackResources = [] } = await new CloudFormationClient(config).send(
    new DescribeStackResourcesCommand({ StackName: stackName }),
  );
  const resources: Record<string, DeployedResource> = Object.fromEntries(
    StackResources.map((resource) => [
      resource.LogicalResourceId ?? '',
      { type: resource.ResourceType ?? '', physicalId: resource.PhysicalResourceId ?? '', attributes: {} },
    ]),
  );
  const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.type === type);
  const functions = await Promise.all(
    ofType('AWS::Lambda::Function').map(([logicalId, { physicalId }]) =>
      readFunction(
        lambda,
        logicalId,
        physicalId,
        codeAssetPath(template.Resources?.[logicalId]?.Metadata ?? {}, assemblyDir),
      ),
    ),
  );
  const mappings = (
    await Promise.all(functions.map((fn) => readMappings(lambda, fn.functionName, resources)))
  ).flat();
  const sfn = new SFNClient(config);
  const stateMachines = await Promise.all(
    ofType('AWS::StepFunctions::StateMachine').map(async ([logicalId, { physicalId }]) => {
      const { definition = '' } = await sfn.send(
        new DescribeStateMachineCommand({ stateMachineArn: physicalId }),
      );
      return { logicalId, arn: physicalId, definition };
    }),
  );
  return {
    stackName,
    region: localstack.region,
    accountId: LOCALSTACK_ACCOUNT,
    resources,
    functions,
    eventSourceMappings: mappings,
    stateMachines,
    outputs,
  };
}

async function readFunction(
  lambda: LambdaClient,
  logicalId: string,
  functionName: string,
  assetPath: string | undefined,
): Promise<LocalFunction> {
  const fn = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: functionName }));
  return {
    logicalId,
    functionName,
    arn: fn.FunctionArn ?? '',
    handler: fn.Handler ?? '',
    runtime: fn.Runtime ?? '',
    timeoutSeconds: fn.Timeout ?? 3,
    memoryMiB: fn.MemorySize ?? 128,
    environment: fn.Environment?.Variables ?? {},
    ...(assetPath === undefined ? {} : { assetPath }),
  };
}

async function readMappings(
  lambda: LambdaClient,
  functionName: string,
  resources: Readonly<Record<string, DeployedResource>>,
): Promise<LocalEventSourceMapping[]> {
  const { EventSourceMappings = [] } = await lambda.send(
    new ListEventSourceMappingsCommand({ FunctionName: functionName }),
  );
  return EventSourceMappings.map((mapping) => ({
    logicalId:
      Object.entries(resources).find(
        ([, resource]) =>
          resource.type === 'AWS::Lambda::EventSourceMapping' && resource.physicalId === mapping.UUID,
      )?.[0] ?? '',
    uuid: mapping.UUID ?? '',
    functionName,
    eventSourceArn: mapping.EventSourceArn ?? '',
    // LocalStack's own poller is off (localstack-launcher.py): no decoy queue is needed.
    decoyQueueUrl: '',
    batchSize: mapping.BatchSize ?? 10,
    maximumBatchingWindowInSeconds: mapping.MaximumBatchingWindowInSeconds ?? 0,
    ...(mapping.ScalingConfig?.MaximumConcurrency === undefined
      ? {}
      : { maximumConcurrency: mapping.ScalingConfig.MaximumConcurrency }),
    functionResponseTypes: mapping.FunctionResponseTypes ?? [],
    enabled: mapping.State === 'Enabled' || mapping.State === 'Enabling',
  }));
}
