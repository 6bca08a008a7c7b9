/**
 * The consumer's metrics as CloudWatch reads them: embedded metric format lines on stdout, one per
 * dimension set, in the namespace and with the dimensions the construct's alarms name.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CONSUMER_METRIC } from '../../contract/metrics';
import { createConsumer } from '../../lambdas/consumer/create-consumer';
import { EmfMetrics, loggingFailures } from '../../lambdas/consumer/metrics';
import { worldEnvironment } from '../../sim/world/world';

const QUEUE_ARN = 'arn:aws:sqs:eu-west-1:111111111111:orders';

/** The JSON lines written to stdout while `act` runs. */
function stdoutLines(act: () => void): Record<string, unknown>[] {
  const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    act();
    return write.mock.calls.map(([chunk]) => JSON.parse(String(chunk)) as Record<string, unknown>);
  } finally {
    write.mockRestore();
  }
}

describe('the consumer metrics in embedded metric format', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('given counts with and without a reason, then one line for the totals and one per reason, each naming its dimensions', () => {
    // Prepare
    const metrics = new EmfMetrics({ queueArn: QUEUE_ARN, logger: new Logger({ logLevel: 'SILENT' }) });
    metrics.count(CONSUMER_METRIC.attempts);
    metrics.count(CONSUMER_METRIC.attempts);
    metrics.count(CONSUMER_METRIC.quarantines, 'crash-limit');
    metrics.count(CONSUMER_METRIC.quarantines, 'permanent-error');
    metrics.count(CONSUMER_METRIC.quarantines, 'crash-limit');

    // Act
    const lines = stdoutLines(() => metrics.flush());

    // Assess
    const emf = (dimensions: string[], names: string[]) => ({
      Timestamp: expect.any(Number),
      CloudWatchMetrics: [
        {
          Namespace: 'PoisonQuarantine',
          Dimensions: [dimensions],
          Metrics: names.map((Name) => ({ Name, Unit: 'Count' })),
        },
      ],
    });
    expect(lines).toStrictEqual([
      {
        _aws: emf(['service', 'Queue'], ['AttemptsStarted', 'Quarantines']),
        service: 'poison-quarantine',
        Queue: QUEUE_ARN,
        AttemptsStarted: 2,
        Quarantines: 3,
      },
      {
        _aws: emf(['service', 'Queue', 'Reason'], ['Quarantines']),
        service: 'poison-quarantine',
        Queue: QUEUE_ARN,
        Reason: 'crash-limit',
        Quarantines: 2,
      },
      {
        _aws: emf(['service', 'Queue', 'Reason'], ['Quarantines']),
        service: 'poison-quarantine',
        Queue: QUEUE_ARN,
        Reason: 'permanent-error',
        Quarantines: 1,
      },
    ]);
  });

  it('given a reason for a metric not kept by reason, then only its total is written', () => {
    // Prepare
    const metrics = new EmfMetrics({ queueArn: QUEUE_ARN, logger: new Logger({ logLevel: 'SILENT' }) });
    metrics.count(CONSUMER_METRIC.retries, 'transient');

    // Act
    const lines = stdoutLines(() => metrics.flush());

    // Assess
    expect(lines.map(({ Reason, Retries }) => ({ Reason, Retries }))).toStrictEqual([
      { Reason: undefined, Retries: 1 },
    ]);
  });

  it('given nothing counted since the last flush, then nothing is written: no empty line, no warning', () => {
    // Prepare
    const warn = vi.fn();
    const logger = new Logger({ logLevel: 'SILENT' });
    logger.warn = warn;
    const metrics = new EmfMetrics({ queueArn: QUEUE_ARN, logger });
    metrics.count(CONSUMER_METRIC.duplicates);
    stdoutLines(() => metrics.flush());

    // Act
    const lines = stdoutLines(() => metrics.flush());

    // Assess
    expect(lines).toStrictEqual([]);
    expect(warn).not.toHaveBeenCalled();
  });
});

describe('the consumer handler', () => {
  it('given an invocation, then the logger gets its Lambda context: the request id and the cold start', async () => {
    // Prepare: no AWS behind the endpoint; only what happens before the first call matters here.
    const logger = new Logger({ logLevel: 'SILENT' });
    const addContext = vi.spyOn(logger, 'addContext');
    const handler = createConsumer({
      processor: { process: async () => undefined },
      env: worldEnvironment(),
      clientOptions: {
        endpoint: 'http://127.0.0.1:9',
        region: 'eu-west-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      },
      logger,
    });
    const context = { awsRequestId: 'req-1', functionName: 'consumer' } as Context;

    // Act
    await handler({ Records: [] } as SQSEvent, context).catch(() => undefined);

    // Assess
    expect(addContext).toHaveBeenCalledWith(context);
  });
});

describe('metrics that fail', () => {
  it.each([['count'], ['flush']] as const)(
    'given a %s that throws, then a warning line, and nothing thrown',
    (what) => {
      // Prepare
      const broken = new Error('EMF refused');
      const failing = {
        count: () => {
          throw broken;
        },
        flush: () => {
          throw broken;
        },
      };
      const warn = vi.fn();
      const metrics = loggingFailures(failing, { warn } as unknown as Logger);

      // Act
      if (what === 'count') metrics.count(CONSUMER_METRIC.attempts);
      else metrics.flush();

      // Assess
      expect(warn).toHaveBeenCalledWith(`a metric ${what} failed`, {
        event: 'metrics-failed',
        error: broken,
      });
    },
  );
});
