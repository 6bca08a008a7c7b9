/**
 * `cdk deploy` into the embedded LocalStack, as a user's `cdklocal deploy` does it: the CDK
 * CLI of this project (aws-cdk), every AWS call sent to LocalStack's gateway by the SDK's
 * AWS_ENDPOINT_URL (which is all aws-cdk-local sets, besides a DNS name this host cannot resolve).
 * LocalStack's own CloudFormation engine creates the stack, so the template is deployed by an
 * engine someone else wrote, not instantiated by our moto deployer (tools/local-aws/deploy).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CloudFormationClient, DescribeStackEventsCommand } from '@aws-sdk/client-cloudformation';
import { LOCAL_CREDENTIALS } from '../local-aws/moto';
import { LOCALSTACK_ACCOUNT, type LocalStackEndpoint } from './localstack';

const cdk = join(__dirname, '..', '..', 'node_modules', 'aws-cdk', 'bin', 'cdk');

/** A deploy LocalStack refused: the resource it could not create and LocalStack's reason. */
export class LocalStackDeployError extends Error {
  name = 'LocalStackDeployError';
}

export interface DeployedStack {
  readonly stackName: string;
  /** The stack's outputs, by output name. */
  readonly outputs: Readonly<Record<string, string>>;
}

/** Bootstraps the account (once per LocalStack) and deploys the assembly's one stack. */
export async function deployOnLocalStack(
  localstack: LocalStackEndpoint,
  assemblyDir: string,
  stackName: string,
): Promise<DeployedStack> {
  const work = mkdtempSync(join(tmpdir(), 'pq-cdk-localstack-'));
  const outputsFile = join(work, 'outputs.json');
  const run = (args: readonly string[]) =>
    promisify(execFile)(process.execPath, [cdk, ...args, '--no-notices', '--no-color'], {
      cwd: work,
      env: cdkEnvironment(localstack),
      maxBuffer: 64 * 1024 * 1024,
    });
  try {
    await run(['bootstrap', `aws://${LOCALSTACK_ACCOUNT}/${localstack.region}`]);
    await run([
      'deploy',
      '--app',
      assemblyDir,
      '--all',
      '--require-approval',
      'never',
      '--outputs-file',
      outputsFile,
    ]).catch(async (error: unknown) => {
      throw new LocalStackDeployError(await whyItFailed(localstack, stackName, error));
    });
    const outputs = JSON.parse(readFileSync(outputsFile, 'utf8')) as Record<string, Record<string, string>>;
    return { stackName, outputs: outputs[stackName] ?? Object.values(outputs)[0] ?? {} };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function cdkEnvironment(localstack: LocalStackEndpoint): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    AWS_ENDPOINT_URL: localstack.endpoint,
    AWS_ENDPOINT_URL_S3: localstack.endpoint,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_REGION: localstack.region,
    AWS_DEFAULT_REGION: localstack.region,
    CDK_DISABLE_CLI_TELEMETRY: 'true',
  };
}

/** The first resource LocalStack failed to create, with its reason; else the CLI's own words. */
async function whyItFailed(
  localstack: LocalStackEndpoint,
  stackName: string,
  error: unknown,
): Promise<string> {
  const cli = (error as { stderr?: string }).stderr?.trim().split('\n').slice(-5).join('\n') ?? String(error);
  const client = new CloudFormationClient({
    endpoint: localstack.endpoint,
    region: localstack.region,
    credentials: LOCAL_CREDENTIALS,
  });
  const events = await client
    .send(new DescribeStackEventsCommand({ StackName: stackName }))
    .then((answer) => answer.StackEvents ?? [])
    .catch(() => []);
  const failed = events
    .filter((event) => event.ResourceStatus?.endsWith('_FAILED') && event.LogicalResourceId !== stackName)
    .at(-1);
  if (failed === undefined) return `cdk deploy of ${stackName} to LocalStack failed:\n${cli}`;
  return (
    `LocalStack could not create ${failed.LogicalResourceId} (${failed.ResourceType}) of ${stackName}: ` +
    `${failed.ResourceStatusReason ?? 'no reason given'}`
  );
}
