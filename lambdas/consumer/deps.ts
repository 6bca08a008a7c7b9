/**
 * Everything the consumer's edges need, built once per execution environment by
 * create-consumer.ts. Time, ids and randomness come in here so tests can fix them.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { ConsumerConfig } from '../core/config';
import type { ConsumerPorts } from '../ports/consumer-ports';
import type { CallMeter } from './call-meter';
import type { ConsumerMetrics } from './metrics';
import type { ProcessorModule } from './types';

export interface ConsumerDeps extends ConsumerPorts {
  readonly config: ConsumerConfig;
  readonly processor: ProcessorModule;
  readonly logger: Logger;
  readonly meter: CallMeter;
  /** The consumer's counts (contract/metrics.ts), published once at the end of every invocation. */
  readonly metrics: ConsumerMetrics;
  /** This execution environment's id: recorded on every attempt it starts (rules 5 and 6). */
  readonly envId: string;
  readonly now: () => Date;
  readonly newId: () => string;
  /** Uniform in [0, 1), for backoff jitter. */
  readonly random: () => number;
  /** Waits `ms` (between retries of a settle write). */
  readonly sleep: (ms: number) => Promise<void>;
  /**
   * Resolves after `ms` unless `signal` aborts first (then it never settles and holds no timer):
   * how long a declared external call may go unanswered (work-context.ts).
   */
  readonly alarm: (ms: number, signal: AbortSignal) => Promise<void>;
}
