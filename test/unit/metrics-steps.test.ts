/**
 * consumer/metrics.ts `EmfMetrics`: a metric kept by reason but counted without one adds to its
 * total only, and each dimension set's Powertools writer is built once per execution environment
 * (cold start), so the settings it read then hold for the environment's life. Mutation testing
 * found these unpinned (issue 19).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CONSUMER_METRIC } from '../../contract/metrics';
import { EmfMetrics } from '../../lambdas/consumer/metrics';

const QUEUE_ARN = 'arn:aws:sqs:eu-west-1:111111111111:orders';

/** The metric values of the JSON lines written to stdout while `act` runs, the `_aws` block left out. */
function written(act: () => void): Record<string, unknown>[] {
  const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    act();
    return write.mock.calls.map(([chunk]) => {
      const { _aws, ...values } = JSON.parse(String(chunk)) as Record<string, unknown>;
      return values;
    });
  } finally {
    write.mockRestore();
  }
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('a metric kept by reason, counted without one', () => {
  it('given a quarantine counted with no reason, then its total counts it once and no reason line is written', () => {
    // Prepare
    const metrics = new EmfMetrics({ queueArn: QUEUE_ARN, logger: new Logger({ logLevel: 'SILENT' }) });
    metrics.count(CONSUMER_METRIC.quarantines);

    // Act
    const lines = written(() => metrics.flush());

    // Assess
    expect(lines).toStrictEqual([{ service: 'poison-quarantine', Queue: QUEUE_ARN, Quarantines: 1 }]);
  });
});

describe("a dimension set's writer", () => {
  it('given a series already written, then later flushes reuse its writer: settings read at the cold start hold', () => {
    // Prepare: the first flush builds the writers; Powertools reads POWERTOOLS_METRICS_DISABLED as it builds one.
    const metrics = new EmfMetrics({ queueArn: QUEUE_ARN, logger: new Logger({ logLevel: 'SILENT' }) });
    metrics.count(CONSUMER_METRIC.retries);
    written(() => metrics.flush());
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    metrics.count(CONSUMER_METRIC.retries);

    // Act
    const lines = written(() => metrics.flush());

    // Assess
    expect(lines).toStrictEqual([{ service: 'poison-quarantine', Queue: QUEUE_ARN, Retries: 1 }]);
  });
});
