/**
 * Lambda's SQS event, as the consumer reads it: each record is a consumer record as it is (a
 * FIFO message group is its order group), and the records that stay are the partial batch
 * response's failures (`ReportBatchItemFailures`, by messageId).
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { EventSourcePort, SourceRecord } from '../ports/source';
import { SourceEventError } from './errors';

export const SQS_SOURCE: EventSourcePort<SQSEvent, SQSBatchResponse> = {
  records: (event) => {
    if (!Array.isArray(event?.Records)) throw new SourceEventError('sqs', 'an event without SQS Records');
    return event.Records.map((record) => {
      const group = record.attributes.MessageGroupId;
      return group === undefined ? record : { ...record, orderGroup: group };
    });
  },
  respond: async (stay: readonly SourceRecord[]) => ({
    batchItemFailures: stay.map(({ messageId }) => ({ itemIdentifier: messageId })),
  }),
};
