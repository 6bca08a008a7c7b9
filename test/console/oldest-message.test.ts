/**
 * The age of the queue's oldest message on the overview: read from moto's CloudWatch with real
 * SDK calls, where SQS publishes it (a datum put there, as SQS would), and rendered next to the
 * depth, for an age, for none reported, and for a read that failed (the page still renders).
 */
import { PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overviewPage } from '../../console/pages/overview';
import type { Overview } from '../../console/reads';
import { createClients } from '../../lambdas/adapters/clients';
import { type OldestMessageAge, oldestMessageAge } from '../../lambdas/adapters/queue-age';
import { LOCAL_CREDENTIALS, type LocalAws, startLocalAws } from '../../tools/local-aws/moto';

const QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:orders-source';

let aws: LocalAws;
beforeAll(async () => {
  aws = await startLocalAws();
});
afterAll(async () => aws?.stop());

function clients(endpoint = aws.endpoint) {
  return createClients({ endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
}

/** SQS's own series: namespace AWS/SQS, the queue's name as its only dimension. */
async function publishAge(queueName: string, points: readonly { seconds: number; at: Date }[]) {
  await (await clients().cloudwatch()).send(
    new PutMetricDataCommand({
      Namespace: 'AWS/SQS',
      MetricData: points.map(({ seconds, at }) => ({
        MetricName: 'ApproximateAgeOfOldestMessage',
        Dimensions: [{ Name: 'QueueName', Value: queueName }],
        Value: seconds,
        Unit: 'Seconds',
        Timestamp: at,
      })),
    }),
  );
}

/** The overview of a quiet pipeline with this reading of the age; its "Oldest message" fact. */
async function oldestMessageFact(oldestMessage: OldestMessageAge): Promise<string> {
  const overview: Overview = {
    functionName: 'orders-consumer',
    mapping: undefined,
    queue: { visible: 3, inFlight: 1, delayed: 0 },
    oldestMessage,
    control: {
      breaker: { breaker: undefined, waitingForOperator: false, audit: [] },
      isolation: undefined,
      freeze: { frozen: false },
    },
    pauseRuns: [],
    unresolved: [],
    recent: [],
  };
  const page = String(await overviewPage(overview, '24h', new Date()));
  expect(page).toContain('<dt>Queue</dt><dd>3 visible, 1 in flight, 0 delayed</dd>');
  return /<dt>Oldest message<\/dt><dd>(.*?)<\/dd>/s.exec(page)?.[1] ?? '(no Oldest message fact)';
}

describe('the age of the oldest message', () => {
  it('given SQS published ages in the last minutes, then the latest minute maximum, shown next to the depth', async () => {
    // Prepare: an older minute, then two points in the latest minute, and another queue's.
    const now = new Date();
    const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
    await publishAge('orders-source', [
      { seconds: 100, at: ago(150) },
      { seconds: 252, at: ago(30) },
      { seconds: 240, at: ago(20) },
    ]);
    await publishAge('orders-other', [{ seconds: 999, at: ago(10) }]);

    // Act
    const age = await oldestMessageAge(clients().cloudwatch, QUEUE_ARN, now);

    // Assess
    expect(age).toMatchObject({ kind: 'reported', seconds: 252 });
    const at = age.kind === 'reported' ? new Date(age.at) : now;
    expect(at.getTime()).toBeGreaterThan(ago(90).getTime());
    expect(at.getTime()).toBeLessThanOrEqual(now.getTime());
    expect(await oldestMessageFact(age)).toBe(
      `4 min 12 s (CloudWatch, 1-minute maximum at ${at.toISOString().slice(11, 16)} UTC)`,
    );
  });

  it('given no datapoint in the last five minutes (the local AWS publishes none), then it says so plainly', async () => {
    // Prepare: a datapoint older than the five minutes read.
    const now = new Date();
    await publishAge('orders-quiet', [{ seconds: 60, at: new Date(now.getTime() - 10 * 60_000) }]);

    // Act
    const age = await oldestMessageAge(
      clients().cloudwatch,
      'arn:aws:sqs:us-east-1:123456789012:orders-quiet',
      now,
    );

    // Assess
    expect(age).toStrictEqual({ kind: 'not-reported' });
    expect(await oldestMessageFact(age)).toBe(
      '<span class="muted">not reported in the last 5 minutes: SQS publishes it to CloudWatch every minute while the queue holds a message; the local AWS publishes none</span>',
    );
  });

  it('given CloudWatch cannot be reached, then a short reason instead of the age, and the page renders', async () => {
    // Prepare: nothing listens on port 9 of this machine.
    const unreachable = clients('http://127.0.0.1:9');

    // Act
    const age = await oldestMessageAge(unreachable.cloudwatch, QUEUE_ARN, new Date());

    // Assess
    expect(age).toStrictEqual({ kind: 'unreadable', problem: 'ECONNREFUSED' });
    expect(await oldestMessageFact(age)).toBe(
      '<span class="muted">not read from CloudWatch (pq reads it with cloudwatch:GetMetricData): ECONNREFUSED</span>',
    );
  });
});
