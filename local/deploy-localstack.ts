/**
 * `npm run local:deploy -- --target localstack`: the demo stack deployed by the embedded
 * LocalStack's own CloudFormation (tools/localstack), its resources and outputs printed. Nothing
 * consumes the queue there yet: LocalStack cannot run the function without Docker, and our
 * event-source runner is not yet fed from a LocalStack deployment (issue 20).
 */
import { CloudFormationClient, DescribeStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { LOCAL_CREDENTIALS } from '../tools/local-aws/moto';
import { deployOnLocalStack } from '../tools/localstack/cdk-deploy';
import { ensureLocalStack } from '../tools/localstack/ensure-localstack.mjs';
import { type EmbeddedLocalStack, startLocalStack } from '../tools/localstack/localstack';
import type { DemoAssembly } from './demo-assembly';

export interface LocalStackDeployment {
  readonly localstack: EmbeddedLocalStack;
  /** Type, logical id, physical id and status of every resource, sorted by type. */
  readonly resources: readonly (readonly [string, string, string, string])[];
  readonly outputs: Readonly<Record<string, string>>;
}

/** Starts the embedded LocalStack and deploys the demo stack; the caller stops `localstack`. */
export async function deployDemoOnLocalStack(
  assembly: DemoAssembly,
  stackName: string,
  signal: AbortSignal,
): Promise<LocalStackDeployment> {
  ensureLocalStack();
  const dir = assembly.synthesize(stackName, undefined);
  signal.throwIfAborted();
  const localstack = await startLocalStack();
  try {
    signal.throwIfAborted();
    const { outputs } = await deployOnLocalStack(localstack, dir, stackName);
    const cloudformation = new CloudFormationClient({
      endpoint: localstack.endpoint,
      region: localstack.region,
      credentials: LOCAL_CREDENTIALS,
    });
    const { StackResources = [] } = await cloudformation.send(
      new DescribeStackResourcesCommand({ StackName: stackName }),
    );
    const resources = StackResources.map(
      (resource) =>
        [
          resource.ResourceType ?? '',
          resource.LogicalResourceId ?? '',
          resource.PhysicalResourceId ?? '',
          resource.ResourceStatus ?? '',
        ] as const,
    ).sort((a, b) => a[0].localeCompare(b[0]) || a[1].localeCompare(b[1]));
    return { localstack, resources, outputs };
  } catch (error) {
    await localstack.stop();
    throw error;
  }
}

export function localStackReport(deployment: LocalStackDeployment): string {
  const rows = deployment.resources;
  const width = (column: number) => Math.max(...rows.map((row) => row[column].length));
  const table = rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(width(column)))
      .join('  ')
      .trimEnd(),
  );
  const outputs = Object.entries(deployment.outputs).map(([name, value]) => `  ${name} = ${value}`);
  return [
    ...table,
    '',
    `LocalStack:     ${deployment.localstack.endpoint} (region ${deployment.localstack.region}, embedded: no Docker)`,
    'Outputs:',
    ...outputs,
    'Nothing consumes the queue here yet: the embedded LocalStack cannot run the function, and the',
    'local event-source runner does not yet run on a LocalStack deployment (issue 20). Use the default',
    'target (moto) to try the consumer.',
    '',
  ].join('\n');
}
