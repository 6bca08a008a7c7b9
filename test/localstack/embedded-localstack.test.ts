/**
 * The embedded LocalStack (issue 20, item 2): installed by the project's own script, started on
 * loopback only with our moto server as its DynamoDB, and stopped with everything it started.
 * The first install takes minutes (about 500 MB), hence the hook's timeout.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import {
  CreateQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS } from '../../tools/local-aws/moto';
import { ensureLocalStack } from '../../tools/localstack/ensure-localstack.mjs';
import { type EmbeddedLocalStack, startLocalStack } from '../../tools/localstack/localstack';
import { processesInGroup } from '../support/processes';

let localstack: EmbeddedLocalStack;

beforeAll(async () => {
  ensureLocalStack();
  localstack = await startLocalStack();
}, 1_500_000);

afterAll(async () => {
  await localstack?.stop();
});

/** The local addresses of the listening TCP sockets these processes hold (hex, as /proc shows them). */
function listeningAddresses(pids: readonly number[]): string[] {
  const inodes = new Set<string>();
  for (const pid of pids) {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const target = (() => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          return '';
        }
      })();
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    }
  }
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((table) =>
    readFileSync(table, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      // state 0A is LISTEN; field 9 is the socket's inode
      .filter((fields) => fields[3] === '0A' && inodes.has(fields[9] ?? ''))
      .map((fields) => (fields[1] ?? '').split(':')[0] ?? ''),
  );
}

const LOOPBACK = new Set(['0100007F', '00000000000000000000000001000000']);

describe('the embedded LocalStack', () => {
  it('listens on 127.0.0.1 only, however many sockets its processes hold', () => {
    const addresses = listeningAddresses(processesInGroup(localstack.pid));
    expect(addresses.length).toBeGreaterThan(0);
    expect(addresses.filter((address) => !LOOPBACK.has(address))).toStrictEqual([]);
  });

  it('serves DynamoDB from our moto server: a table made through LocalStack is in moto', async () => {
    const dynamodb = new DynamoDBClient({
      endpoint: localstack.endpoint,
      region: localstack.region,
      credentials: LOCAL_CREDENTIALS,
    });
    await dynamodb.send(
      new CreateTableCommand({
        TableName: 'probe',
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    await dynamodb.send(new PutItemCommand({ TableName: 'probe', Item: { pk: { S: 'a' }, n: { N: '1' } } }));
    const { Item } = await dynamodb.send(new GetItemCommand({ TableName: 'probe', Key: { pk: { S: 'a' } } }));
    expect(Item).toStrictEqual({ pk: { S: 'a' }, n: { N: '1' } });
    const moto = (await (await fetch(`${localstack.dynamodb.endpoint}/moto-api/data.json`)).json()) as {
      dynamodb: { Table: { name: string }[] };
    };
    expect(moto.dynamodb.Table.map((table) => table.name)).toContain('probe');
  });

  it('serves SQS itself, with queue URLs on its own loopback address', async () => {
    const sqs = new SQSClient({
      endpoint: localstack.endpoint,
      region: localstack.region,
      credentials: LOCAL_CREDENTIALS,
    });
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'probe' }));
    expect(QueueUrl?.startsWith(`http://127.0.0.1:${localstack.port}/`)).toBe(true);
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'hello' }));
    const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));
    expect(Messages?.map((message) => message.Body)).toStrictEqual(['hello']);
  });

  it('stops with every process it started, within its deadline', async () => {
    const { pid, port } = localstack;
    await localstack.stop();
    expect(processesInGroup(pid)).toStrictEqual([]);
    const answered = await fetch(`http://127.0.0.1:${port}/_localstack/health`).then(
      () => true,
      () => false,
    );
    expect(answered).toBe(false);
    expect(() => execFileSync('kill', ['-0', String(pid)], { stdio: 'ignore' })).toThrow();
  });
});
