/**
 * AWS::Lambda::Function -> CreateFunction with an empty placeholder archive: moto cannot run code
 * without Docker, and the project's local runner runs the real code from the asset directory. The
 * function still exists in moto so that mappings, ARNs and GetFunction answer as on AWS.
 */
import { resolve } from 'node:path';
import {
  type Architecture,
  CreateFunctionCommand,
  PutFunctionConcurrencyCommand,
  type Runtime,
} from '@aws-sdk/client-lambda';
import type { CreateContext, InstantiatedType } from './resource-type';

/** The smallest valid zip archive: an end-of-central-directory record and nothing else. */
const EMPTY_ZIP = Buffer.from(`504b0506${'00'.repeat(18)}`, 'hex');

const DEFAULT_TIMEOUT_SECONDS = 3;
const DEFAULT_MEMORY_MIB = 128;

export const lambdaFunction: InstantiatedType = {
  applies: [
    'FunctionName',
    'Role',
    'Handler',
    'Runtime',
    'Timeout',
    'MemorySize',
    'Environment',
    'Architectures',
    'Description',
    'Tags',
    'ReservedConcurrentExecutions',
  ],
  ignores: {
    Code: 'replaced by an empty archive: the local runner runs the asset directory',
    LoggingConfig: 'nothing runs in moto that logs',
    TracingConfig: 'no traces are collected locally',
    DeadLetterConfig: 'only asynchronous invocations use it, and nothing invokes asynchronously locally',
    EphemeralStorage: 'the local runner sets no /tmp quota',
    KmsKeyArn: 'moto does not encrypt environment variables',
  },
  async create(properties, context) {
    const functionName = properties.string('FunctionName') ?? context.generatedName({ maxLength: 64 });
    const handler = properties.requiredString('Handler');
    const runtime = properties.requiredString('Runtime');
    const timeoutSeconds = properties.number('Timeout') ?? DEFAULT_TIMEOUT_SECONDS;
    const memoryMiB = properties.number('MemorySize') ?? DEFAULT_MEMORY_MIB;
    const variables = (properties.object('Environment')?.Variables ?? {}) as Record<string, unknown>;
    const environment = Object.fromEntries(
      Object.entries(variables).map(([name, value]) => [name, String(value)]),
    );
    const { FunctionArn } = await context.clients.lambda.send(
      new CreateFunctionCommand({
        FunctionName: functionName,
        Role: properties.requiredString('Role'),
        Handler: handler,
        Runtime: runtime as Runtime,
        Timeout: timeoutSeconds,
        MemorySize: memoryMiB,
        Environment: { Variables: environment },
        Architectures: properties.list('Architectures') as Architecture[] | undefined,
        Description: properties.string('Description'),
        Tags: properties.tags(),
        Code: { ZipFile: EMPTY_ZIP },
      }),
    );
    const reserved = properties.number('ReservedConcurrentExecutions');
    if (reserved !== undefined) {
      await context.clients.lambda.send(
        new PutFunctionConcurrencyCommand({
          FunctionName: functionName,
          ReservedConcurrentExecutions: reserved,
        }),
      );
    }
    const arn = String(FunctionArn);
    return {
      physicalId: functionName,
      attributes: { Ref: functionName, Arn: arn },
      function: {
        logicalId: context.logicalId,
        functionName,
        arn,
        handler,
        runtime,
        timeoutSeconds,
        memoryMiB,
        environment,
        assetPath: assetPath(context),
      },
    };
  },
};

function assetPath(context: CreateContext): string | undefined {
  return context.assemblyDir === undefined ? undefined : codeAssetPath(context.metadata, context.assemblyDir);
}

/** CDK records the code asset's directory in the resource Metadata, relative to the cloud assembly. */
export function codeAssetPath(
  metadata: Readonly<Record<string, unknown>>,
  assemblyDir: string,
): string | undefined {
  const path = metadata['aws:asset:path'];
  if (typeof path !== 'string' || metadata['aws:asset:property'] !== 'Code') return undefined;
  return resolve(assemblyDir, path);
}
