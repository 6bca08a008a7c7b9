/**
 * Everything the consumer's edges need, built once per execution environment by
 * create-consumer.ts. Time, ids and randomness come in here so tests can fix them.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { AttemptLedger } from '../adapters/attempt-ledger';
import type { ControlState } from '../adapters/control-state';
import type { Operations } from '../adapters/operations';
import type { QuarantineWriter } from '../adapters/quarantine-writer';
import type { SourceQueue } from '../adapters/source-queue';
import type { ConsumerConfig } from '../core/config';
import type { CallMeter } from './call-meter';
import type { ProcessorModule } from './types';

export interface ConsumerDeps {
  readonly config: ConsumerConfig;
  readonly processor: ProcessorModule;
  readonly ledger: AttemptLedger;
  readonly control: ControlState;
  readonly quarantine: QuarantineWriter;
  readonly operations: Operations;
  readonly queue: SourceQueue;
  readonly logger: Logger;
  readonly meter: CallMeter;
  /** This execution environment's id: recorded on every attempt it starts (rules 5 and 6). */
  readonly envId: string;
  readonly now: () => Date;
  readonly newId: () => string;
  /** Uniform in [0, 1), for backoff jitter. */
  readonly random: () => number;
}
