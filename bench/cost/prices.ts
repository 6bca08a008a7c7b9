/**
 * On-demand list prices, us-east-1, USD, in effect since 2024-11-01 (the last change among them:
 * DynamoDB's on-demand reduction). Taken from the AWS pricing pages; not fetched at run time, so
 * re-check them there before quoting a figure.
 */
export const PRICES = {
  date: '2024-11-01',
  region: 'us-east-1',
  /** DynamoDB Standard table class, on demand: per write request unit (1 KB). */
  dynamodbWriteRequestUnit: 0.625 / 1e6,
  /** Per read request unit (one strongly consistent read of up to 4 KB). */
  dynamodbReadRequestUnit: 0.125 / 1e6,
  /** S3 Standard: PUT, COPY, POST, LIST requests. */
  s3PutRequest: 0.005 / 1e3,
  /** SQS standard queue, beyond the free tier, per request (64 KB chunk). */
  sqsRequest: 0.4 / 1e6,
  /** Step Functions Standard, per state transition (StartExecution itself is not billed). */
  sfnStateTransition: 0.025 / 1e3,
} as const;

/**
 * What the prices are applied to, stated with every cost figure. Only the requests the consumer
 * makes itself are priced: what every SQS + Lambda consumer pays anyway (the mapping's receive
 * and delete, the invocation, GB-s) is the same with or without the quarantine.
 */
export const COST_ASSUMPTIONS: readonly string[] = [
  'DynamoDB: 1 write unit per write request (items under 1 KB), 1 read unit per read request ' +
    '(strongly consistent, under 4 KB); global secondary index writes are not included ' +
    '(the ledger item enters and leaves the keys-only byEnv index: up to 2 more units per attempt)',
  'DynamoDB transactions: a quarantine writes its record and the open-record counter in one ' +
    'TransactWriteItems, billed 2 write units per item: 4 for that one request',
  'S3: every consumer call is a PutObject (the consumer never reads the quarantine)',
  'SQS: the consumer’s own ChangeMessageVisibility and DeleteMessage calls; the mapping’s receive and ' +
    'delete are paid by any consumer and left out',
  'Step Functions: StartExecution is free; the transitions of the operator workflow it starts depend on ' +
    'the operator and are left out ($0.025 per 1,000 transitions)',
  'Lambda: invocation and GB-s are left out (the same order as any consumer; see perMessage for CPU)',
];
