/**
 * The Step Functions client, a module of its own: esbuild splits the consumer's bundle by file, so this
 * client loads only with the chunk that needs it (connect-*.ts), never at a cold start.
 */
import { SFNClient } from '@aws-sdk/client-sfn';
import { type ClientOptions, clientConfig } from './client-config';

export function sfnClient(options: ClientOptions = {}): SFNClient {
  return new SFNClient(clientConfig(options));
}
