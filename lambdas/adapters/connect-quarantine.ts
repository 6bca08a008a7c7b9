/**
 * The quarantine's write side with its own S3 client. The consumer loads this module, a chunk of
 * its own, on its first quarantine (create-consumer.ts): S3 is no part of a healthy message.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { ClientOptions } from './client-config';
import { QuarantineWriter } from './quarantine-writer';
import { s3Client } from './s3-client';

export function connectQuarantine(
  options: ClientOptions,
  dynamodb: DynamoDBClient,
  place: { readonly bucket: string; readonly table: string },
): { readonly client: S3Client; readonly adapter: QuarantineWriter } {
  const client = s3Client(options);
  return { client, adapter: new QuarantineWriter(client, dynamodb, place.bucket, place.table) };
}
