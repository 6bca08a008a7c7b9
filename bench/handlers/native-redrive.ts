/**
 * What users would pick instead, in the outage comparison: a bare handler that calls the outside
 * system for every record of its batch and throws when any call failed. The whole batch then goes
 * back and SQS's native redrive (maxReceiveCount 3 to a DLQ) decides what is dead. It calls the
 * same outside system as the demo worker, through the same client, with the body's "id".
 */
import { env } from 'node:process';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { callOutsideSystem } from '../../lambdas/demo/outside-system-client';
import { DEMO_OUTSIDE_SYSTEM_URL_ENV } from '../../lambdas/demo/worker';

const outsideSystemUrl = env[DEMO_OUTSIDE_SYSTEM_URL_ENV];

export const handler = async (event: SQSEvent, context: Context): Promise<void> => {
  if (!outsideSystemUrl) throw new Error(`${DEMO_OUTSIDE_SYSTEM_URL_ENV} is not set`);
  // Every call ends before the invocation does, so each one is counted whatever the others did.
  const calls = await Promise.allSettled(
    event.Records.map((record) =>
      callOutsideSystem(outsideSystemUrl, requestOf(record), context.getRemainingTimeInMillis()),
    ),
  );
  const failed = calls.find((call) => call.status === 'rejected');
  if (failed) throw failed.reason;
};

function requestOf(record: SQSRecord) {
  const { id } = JSON.parse(record.body) as { id: string };
  return { messageId: id, attempt: Number(record.attributes.ApproximateReceiveCount) };
}
