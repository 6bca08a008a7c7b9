/**
 * The consumer's role and the bucket policy allow the quarantine writer exactly three kinds of
 * request (lib/poison-quarantine.ts grantConsumer, lib/quarantine-storage.ts): a put under the
 * quarantine prefix with If-None-Match, a conditional PutItem, and a COUNT query on byStatus.
 * These pin what the writer sends to what its grants allow, without AWS.
 */
import { type DynamoDBClient, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { QUARANTINE_PREFIX } from '../../contract/storage';
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
  it('counts open records with Select COUNT on byStatus, the only query its role allows there', async () => {
    // Prepare
    const dynamodb = recordingClient<DynamoDBClient>({ Count: 1 });
    const s3 = recordingClient<S3Client>({});
    const writer = new QuarantineWriter(s3.client, dynamodb.client, BUCKET, TABLE);
    // Act
    await writer.openRecordsAtLeast(10);
    // Assess
    expect(dynamodb.sent).toHaveLength(2);
    for (const command of dynamodb.sent) {
      expect(command).toBeInstanceOf(QueryCommand);
      expect((command as QueryCommand).input).toMatchObject({
        TableName: TABLE,
        IndexName: 'byStatus',
        Select: 'COUNT',
      });
    }
  });

  it('creates a record only with a PutItem conditioned on no record of that id', async () => {
    // Prepare
    const dynamodb = recordingClient<DynamoDBClient>({});
    const s3 = recordingClient<S3Client>({});
    const writer = new QuarantineWriter(s3.client, dynamodb.client, BUCKET, TABLE);
    // Act
    await writer.putRecord(newRecord('q-1'));
    // Assess
    expect(dynamodb.sent).toHaveLength(1);
    expect(dynamodb.sent[0]).toBeInstanceOf(PutItemCommand);
    expect((dynamodb.sent[0] as PutItemCommand).input).toMatchObject({
      TableName: TABLE,
      ConditionExpression: 'attribute_not_exists(#id)',
      ExpressionAttributeNames: { '#id': 'id' },
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
