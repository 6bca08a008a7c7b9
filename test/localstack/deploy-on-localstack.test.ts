/**
 * The demo app deployed by LocalStack's own CloudFormation engine (issue 20, item 1 in part):
 * `cdk deploy` of the synthesized cloud assembly, every resource created; and a deploy LocalStack
 * refuses names the resource and LocalStack's reason. On what it deployed, a stop (rule 11) runs on
 * LocalStack's Step Functions as on AWS: `dynamodb:updateItem.waitForTaskToken` waits until `pq
 * resume` (issue 20, item 5).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { GetFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { DescribeExecutionCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { App, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../contract/env';
import { createClients } from '../../lambdas/adapters/clients';
import { ControlState } from '../../lambdas/adapters/control-state';
import { DemoAssembly } from '../../local/demo-assembly';
import { LOCAL_CREDENTIALS } from '../../tools/local-aws/moto';
import { deployOnLocalStack, LocalStackDeployError } from '../../tools/localstack/cdk-deploy';
import { ensureLocalStack } from '../../tools/localstack/ensure-localstack.mjs';
import { type EmbeddedLocalStack, startLocalStack } from '../../tools/localstack/localstack';
import { eventually } from '../integration/support/cli-harness';
import { runCliCaptured } from '../support/run-cli';

const STACK = 'PoisonQuarantineDemo';
let localstack: EmbeddedLocalStack;
/** The deployed consumer, named by the stack's output (the first test deploys it). */
let consumerName = '';
const assembly = new DemoAssembly();
const refusedDir = mkdtempSync(join(tmpdir(), 'pq-refused-'));

beforeAll(async () => {
  // pq takes the SDK's default credential chain, as on an operator's machine.
  process.env.AWS_ACCESS_KEY_ID = LOCAL_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = LOCAL_CREDENTIALS.secretAccessKey;
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
    consumerName = String(name);
  }, 600_000);

  it('stops: the pause machine waits with a task token on LocalStack Step Functions until pq resume', async () => {
    // Prepare: the consumer tripped the breaker as a stop (rule 11) and started its pause run.
    const pq = (...argv: string[]) =>
      runCliCaptured([
        ...argv,
        ...['--function', consumerName, '--endpoint-url', localstack.endpoint, '--region', localstack.region],
      ]);
    const clients = createClients({
      endpoint: localstack.endpoint,
      region: localstack.region,
      credentials: LOCAL_CREDENTIALS,
    });
    const env = (await clients.lambda.send(new GetFunctionCommand({ FunctionName: consumerName })))
      .Configuration?.Environment?.Variables as Record<string, string>;
    const control = new ControlState(clients.dynamodb, env[ENV.controlTable]);
    const { epoch } = await control.tripBreaker({
      reason: 'quarantine-unwritable',
      now: new Date(),
      stop: true,
    });
    const { executionArn } = await clients.sfn.send(
      new StartExecutionCommand({
        stateMachineArn: env[ENV.pauseStateMachineArn],
        name: `pause-${epoch}`,
        input: JSON.stringify({
          kind: 'pause',
          reason: 'quarantine-unwritable',
          epoch,
          stop: true,
          cooldownSeconds: 1,
          maxCooldownSeconds: 60,
          probeSeconds: 1,
          pollSeconds: 1,
        }),
      }),
    );
    const runState = async () =>
      (await clients.sfn.send(new DescribeExecutionCommand({ executionArn }))).status;

    // Act
    const waiting = await eventually('the pause run to wait for an operator', async () => {
      const status = await pq('status');
      return /WAITING FOR OPERATOR/.test(status.stdout) ? status : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const stillWaiting = await runState();
    const resume = await pq('resume', '--reason', 'the quarantine bucket policy is fixed');

    // Assess: disabled and waiting past its cool-down, then restored and closed by the answer.
    expect(waiting.stdout).toMatch(/^Mapping: +Disabled/m);
    expect(waiting.stdout).toMatch(/STOP: no automatic resume/);
    expect(stillWaiting).toBe('RUNNING');
    expect(resume).toMatchObject({ code: 0, stdout: expect.stringContaining('has been answered') });
    expect(
      await eventually('the pause run to end', async () => {
        const status = await runState();
        return status === 'RUNNING' ? undefined : status;
      }),
    ).toBe('SUCCEEDED');
    expect((await pq('status')).stdout).toMatch(/^Mapping: +Enabled/m);
  }, 120_000);

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
