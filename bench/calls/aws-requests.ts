/**
 * The AWS requests behind one call through a consumer port, as the adapters in lambdas/adapters
 * make them (SDK v3 command names, as the call meter sees them). The in-memory world answers
 * the ports, so this table turns what the real consumer asked of its ports into requests.
 *
 * Where an adapter's request count depends on the answer, the entry is the common case and says
 * so: one page per query (small result sets), a first claim of an isolation trial, a pause run
 * that starts at once. `npm run bench` paths stay within those cases; the test checks that.
 */
import type { FaultPoint } from '../../sim/faults/fault-points';

export type Service = 'dynamodb' | 's3' | 'sqs' | 'sfn';

export interface AwsRequest {
  readonly service: Service;
  readonly command: string;
  /** DynamoDB capacity units it is billed, of its kind (read or write). @default 1 */
  readonly units?: number;
}

const dynamodb = (command: string): AwsRequest => ({ service: 'dynamodb', command: `${command}Command` });
const update = dynamodb('UpdateItem');
const put = dynamodb('PutItem');
const query = dynamodb('Query');

export const AWS_REQUESTS: Readonly<Record<FaultPoint, readonly AwsRequest[]>> = {
  // AttemptLedger: every transition is one conditional UpdateItem.
  'ledger.start': [update],
  'ledger.restartAfterCrash': [update],
  'ledger.renewLease': [update],
  'ledger.recordStage': [update],
  'ledger.recordExternal:pending': [update],
  'ledger.recordExternal:done': [update],
  'ledger.recordExternal:not-sent': [update],
  'ledger.complete': [update],
  'ledger.recordFailure': [update],
  'ledger.beginQuarantine': [update],
  'ledger.markQuarantined': [update],
  // One page of the byEnv index (a dead environment had at most a batch in flight).
  'ledger.inFlightKeysOf': [query],
  // ControlState.
  // Breaker, isolation trial and replay freeze: three items, a read unit each.
  'control.snapshot': [{ ...dynamodb('BatchGetItem'), units: 3 }],
  'control.recordFailureEvent': [put],
  // One page of the failure window.
  'control.failuresSince': [query],
  // The count itself is ledger.inFlightKeysOf, made through its own port call.
  'control.crashInFlight': [put],
  'control.recordLostCompletion': [put],
  'control.lostCompletion': [dynamodb('GetItem')],
  'control.tripBreaker': [update],
  'control.recordProbe': [update],
  // The crash's claim, then the trial item (a lost claim reads the snapshot instead).
  'control.startIsolation': [update, put],
  // A count-down; the trial's last message makes a second update.
  'control.isolationMessagePassed': [update],
  // QuarantineWriter: body and envelope objects; the record with rule 11a's open-record count
  // in one transaction (two items, billed twice each); the count itself, one read of its item
  // (a table without the counter is counted once first: COUNT queries and a conditional create).
  'quarantine.putContent': [
    { service: 's3', command: 'PutObjectCommand' },
    { service: 's3', command: 'PutObjectCommand' },
  ],
  'quarantine.putRecord': [{ ...dynamodb('TransactWriteItems'), units: 4 }],
  'quarantine.openRecordsAtLeast': [dynamodb('GetItem')],
  // Operations: one StartExecution (a pause whose first run is alive needs no DescribeExecution).
  'operations.startOutcomeUnknown': [{ service: 'sfn', command: 'StartExecutionCommand' }],
  'operations.startPause': [{ service: 'sfn', command: 'StartExecutionCommand' }],
  // SourceQueue.
  'queue.delay': [{ service: 'sqs', command: 'ChangeMessageVisibilityCommand' }],
  'queue.acknowledge': [{ service: 'sqs', command: 'DeleteMessageCommand' }],
};
