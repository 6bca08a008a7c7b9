/**
 * The consumer's side of the quarantine (rule 3): content to S3, then the record to the
 * quarantine table. The consumer may only PUT: it never reads, overwrites or deletes. Ids are
 * deterministic, so every write is "create if absent" and a retry finishes, not duplicates.
 */

import {
  type AttributeValue,
  type DynamoDBClient,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { QUARANTINE_STATUS, RECORD_ATTRIBUTES as R } from '../../contract/quarantine';
import { QUARANTINE_PREFIX } from '../../contract/storage';
import type { NewQuarantineRecord } from '../core/quarantine-record';
import { namesIn } from './conditional-writes';
import { describeSdkError, isSdkError, QuarantineWriteError } from './errors';
import { quarantineRecordItem } from './quarantine-item';

/** The bucket layout: `quarantine/<id>/body` and `quarantine/<id>/envelope.json`. */
export function quarantineObjectKeys(id: string): { readonly bodyKey: string; readonly envelopeKey: string } {
  return {
    bodyKey: `${QUARANTINE_PREFIX}${id}/body`,
    envelopeKey: `${QUARANTINE_PREFIX}${id}/envelope.json`,
  };
}

export class QuarantineWriter {
  constructor(
    private readonly s3: S3Client,
    private readonly dynamodb: DynamoDBClient,
    private readonly bucket: string,
    private readonly table: string,
  ) {}

  /**
   * The body byte for byte (UTF-8 of the SQS body string, which holds no lone surrogates) and
   * the envelope. An object that already exists was written by an earlier try of the same id.
   */
  async putContent(
    id: string,
    content: { readonly body: string; readonly envelope: object },
  ): Promise<{ readonly bodyKey: string; readonly envelopeKey: string; readonly bodyBytes: number }> {
    const keys = quarantineObjectKeys(id);
    const body = Buffer.from(content.body, 'utf8');
    await this.putOnce(keys.bodyKey, body, 'application/octet-stream');
    await this.putOnce(
      keys.envelopeKey,
      Buffer.from(JSON.stringify(content.envelope), 'utf8'),
      'application/json',
    );
    return { ...keys, bodyBytes: body.length };
  }

  /** Creates the record; an existing one (an earlier try, or already moved on by an operator) stays. */
  async putRecord(record: NewQuarantineRecord): Promise<{ readonly created: boolean }> {
    try {
      await this.dynamodb.send(
        new PutItemCommand({
          TableName: this.table,
          Item: quarantineRecordItem(record),
          ConditionExpression: 'attribute_not_exists(#id)',
          ExpressionAttributeNames: namesIn('#id'),
        }),
      );
      return { created: true };
    } catch (error) {
      if (isSdkError(error, 'ConditionalCheckFailedException')) return { created: false };
      throw new QuarantineWriteError(
        `Quarantine table ${this.table}: record ${record.id} not written: ${describeSdkError(error)}`,
        { cause: error },
      );
    }
  }

  /**
   * Rule 11a: whether at least `limit` records are open or awaiting an operator. Counts on the
   * byStatus index (keys only, no content) and stops as soon as the answer is known; it runs on
   * the quarantine path only, never for a healthy message.
   */
  async openRecordsAtLeast(limit: number): Promise<boolean> {
    let seen = 0;
    for (const status of [QUARANTINE_STATUS.open, QUARANTINE_STATUS.awaitingOperator]) {
      let startKey: Record<string, AttributeValue> | undefined;
      do {
        const page = await this.guardedCount(status, startKey);
        seen += page.Count ?? 0;
        if (seen >= limit) return true;
        startKey = page.LastEvaluatedKey;
      } while (startKey);
    }
    return false;
  }

  private async guardedCount(status: string, startKey: Record<string, AttributeValue> | undefined) {
    try {
      return await this.dynamodb.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: 'byStatus',
          KeyConditionExpression: `#${R.status} = :status`,
          ExpressionAttributeNames: namesIn(`#${R.status}`),
          ExpressionAttributeValues: { ':status': { S: status } },
          Select: 'COUNT',
          ExclusiveStartKey: startKey,
        }),
      );
    } catch (error) {
      throw new QuarantineWriteError(
        `Quarantine table ${this.table}: open records not counted: ${describeSdkError(error)}`,
        { cause: error },
      );
    }
  }

  private async putOnce(key: string, body: Buffer, contentType: string): Promise<void> {
    try {
      await this.s3.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: body,
          ContentType: contentType,
          IfNoneMatch: '*',
        }),
      );
    } catch (error) {
      if (isPreconditionFailed(error)) return;
      throw new QuarantineWriteError(
        `Quarantine bucket ${this.bucket}: ${key} not written: ${describeSdkError(error)}`,
        {
          cause: error,
        },
      );
    }
  }
}

function isPreconditionFailed(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  return isSdkError(error, 'PreconditionFailed') || status === 412;
}
