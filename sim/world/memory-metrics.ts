/**
 * The world's CloudWatch metrics: what every environment's consumer published, summed. Each
 * environment counts into its own sink, which holds its counts until the consumer flushes them,
 * as EmfMetrics does: what a worker counted after its last flush dies with it.
 */
import type { ConsumerMetric } from '../../contract/metrics';
import type { ConsumerMetrics } from '../../lambdas/consumer/metrics';

export class MemoryMetrics {
  /** Published counts by metric, then by reason (`undefined`: counted without one). */
  private readonly published = new Map<ConsumerMetric, Map<string | undefined, number>>();

  /** A sink for one execution environment. */
  sink(): ConsumerMetrics {
    const pending: { metric: ConsumerMetric; reason?: string }[] = [];
    return {
      count: (metric, reason) => {
        pending.push(reason === undefined ? { metric } : { metric, reason });
      },
      flush: () => {
        for (const { metric, reason } of pending.splice(0)) {
          const series = this.published.get(metric) ?? new Map<string | undefined, number>();
          series.set(reason, (series.get(reason) ?? 0) + 1);
          this.published.set(metric, series);
        }
      },
    };
  }

  /** How many of `metric` were published: in all, or only those counted with `reason`. */
  total(metric: ConsumerMetric, reason?: string): number {
    const series = [...(this.published.get(metric) ?? new Map<string | undefined, number>())];
    return series
      .filter(([counted]) => reason === undefined || counted === reason)
      .reduce((sum, [, count]) => sum + count, 0);
  }

  /** Every published metric's total, by name: for whole-picture assertions. */
  totals(): Record<string, number> {
    return Object.fromEntries([...this.published.keys()].map((metric) => [metric, this.total(metric)]));
  }
}
