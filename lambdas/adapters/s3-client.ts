/**
 * The S3 client, a module of its own: esbuild splits the consumer's bundle by file, so this
 * client loads only with the chunk that needs it (connect-*.ts), never at a cold start.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { type ClientOptions, clientConfig } from './client-config';

export function s3Client(options: ClientOptions = {}): S3Client {
  // Path-style addressing: local endpoints have no per-bucket DNS names.
  return new S3Client({ ...clientConfig(options), forcePathStyle: Boolean(options.endpoint) });
}
