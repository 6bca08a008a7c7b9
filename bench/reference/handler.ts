/**
 * The reference: what a user would write instead of poison-quarantine, as the Powertools docs
 * show it: a batch processor with partial batch responses, each record made idempotent by the
 * DynamoDB persistence layer (one conditional PutItem before the work, one UpdateItem after:
 * the same 2 writes per healthy message). The work is the same as the consumer's in the bench:
 * parse the body.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

const processor = new BatchProcessor(EventType.SQS);
const persistenceStore = new DynamoDBPersistenceLayer({
  tableName: process.env.IDEMPOTENCY_TABLE ?? 'idempotency',
});
const config = new IdempotencyConfig({ eventKeyJmesPath: 'messageId' });

const processRecord = makeIdempotent(
  async (record: SQSRecord) => {
    JSON.parse(record.body);
  },
  { persistenceStore, config },
);

// The docs' default is all records at once; the bench also measures one at a time (as the
// poison-quarantine consumer runs them) with PROCESS_IN_PARALLEL=false.
const processInParallel = process.env.PROCESS_IN_PARALLEL !== 'false';

export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  config.registerLambdaContext(context);
  return processPartialResponse(event, processRecord, processor, { context, processInParallel });
};
