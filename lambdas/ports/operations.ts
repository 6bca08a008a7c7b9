/** What the operations port (Step Functions) answers and takes (lambdas/adapters/operations.ts). */
import type { PauseExecutionInput } from '../../contract/executions';

/**
 * `started: false`: an execution of that name exists already (running or finished). AWS answers a
 * repeat with the same input on a RUNNING execution with success and the same ARN, so a retry may
 * also see `started: true`; either way exactly one execution exists.
 */
export type StartOutcome =
  | { readonly started: true; readonly executionArn: string }
  | { readonly started: false };

/** A pause's execution input without its `kind`; timings are passed to the state machine when given. */
export type PauseInput = Omit<PauseExecutionInput, 'kind'>;
