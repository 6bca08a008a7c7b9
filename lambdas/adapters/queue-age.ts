/**
 * The age of the source queue's oldest message. SQS answers it to no call of its own: it
 * publishes `ApproximateAgeOfOldestMessage` to CloudWatch every minute (namespace AWS/SQS,
 * dimension QueueName) while the queue holds a message, the series the OldestMessageAge alarm
 * watches (lib/alarms.ts). `pq status` and the console show the latest 1-minute maximum.
 *
 * The age is shown next to the queue's depth, never instead of it: a failure to read it (no
 * cloudwatch:GetMetricData, no network) is a reading of its own, 'unreadable' with a short
 * reason, not an error that stops `pq status` or the console's overview.
 */
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { describeSdkError } from './sdk-errors';

/** AWS's names, not ours: what SQS publishes. */
const SQS_NAMESPACE = 'AWS/SQS';
const OLDEST_MESSAGE_AGE_METRIC = 'ApproximateAgeOfOldestMessage';
const QUEUE_NAME_DIMENSION = 'QueueName';

/** One datapoint a minute, as SQS publishes; the last five minutes, so one missed minute is no gap. */
const AGE_PERIOD_SECONDS = 60;
export const AGE_LOOKBACK_MINUTES = 5;

export type OldestMessageAge =
  /** The maximum of the latest minute CloudWatch holds; `at` is that minute's start. */
  | { readonly kind: 'reported'; readonly seconds: number; readonly at: string }
  /** No datapoint in the lookback: an empty queue, a new one, or the local AWS (which publishes none). */
  | { readonly kind: 'not-reported' }
  | { readonly kind: 'unreadable'; readonly problem: string };

/** The latest 1-minute maximum of the last five minutes before `now`. */
export async function oldestMessageAge(
  cloudwatch: () => Promise<CloudWatchClient>,
  queueArn: string,
  now: Date,
): Promise<OldestMessageAge> {
  try {
    // Loaded here, as the client is (clients.ts): `pq status --help` and other commands load none of it.
    const [client, { GetMetricDataCommand }] = await Promise.all([
      cloudwatch(),
      import('@aws-sdk/client-cloudwatch'),
    ]);
    const { MetricDataResults } = await client.send(
      new GetMetricDataCommand({
        StartTime: new Date(now.getTime() - AGE_LOOKBACK_MINUTES * 60_000),
        EndTime: now,
        ScanBy: 'TimestampDescending',
        MetricDataQueries: [
          {
            Id: 'age',
            MetricStat: {
              Metric: {
                Namespace: SQS_NAMESPACE,
                MetricName: OLDEST_MESSAGE_AGE_METRIC,
                Dimensions: [{ Name: QUEUE_NAME_DIMENSION, Value: queueNameOf(queueArn) }],
              },
              Period: AGE_PERIOD_SECONDS,
              Stat: 'Maximum',
            },
          },
        ],
      }),
    );
    return latest(MetricDataResults?.[0]?.Timestamps ?? [], MetricDataResults?.[0]?.Values ?? []);
  } catch (error) {
    return { kind: 'unreadable', problem: problemOf(error) };
  }
}

/** Short: a refusal by its name and HTTP status (AccessDenied, ...), a network failure by its code. */
function problemOf(error: unknown): string {
  const code =
    error instanceof Error && error.name === 'Error' ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : describeSdkError(error);
}

/** The value at the newest timestamp (TimestampDescending puts it first; not every service sorts). */
function latest(timestamps: readonly Date[], values: readonly number[]): OldestMessageAge {
  const points = timestamps.flatMap((at, index) => {
    const seconds = values[index];
    return seconds === undefined ? [] : [{ at, seconds }];
  });
  const newest = points.reduce<(typeof points)[number] | undefined>(
    (best, point) => (best === undefined || point.at > best.at ? point : best),
    undefined,
  );
  if (newest === undefined) return { kind: 'not-reported' };
  return { kind: 'reported', seconds: newest.seconds, at: newest.at.toISOString() };
}

/** arn:aws:sqs:REGION:ACCOUNT:NAME (a FIFO queue's name ends in .fifo, as the dimension's does). */
function queueNameOf(queueArn: string): string {
  return queueArn.slice(queueArn.lastIndexOf(':') + 1);
}
