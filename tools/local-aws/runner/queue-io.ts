/**
 * The runner's SQS calls: gathering a batch the way the Lambda poller does (up to 10 messages per
 * receive, more receives until the batch is full or the batching window closes), deleting the
 * records a handler finished, and reading the visibility timeout a mapping is checked against.
 */
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { pause } from './pause';

/** SQS hands out at most 10 messages per ReceiveMessage. */
const MAX_PER_RECEIVE = 10;
/** Between empty short polls inside a batching window, so the window is not a busy loop. */
const WINDOW_POLL_GAP_MS = 100;

export interface BatchRequest {
  readonly queueUrl: string;
  readonly batchSize: number;
  readonly batchingWindowMs: number;
  readonly waitTimeSeconds: number;
  readonly signal: AbortSignal;
}

/**
 * Waits (long poll) for a first message, then keeps receiving until the batch is full or the
 * window has passed. An empty result means the long poll found nothing.
 */
export async function receiveBatch(sqs: SQSClient, request: BatchRequest): Promise<Message[]> {
  const batch = await receive(
    sqs,
    request,
    Math.min(MAX_PER_RECEIVE, request.batchSize),
    request.waitTimeSeconds,
  );
  if (batch.length === 0) return batch;
  const windowEnd = Date.now() + request.batchingWindowMs;
  while (batch.length < request.batchSize && !request.signal.aborted) {
    const remainingMs = windowEnd - Date.now();
    if (remainingMs <= 0) break;
    // Whole seconds only: a long poll may not outlast the window.
    const waitSeconds = Math.min(20, Math.floor(remainingMs / 1000));
    const wanted = Math.min(MAX_PER_RECEIVE, request.batchSize - batch.length);
    const more = await receive(sqs, request, wanted, waitSeconds);
    batch.push(...more);
    if (more.length === 0 && waitSeconds === 0)
      await pause(Math.min(WINDOW_POLL_GAP_MS, remainingMs), request.signal);
  }
  return batch;
}

async function receive(
  sqs: SQSClient,
  request: BatchRequest,
  max: number,
  waitSeconds: number,
): Promise<Message[]> {
  const output = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: request.queueUrl,
      MaxNumberOfMessages: max,
      WaitTimeSeconds: waitSeconds,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
    { abortSignal: request.signal },
  );
  return output.Messages ?? [];
}

export interface DeleteResult {
  readonly deleted: readonly string[];
  /** Message ids SQS refused to delete (an expired receipt handle, for one): they come back. */
  readonly failed: readonly { readonly messageId: string; readonly reason: string }[];
}

/** Deletes by receipt handle, 10 per DeleteMessageBatch call. */
export async function deleteRecords(
  sqs: SQSClient,
  queueUrl: string,
  records: readonly { readonly messageId: string; readonly receiptHandle: string }[],
): Promise<DeleteResult> {
  const deleted: string[] = [];
  const failed: { messageId: string; reason: string }[] = [];
  for (let start = 0; start < records.length; start += MAX_PER_RECEIVE) {
    const chunk = records.slice(start, start + MAX_PER_RECEIVE);
    const output = await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: chunk.map((record, index) => ({ Id: String(index), ReceiptHandle: record.receiptHandle })),
      }),
    );
    for (const entry of output.Successful ?? []) deleted.push(chunk[Number(entry.Id)].messageId);
    for (const entry of output.Failed ?? []) {
      failed.push({
        messageId: chunk[Number(entry.Id)].messageId,
        reason: `${entry.Code}: ${entry.Message}`,
      });
    }
  }
  return { deleted, failed };
}

/** 30 s is SQS's default when the attribute was never set. */
export async function readVisibilityTimeoutSeconds(sqs: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['VisibilityTimeout'] }),
  );
  return Number(Attributes?.VisibilityTimeout ?? 30);
}
