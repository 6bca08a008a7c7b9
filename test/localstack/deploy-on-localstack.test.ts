/**
 * The demo app deployed by LocalStack's own CloudFormation engine (issue 20, item 1 in part):
 * `cdk deploy` of the synthesized cloud assembly, every resource created; and a deploy LocalStack
 * refuses names the resource and LocalStack's reason.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { GetFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { App, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoAssembly } from '../../local/demo-assembly';
import { LOCAL_CREDENTIALS } from '../../tools/local-aws/moto';
import { deployOnLocalStack, LocalStackDeployError } from '../../tools/localstack/cdk-deploy';
import { ensureLocalStack } from '../../tools/localstack/ensure-localstack.mjs';
import { type EmbeddedLocalStack, startLocalStack } from '../../tools/localstack/localstack';

const STACK = 'PoisonQuarantineDemo';
let localstack: EmbeddedLocalStack;
const assembly = new DemoAssembly();
const refusedDir = mkdtempSync(join(tmpdir(), 'pq-refused-'));

beforeAll(async () => {
  ensureLocalStack();
  localstack = await startLocalStack();
}, 1_500_000);

afterAll(async () => {
  await localstack?.stop();
  assembly.remove();
  rmSync(refusedDir, { recursive: true, force: true });
});

describe('cdk deploy on the embedded LocalStack', () => {
  it('creates every resource of the demo stack through LocalStack CloudFormation', async () => {
    // Prepare
    const dir = assembly.synthesize(STACK, undefined);
    const templateFile = readdirSync(dir).find((file) => file.endsWith('.template.json')) ?? '';
    const template = JSON.parse(readFileSync(join(dir, templateFile), 'utf8')) as {
      Resources: Record<string, { Type: string }>;
    };

    // Act
    const deployed = await deployOnLocalStack(localstack, dir, STACK);

    // Assess
    const cloudformation = new CloudFormationClient({
      endpoint: localstack.endpoint,
      region: localstack.region,
      credentials: LOCAL_CREDENTIALS,
    });
    const { StackResources = [] } = await cloudformation.send(
      new DescribeStackResourcesCommand({ StackName: STACK }),
    );
    const created = Object.fromEntries(StackResources.map((r) => [r.LogicalResourceId, r.ResourceStatus]));
    const expected = Object.fromEntries(Object.keys(template.Resources).map((id) => [id, 'CREATE_COMPLETE']));
    expect(created).toStrictEqual(expected);
    // The consumer, named by the stack's output as an operator finds it, is a function LocalStack holds.
    const name = Object.entries(deployed.outputs).find(([key]) => key.includes('ConsumerFunctionName'))?.[1];
    const lambdaClient = new LambdaClient({
      endpoint: localstack.endpoint,
      region: localstack.region,
      credentials: LOCAL_CREDENTIALS,
    });
    const { Configuration } = await lambdaClient.send(new GetFunctionCommand({ FunctionName: name }));
    expect(Configuration?.State).toBe('Active');
    expect(Configuration?.Runtime).toBe('nodejs24.x');
  }, 600_000);

  it('given a resource LocalStack refuses, then the error names it and says why', async () => {
    // Prepare: a function whose code is in a bucket that does not exist.
    const app = new App({ outdir: refusedDir });
    const stack = new Stack(app, 'Refused');
    new lambda.CfnFunction(stack, 'NoCode', {
      runtime: 'nodejs24.x',
      handler: 'index.handler',
      role: new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') })
        .roleArn,
      code: { s3Bucket: 'pq-no-such-bucket', s3Key: 'missing.zip' },
    });
    const dir = app.synth().directory;

    // Act / Assess
    const deploy = deployOnLocalStack(localstack, dir, 'Refused');
    await expect(deploy).rejects.toBeInstanceOf(LocalStackDeployError);
    await expect(deploy).rejects.toThrow(
      /^LocalStack could not create NoCode \(AWS::Lambda::Function\) of Refused: \S/,
    );
  }, 600_000);
});
