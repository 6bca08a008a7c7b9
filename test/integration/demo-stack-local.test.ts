/**
 * The demo stack, synthesized as `cdk deploy` would deploy it, created in the embedded local AWS
 * by tools/local-aws/deploy, and exercised through the real SDK v3 clients over HTTP: the resources the
 * consumer's environment names exist and behave.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ConditionalCheckFailedException, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { DescribeExecutionCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { App } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BREAKER_KEY } from '../../contract/control';
import { ENV } from '../../contract/env';
import { QUARANTINE_PREFIX } from '../../contract/storage';
import { type AwsClients, createClients } from '../../lambdas/adapters/clients';
import { DemoStack } from '../../lib/demo-stack';
import { deployCdkOut, type LocalStack } from '../../tools/local-aws/deploy';
import { LOCAL_CREDENTIALS, type LocalAws, startLocalAws } from '../../tools/local-aws/moto';

let aws: LocalAws;
let clients: AwsClients;
let stack: LocalStack;
let env: (name: string) => string;
const cdkOut = mkdtempSync(path.join(tmpdir(), 'pq-demo-local-'));

beforeAll(async () => {
  // Prepare: the demo stack as the CDK CLI synthesizes it (asset metadata on), into moto.
  const app = new App({ outdir: cdkOut, context: { 'aws:cdk:enable-asset-metadata': true } });
  new DemoStack(app, 'PoisonQuarantineDemo');
  app.synth();
  aws = await startLocalAws();
  clients = createClients({ endpoint: aws.endpoint, region: aws.region, credentials: LOCAL_CREDENTIALS });
  stack = await deployCdkOut('PoisonQuarantineDemo', { clients, region: aws.region, cdkOutDir: cdkOut });
  const consumer = stack.functions.find((fn) => fn.environment[ENV.attemptsTable] !== undefined);
  if (!consumer) throw new Error('the demo stack has no consumer');
  env = (name) => consumer.environment[name] ?? '';
});

afterAll(async () => {
  await aws?.stop();
  rmSync(cdkOut, { recursive: true, force: true });
});

describe('the demo stack deployed into the local AWS', () => {
  it('takes a conditional increment on the attempts table and refuses a failed condition', async () => {
    const increment = (condition: string) =>
      clients.dynamodb.send(
        new UpdateItemCommand({
          TableName: env(ENV.attemptsTable),
          Key: { pk: { S: 'demo-1' } },
          UpdateExpression: 'ADD attempts :one',
          ConditionExpression: condition,
          ExpressionAttributeValues: { ':one': { N: '1' } },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    const first = await increment('attribute_not_exists(pk)');
    expect(first.Attributes?.attempts).toStrictEqual({ N: '1' });
    const refused = await increment('attribute_not_exists(pk)').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConditionalCheckFailedException);
    expect((refused as ConditionalCheckFailedException).Item?.attempts).toStrictEqual({ N: '1' });
  });

  it('stores and returns a quarantine object byte for byte', async () => {
    const bytes = Buffer.from('Grüße ✓ not json {', 'utf8');
    const key = `${QUARANTINE_PREFIX}demo/body`;
    await clients.s3.send(new PutObjectCommand({ Bucket: env(ENV.quarantineBucket), Key: key, Body: bytes }));
    const object = await clients.s3.send(
      new GetObjectCommand({ Bucket: env(ENV.quarantineBucket), Key: key }),
    );
    expect(
      Buffer.from(
        await (object.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
      ),
    ).toStrictEqual(bytes);
  });

  it('sends and receives on the source queue (moto does not drain it through the mapping)', async () => {
    const queueUrl = env(ENV.sourceQueueUrl);
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'hello' }));
    const { Messages = [] } = await clients.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        WaitTimeSeconds: 2,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    expect(
      Messages.map((message) => [message.Body, message.Attributes?.ApproximateReceiveCount]),
    ).toStrictEqual([['hello', '1']]);
    await clients.sqs.send(
      new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: Messages[0].ReceiptHandle }),
    );
  });

  it('runs the pause state machine: a pause disables, probes and restores, then succeeds', async () => {
    const timings = { cooldownSeconds: 1, maxCooldownSeconds: 2, probeSeconds: 1, pollSeconds: 1 };
    // The consumer trips the breaker before it starts the pause; the run acts on that item.
    await clients.dynamodb.send(
      new PutItemCommand({
        TableName: env(ENV.controlTable),
        Item: {
          pk: { S: BREAKER_KEY.pk },
          sk: { S: BREAKER_KEY.sk },
          state: { S: 'open' },
          epoch: { N: '1' },
          reason: { S: 'outage' },
          stop: { BOOL: false },
        },
      }),
    );
    const { executionArn } = await clients.sfn.send(
      new StartExecutionCommand({
        stateMachineArn: env(ENV.pauseStateMachineArn),
        name: 'pause-1',
        input: JSON.stringify({ kind: 'pause', reason: 'outage', epoch: 1, stop: false, ...timings }),
      }),
    );
    let status = 'RUNNING';
    for (let poll = 0; poll < 120 && status === 'RUNNING'; poll += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = (await clients.sfn.send(new DescribeExecutionCommand({ executionArn }))).status ?? 'UNKNOWN';
    }
    expect(status).toBe('SUCCEEDED');
  }, 60_000);
});
