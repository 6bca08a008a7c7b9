/**
 * The state machines' adapter with its own Step Functions client. The consumer loads this module,
 * a chunk of its own, when it first starts an execution (create-consumer.ts).
 */
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { StateMachineArns } from '../core/config';
import type { ClientOptions } from './client-config';
import { Operations } from './operations';
import { sfnClient } from './sfn-client';

export function connectOperations(
  options: ClientOptions,
  stateMachines: StateMachineArns,
): { readonly client: SFNClient; readonly adapter: Operations } {
  const client = sfnClient(options);
  return { client, adapter: new Operations(client, stateMachines) };
}
