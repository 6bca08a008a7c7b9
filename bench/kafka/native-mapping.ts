/**
 * Lambda's Kafka event source mapping without poison-quarantine, as a model over the same topic
 * (sim/world's MemoryTopic and Lambda's Kafka event, kafkaEvent), invoking the plain handler
 * (native-handler.ts). Its rules, as Lambda documents them for Kafka:
 * - a normal return commits past the batch;
 * - a function error or a crash commits nothing and the same batch is invoked again;
 * - MaximumRetryAttempts -1 (the default) retries for ever: the partition waits until the record
 *   leaves the topic's retention;
 * - MaximumRetryAttempts n with an on-failure destination (provisioned mode only): after n + 1
 *   failed invocations the batch goes to the destination (SQS, SNS, S3 or a Kafka topic) and the
 *   partition commits past it. BisectBatchOnFunctionError off: the whole batch goes, healthy
 *   records with the failed one. Partial batch responses are not used: the handler throws.
 * Left out: MaximumRecordAgeInSeconds (default -1), and the destination's own failures.
 */

import { Clock } from '../../sim/world/clock';
import { kafkaEvent } from '../../sim/world/kafka-mapping';
import { MemoryTopic, type TopicRecord } from '../../sim/world/memory-topic';
import { VirtualTimers } from '../../sim/world/virtual-timers';
import { WORLD_TOPIC } from '../../sim/world/world';
import type { InvocationKind, KafkaSide } from './drive';
import type { RecordFate } from './figures';
import { nativeKafkaHandler, WorkerDied } from './native-handler';
import { dependencyDown, type KafkaScenario } from './scenario';

export interface NativeSettings {
  /** -1: for ever (Lambda's default); n: n retries, then the on-failure destination. */
  readonly maximumRetryAttempts: number;
}

/** A batch the mapping sent to its on-failure destination. */
export interface DestinationBatch {
  readonly partition: number;
  readonly offsets: readonly number[];
}

export class NativeKafkaMapping implements KafkaSide {
  readonly clock = new Clock();
  readonly timers = new VirtualTimers(this.clock);
  readonly topic: MemoryTopic;
  readonly destination: DestinationBatch[] = [];
  private readonly retrying = new Map<
    number,
    { readonly records: readonly TopicRecord[]; failures: number }
  >();
  private readonly handler: (event: ReturnType<typeof kafkaEvent>) => void;

  constructor(
    private readonly settings: NativeSettings,
    scenario: KafkaScenario,
  ) {
    this.topic = new MemoryTopic(WORLD_TOPIC, scenario.partitions, () => this.clock.now());
    const start = this.clock.now();
    this.handler = nativeKafkaHandler({ down: () => dependencyDown(scenario, start, this.clock.now()) });
  }

  mapping(): 'enabled' {
    return 'enabled';
  }

  async poll(partition: number, batchSize: number) {
    const retry = this.retrying.get(partition);
    const records = retry?.records ?? this.topic.fetch(partition, batchSize);
    const offsets = records.map((record) => record.offset);
    const kind = this.invoke(records);
    if (kind === 'returned') {
      this.retrying.delete(partition);
      this.commitPast(partition, records);
      return { kind, offsets };
    }
    const failures = (retry?.failures ?? 0) + 1;
    const { maximumRetryAttempts } = this.settings;
    if (maximumRetryAttempts >= 0 && failures > maximumRetryAttempts) {
      this.destination.push({ partition, offsets });
      this.retrying.delete(partition);
      this.commitPast(partition, records);
    } else {
      this.retrying.set(partition, { records, failures });
    }
    return { kind, offsets };
  }

  fate(partition: number, offset: number): RecordFate {
    const sent = this.destination.some(
      (batch) => batch.partition === partition && batch.offsets.includes(offset),
    );
    if (sent) return { kind: 'sent-to-destination' };
    if (this.topic.committedOffset(partition) > offset) return { kind: 'completed' };
    return { kind: 'blocking' };
  }

  /** Records sent to the destination, the given one left out (the poison). */
  sentToDestination(except?: { readonly partition: number; readonly offset: number }): number {
    return this.destination.reduce(
      (sum, batch) =>
        sum +
        batch.offsets.filter((offset) => batch.partition !== except?.partition || offset !== except.offset)
          .length,
      0,
    );
  }

  private invoke(records: readonly TopicRecord[]): InvocationKind {
    try {
      this.handler(kafkaEvent(this.topic, records));
      return 'returned';
    } catch (error) {
      return error instanceof WorkerDied ? 'crashed' : 'function-error';
    }
  }

  private commitPast(partition: number, records: readonly TopicRecord[]): void {
    const last = records.at(-1);
    if (last !== undefined) this.topic.commit(partition, last.offset + 1);
  }
}
