/**
 * consumer/call-meter.ts: each record's AWS calls, counted by a middleware on the SDK clients
 * (reads and writes of DynamoDB apart), and only inside a record's own measure. Mutation testing
 * found it unpinned: the world's ports are no SDK clients.
 */
import { describe, expect, it } from 'vitest';
import { CallMeter, isDynamodbRead } from '../../lambdas/consumer/call-meter';

type Middleware = (
  next: (args: unknown) => Promise<unknown>,
  context: { commandName?: string },
) => (args: unknown) => Promise<unknown>;

/** A client as the meter sees one: it keeps the middleware, and `send` runs it. */
function fakeClient() {
  const added: { middleware: Middleware; options: unknown }[] = [];
  const client = {
    middlewareStack: {
      add: (middleware: never, options: unknown) => void added.push({ middleware, options }),
    },
  };
  const send = (commandName: string) =>
    added.reduce<(args: unknown) => Promise<unknown>>(
      (next, { middleware }) => middleware(next, { commandName }),
      async () => 'answered',
    )({});
  return { client, added, send };
}

describe('CallMeter', () => {
  it('given calls of each service inside a measure, then each is counted, DynamoDB reads and writes apart', async () => {
    // Prepare
    const meter = new CallMeter();
    const [dynamodb, s3, sqs, sfn] = [fakeClient(), fakeClient(), fakeClient(), fakeClient()];
    meter.attach('dynamodb', dynamodb.client);
    meter.attach('s3', s3.client);
    meter.attach('sqs', sqs.client);
    meter.attach('sfn', sfn.client);

    // Act
    const { result, calls } = await meter.measure(async () => {
      await dynamodb.send('UpdateItemCommand');
      await dynamodb.send('GetItemCommand');
      await dynamodb.send('QueryCommand');
      await s3.send('PutObjectCommand');
      await sqs.send('ChangeMessageVisibilityCommand');
      await sfn.send('StartExecutionCommand');
      return dynamodb.send('TransactWriteItemsCommand');
    });

    // Assess
    expect(result).toBe('answered');
    expect(calls).toStrictEqual({ dynamodbWrites: 2, dynamodbReads: 2, s3: 1, sqs: 1, sfn: 1 });
    expect(dynamodb.added[0]?.options).toStrictEqual({
      step: 'initialize',
      name: 'poisonQuarantineCallMeter',
    });
  });

  it('given a call outside any measure, then no record is charged with it', async () => {
    const meter = new CallMeter();
    const dynamodb = fakeClient();
    meter.attach('dynamodb', dynamodb.client);
    await dynamodb.send('BatchGetItemCommand');
    const { calls } = await meter.measure(async () => undefined);
    expect(calls).toStrictEqual({ dynamodbWrites: 0, dynamodbReads: 0, s3: 0, sqs: 0, sfn: 0 });
  });

  it.each([
    ['GetItemCommand', true],
    ['BatchGetItemCommand', true],
    ['QueryCommand', true],
    ['ScanCommand', true],
    ['PutItemCommand', false],
    ['', false],
  ])('given %s, then a read: %s', (command, read) => {
    expect(isDynamodbRead(command)).toBe(read);
  });
});
