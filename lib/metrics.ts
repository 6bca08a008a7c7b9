import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import {
  BY_REASON,
  type ConsumerMetric,
  METRIC_DIMENSION,
  METRIC_NAMESPACE,
  METRIC_SERVICE,
  REASONS_OF,
} from '../contract/metrics';

/** Options of a consumer metric: CloudWatch's, and which reason's series. */
export interface ConsumerMetricOptions extends cloudwatch.MetricOptions {
  /**
   * Only this reason's series: a quarantine's reason (`crash-limit`, ...) for Quarantines, a
   * pause's reason (`outage`, ...) for BreakerTrips; no other metric is counted by reason.
   * @default the total of every reason
   */
  readonly reason?: string;
}

/** Throws, naming the value, for a reason no series of `metricName` has. */
function checkReason(metricName: ConsumerMetric, reason: string): void {
  const reasons = REASONS_OF[metricName];
  if (reasons === undefined) {
    throw new Error(
      `${metricName} is not counted by reason (reason: ${JSON.stringify(reason)}); only ${BY_REASON.join(' and ')} are`,
    );
  }
  if (!reasons.includes(reason)) {
    throw new Error(`${metricName}: reason ${JSON.stringify(reason)} is none of ${reasons.join(', ')}`);
  }
}

/**
 * poison-quarantine's own metrics of one pipeline, as the alarms and the dashboard read them:
 * the consumer's (contract/metrics.ts, embedded in its log) and the operations state machines'
 * (lib/operations/protocol.ts), each series named by the source: the queue's ARN, or a Kafka
 * source's `<cluster>/<topic>`.
 */
export class PipelineMetrics {
  constructor(private readonly sourceName: string) {}

  /**
   * A consumer count, summed per minute unless `options` say otherwise; with `reason`, the
   * series of that reason only (the counts kept by reason, BY_REASON).
   */
  consumer(metricName: ConsumerMetric, options: ConsumerMetricOptions = {}): cloudwatch.Metric {
    const { reason, ...metricOptions } = options;
    if (reason !== undefined) checkReason(metricName, reason);
    return new cloudwatch.Metric({
      statistic: cloudwatch.Stats.SUM,
      period: Duration.minutes(1),
      ...metricOptions,
      namespace: METRIC_NAMESPACE,
      metricName,
      dimensionsMap: {
        [METRIC_DIMENSION.service]: METRIC_SERVICE,
        [METRIC_DIMENSION.queue]: this.sourceName,
        ...(reason === undefined ? {} : { [METRIC_DIMENSION.reason]: reason }),
      },
    });
  }

  /**
   * A consumer count kept by reason (BY_REASON), one line per reason that occurred. A search,
   * so a reason is shown without being listed here; dashboards only (alarms take the total).
   */
  consumerByReason(metricName: ConsumerMetric, period = Duration.minutes(1)): cloudwatch.MathExpression {
    const { service, queue, reason } = METRIC_DIMENSION;
    return new cloudwatch.MathExpression({
      expression:
        `SEARCH('{${METRIC_NAMESPACE},${queue},${reason},${service}} MetricName="${metricName}" ` +
        `${queue}="${this.sourceName}"', 'Sum', ${period.toSeconds()})`,
      usingMetrics: {},
      label: '',
      period,
    });
  }

  /** A metric the operations state machines publish (OPERATIONS_METRIC). */
  operations(metricName: string, statistic: string, period = Duration.minutes(5)): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: METRIC_NAMESPACE,
      metricName,
      statistic,
      period,
      dimensionsMap: { [METRIC_DIMENSION.queue]: this.sourceName },
    });
  }
}
