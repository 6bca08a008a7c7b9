/** The floor: a handler that only parses each body, with no ledger and no idempotency. */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  for (const record of event.Records) JSON.parse(record.body);
  return { batchItemFailures: [] };
};
