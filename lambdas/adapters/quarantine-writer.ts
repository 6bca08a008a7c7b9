/**
 * The consumer's side of the quarantine (rule 3): content to S3, then the record to the
 * quarantine table, counted (rule 11a) in the same transaction. The consumer only creates
 * records: it never reads, overwrites or deletes one; the one item it reads and updates is the
 * open-record counter (open-records.ts). Ids are deterministic, so every write is "create if
 * absent" and a retry finishes, not duplicates.
 */

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { QUARANTINE_PREFIX } from '../../contract/storage';
import type { NewQuarantineRecord } from '../core/quarantine-record';
import { QuarantineWriteError } from '../ports/errors';
import { guarded } from './conditional-writes';
import { OpenRecordsCounter } from './open-records';
import { quarantineRecordItem } from './quarantine-item';
import { describeSdkError, isSdkError } from './sdk-errors';

/** The bucket layout: `quarantine/<id>/body` and `quarantine/<id>/envelope.json`. */
export function quarantineObjectKeys(id: string): { readonly bodyKey: string; readonly envelopeKey: string } {
  return {
    bodyKey: `${QUARANTINE_PREFIX}${id}/body`,
    envelopeKey: `${QUARANTINE_PREFIX}${id}/envelope.json`,
  };
}

export class QuarantineWriter {
  private readonly counter: OpenRecordsCounter;

  constructor(
    private readonly s3: S3Client,
    dynamodb: DynamoDBClient,
    private readonly bucket: string,
    private readonly table: string,
  ) {
    this.counter = new OpenRecordsCounter(dynamodb, table);
  }

  /**
   * The body byte for byte (UTF-8 of the SQS body string, which holds no lone surrogates; the
   * decoded bytes of a base64 one, a Kafka value) and the envelope. An object that already exists
   * was written by an earlier try of the same id.
   */
  async putContent(
    id: string,
    content: { readonly body: string; readonly encoding?: 'utf8' | 'base64'; readonly envelope: object },
  ): Promise<{ readonly bodyKey: string; readonly envelopeKey: string; readonly bodyBytes: number }> {
    const keys = quarantineObjectKeys(id);
    const body = Buffer.from(content.body, content.encoding ?? 'utf8');
    await this.putOnce(keys.bodyKey, body, 'application/octet-stream');
    await this.putOnce(
      keys.envelopeKey,
      Buffer.from(JSON.stringify(content.envelope), 'utf8'),
      'application/json',
    );
    return { ...keys, bodyBytes: body.length };
  }

  /**
   * Creates the record and counts it, in one transaction; an existing record (an earlier try, or
   * already moved on by an operator) stays, and nothing is counted again.
   */
  async putRecord(record: NewQuarantineRecord): Promise<{ readonly created: boolean }> {
    // A new record is open or awaiting an operator (its type says so): it counts one.
    const put = { item: quarantineRecordItem(record), condition: 'attribute_not_exists(#id)' };
    const outcome = await this.guard(`record ${record.id} not written`, () => this.counter.write({ put }, 1));
    return { created: outcome.ok };
  }

  /**
   * Rule 11a: whether at least `limit` records are open or awaiting an operator: one read of the
   * counter. Without one (an upgrade), the first call counts the byStatus index and creates it.
   * It runs on the quarantine path only, never for a healthy message.
   */
  async openRecordsAtLeast(limit: number): Promise<boolean> {
    return (await this.guard('open records not counted', () => this.counter.current())) >= limit;
  }

  private guard<T>(what: string, call: () => Promise<T>): Promise<T> {
    return guarded(
      call,
      (error) =>
        new QuarantineWriteError(`Quarantine table ${this.table}: ${what}: ${describeSdkError(error)}`, {
          cause: error,
        }),
    );
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
