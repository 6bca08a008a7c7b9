/**
 * The consumer's metrics (contract/metrics.ts): counted in memory and written in CloudWatch's
 * embedded metric format by Powertools Metrics, one log line per dimension set, when an attempt's
 * work is about to start (counting.ts) and when the invocation ends. A count is a map increment,
 * so a metric never fails or delays a record; what a worker counted after its last publish is
 * lost if it dies (Lambda's own EMF notes say as much of a timeout).
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  BY_REASON,
  type ConsumerMetric,
  METRIC_DIMENSION,
  METRIC_NAMESPACE,
  METRIC_SERVICE,
} from '../../contract/metrics';

/** Where the consumer counts: EmfMetrics when deployed, a recording sink in the in-memory world. */
export interface ConsumerMetrics {
  /** One more `metric`; `reason` names its series too when the metric is kept BY_REASON. */
  count(metric: ConsumerMetric, reason?: string): void;
  /** Publishes what was counted since the last flush, and starts over. */
  flush(): void;
}

/** `metrics` whose failures are logged, never thrown: a metric must not fail the record it counts. */
export function loggingFailures(metrics: ConsumerMetrics, logger: Logger): ConsumerMetrics {
  const safely = (what: 'count' | 'flush', run: () => void) => {
    try {
      run();
    } catch (error) {
      logger.warn(`a metric ${what} failed`, { event: 'metrics-failed', error: error as Error });
    }
  };
  return {
    count: (metric, reason) => safely('count', () => metrics.count(metric, reason)),
    flush: () => safely('flush', () => metrics.flush()),
  };
}

/** Counts since the last flush: the total series under `undefined`, the others by reason. */
type Counts = Map<string | undefined, Map<ConsumerMetric, number>>;

export class EmfMetrics implements ConsumerMetrics {
  private readonly counts: Counts = new Map();
  /** One Powertools instance per dimension set: EMF gives every metric of a line the same dimensions. */
  private readonly writers = new Map<string | undefined, Metrics>();

  constructor(
    private readonly options: {
      /** The `Queue` dimension: the source queue's ARN, as the construct's alarms name it. */
      readonly queueArn: string;
      /** Powertools' own warnings go here, as structured lines. */
      readonly logger: Logger;
    },
  ) {}

  count(metric: ConsumerMetric, reason?: string): void {
    add(this.counts, undefined, metric);
    if (reason !== undefined && BY_REASON.includes(metric)) add(this.counts, reason, metric);
  }

  flush(): void {
    try {
      for (const [reason, counts] of this.counts) {
        const writer = this.writerFor(reason);
        for (const [metric, value] of counts) writer.addMetric(metric, MetricUnit.Count, value);
        writer.publishStoredMetrics();
      }
    } finally {
      this.counts.clear();
    }
  }

  private writerFor(reason: string | undefined): Metrics {
    let writer = this.writers.get(reason);
    if (writer === undefined) {
      writer = new Metrics({
        namespace: METRIC_NAMESPACE,
        serviceName: METRIC_SERVICE,
        defaultDimensions: {
          [METRIC_DIMENSION.queue]: this.options.queueArn,
          ...(reason === undefined ? {} : { [METRIC_DIMENSION.reason]: reason }),
        },
        logger: this.options.logger,
      });
      this.writers.set(reason, writer);
    }
    return writer;
  }
}

function add(counts: Counts, reason: string | undefined, metric: ConsumerMetric): void {
  const series = counts.get(reason) ?? new Map<ConsumerMetric, number>();
  series.set(metric, (series.get(metric) ?? 0) + 1);
  counts.set(reason, series);
}
