/**
 * The consumer Lambda's entry point: wiring only. The user's processing module is bundled in
 * under the 'pq-user-processor' alias (lib/consumer-function.ts).
 */
import * as processor from 'pq-user-processor';
import { ENV } from '../../contract/env';
import { createConsumer } from '../consumer/create-consumer';
import { installSourceMappedStacks } from './source-mapped-stacks';

// Stack traces through the bundle's maps, read on the first failure, not at every cold start.
installSourceMappedStacks();

// Set only for the local AWS or LocalStack; in AWS the SDK resolves endpoints itself.
const endpoint = process.env[ENV.endpoint];

export const handler = createConsumer({
  processor,
  env: process.env,
  clientOptions: endpoint ? { endpoint } : {},
});
