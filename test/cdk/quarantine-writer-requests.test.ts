/**
 * The consumer's role and the bucket policy allow the quarantine writer exactly these requests
 * (lib/poison-quarantine.ts grantConsumer, lib/quarantine-storage.ts): a put under the
 * quarantine prefix with If-None-Match; a record's conditional Put, in one transaction with an
 * UpdateItem of the open-record counter; a GetItem of that counter; and, only when a table has
 * no counter yet, COUNT queries on byStatus and the counter's conditional create (UpdateItem).
 * Every GetItem and UpdateItem names the counter's key, never a record's. These pin what the
 * writer sends to what its grants allow, without AWS.
 */
import {
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { QUARANTINE_PREFIX } from '../../contract/storage';
import { COUNTER_KEY } from '../../lambdas/adapters/open-records';
import { QuarantineWriter, quarantineObjectKeys } from '../../lambdas/adapters/quarantine-writer';
import type { NewQuarantineRecord } from '../../lambdas/core/quarantine-record';

const TABLE = 'quarantine-table';
const BUCKET = 'quarantine-bucket';

/** A client that records every command and answers each with `answer`. */
function recordingClient<T>(answer: object) {
  const sent: unknown[] = [];
  const client = {
    send: async (command: unknown) => {
      sent.push(command);
      return answer;
    },
  } as unknown as T;
  return { client, sent };
}

function newRecord(id: string): NewQuarantineRecord {
  return {
    id,
    status: 'open',
    reason: 'crash-limit',
    cause: 'unidentified',
    messageKey: 'order-42',
    messageId: '2f1c7a3e-0000-4000-8000-000000000000',
    generation: 0,
    attemptsStarted: 3,
    attemptsCharged: 3,
    stage: 'parsed',
    errorSignature: 'crash:parsed',
    firstAttemptAt: '2030-01-01T00:00:00.000Z',
    lastAttemptAt: '2030-01-01T00:05:00.000Z',
    createdAt: '2030-01-01T00:06:00.000Z',
    sourceQueueArn: 'arn:aws:sqs:eu-west-1:111111111111:orders',
    ...quarantineObjectKeys(id),
    bodyBytes: 12,
  };
}

describe('QuarantineWriter requests', () => {
  it('reads the open-record counter with one GetItem of its key', async () => {
    // Prepare
    const dynamodb = recordingClient<DynamoDBClient>({ Item: { ...COUNTER_KEY, openRecords: { N: '3' } } });
    const s3 = recordingClient<S3Client>({});
    const writer = new QuarantineWriter(s3.client, dynamodb.client, BUCKET, TABLE);
    // Act
    const full = await writer.openRecordsAtLeast(3);
    // Assess
    expect(full).toBe(true);
    expect(dynamodb.sent).toHaveLength(1);
    expect(dynamodb.sent[0]).toBeInstanceOf(GetItemCommand);
    expect((dynamodb.sent[0] as GetItemCommand).input).toMatchObject({ TableName: TABLE, Key: COUNTER_KEY });
  });

  it('without a counter, counts with Select COUNT on byStatus, the only query its role allows there, then creates it', async () => {
    // Prepare
    const dynamodb = recordingClient<DynamoDBClient>({ Count: 1 });
    const s3 = recordingClient<S3Client>({});
    const writer = new QuarantineWriter(s3.client, dynamodb.client, BUCKET, TABLE);
    // Act
    await writer.openRecordsAtLeast(10);
    // Assess
    expect(dynamodb.sent.map((command) => (command as object).constructor)).toStrictEqual([
      GetItemCommand,
      QueryCommand,
      QueryCommand,
      UpdateItemCommand,
    ]);
    for (const command of dynamodb.sent.slice(1, 3)) {
      expect((command as QueryCommand).input).toMatchObject({
        TableName: TABLE,
        IndexName: 'byStatus',
        Select: 'COUNT',
      });
    }
    const create = (dynamodb.sent[3] as UpdateItemCommand).input;
    expect(create).toMatchObject({
      Key: COUNTER_KEY,
      ConditionExpression: 'attribute_not_exists(#openRecords)',
      ExpressionAttributeNames: { '#openRecords': 'openRecords' },
    });
    // Its role may name the count only, and may not ask for the whole item back (issue 22, defect 5).
    expect(create.ReturnValues).toBeUndefined();
  });

  it('creates a record only with a Put conditioned on no record of that id, counted in the same transaction', async () => {
    // Prepare
    const dynamodb = recordingClient<DynamoDBClient>({});
    const s3 = recordingClient<S3Client>({});
    const writer = new QuarantineWriter(s3.client, dynamodb.client, BUCKET, TABLE);
    // Act
    await writer.putRecord(newRecord('q-1'));
    // Assess
    expect(dynamodb.sent).toHaveLength(1);
    expect(dynamodb.sent[0]).toBeInstanceOf(TransactWriteItemsCommand);
    const [put, count] = (dynamodb.sent[0] as TransactWriteItemsCommand).input.TransactItems ?? [];
    expect(put?.Put).toMatchObject({
      TableName: TABLE,
      ConditionExpression: 'attribute_not_exists(#id)',
      ExpressionAttributeNames: { '#id': 'id' },
    });
    expect(count?.Update).toMatchObject({
      TableName: TABLE,
      Key: COUNTER_KEY,
      UpdateExpression: 'ADD #openRecords :change',
      ConditionExpression: 'attribute_exists(#openRecords)',
      ExpressionAttributeValues: { ':change': { N: '1' } },
    });
  });

  it('puts content under the quarantine prefix with If-None-Match, as the bucket policy demands', async () => {
    // Prepare
    const dynamodb = recordingClient<DynamoDBClient>({});
    const s3 = recordingClient<S3Client>({});
    const writer = new QuarantineWriter(s3.client, dynamodb.client, BUCKET, TABLE);
    // Act
    await writer.putContent('q-1', { body: 'not json', envelope: { messageId: 'm-1' } });
    // Assess
    expect(s3.sent).toHaveLength(2);
    for (const command of s3.sent) {
      expect(command).toBeInstanceOf(PutObjectCommand);
      const input = (command as PutObjectCommand).input;
      expect(input).toMatchObject({ Bucket: BUCKET, IfNoneMatch: '*' });
      expect(input.Key?.startsWith(QUARANTINE_PREFIX)).toBe(true);
    }
  });
});
