/**
 * The Kafka section's topic, the same records for every side: partitions written at a steady
 * rate from the run's start, one poison record (its worker dies on it, every time) or an outage
 * of the dependency every record calls, and the pace at which Lambda's Kafka mapping polls.
 */
import type { MemoryTopic } from '../../sim/world/memory-topic';

export interface KafkaScenario {
  readonly partitions: number;
  readonly recordsPerPartition: number;
  /** Records produced on each partition per second of virtual time, from the run's start. */
  readonly recordsPerSecond: number;
  /** Records per invocation at most (the construct's default batch size, on every side). */
  readonly batchSize: number;
  readonly poison?: { readonly partition: number; readonly offset: number };
  /** The dependency fails (a 503, transient) from `startSeconds` for `seconds`. */
  readonly outage?: { readonly startSeconds: number; readonly seconds: number };
  /** A run ends here at the latest: a partition still held then is reported as held. */
  readonly horizonSeconds: number;
}

/**
 * The mapping's pace, the same for every side: a poll that committed and left records waiting is
 * followed by the next one after the fetch and invocation's round trip; any other (a failure, or
 * nothing left) about a second after it began, as the campaign's Kafka mapping repolls
 * (sim/campaign/kafka-polls.ts). Lambda documents no backoff between a Kafka batch's retries.
 */
export const PACE = { roundTripMs: 100, repollMs: 1000 } as const;

/** A corrupted protobuf: bytes that are no UTF-8 at all; the deserializer dies on them. */
export const POISON_VALUE = Buffer.from([0x0a, 0xff, 0xfe, 0x00, 0xc3, 0x28]);

export function isPoison(value: Buffer): boolean {
  return value.equals(POISON_VALUE);
}

/** Whether the dependency is down at `now` (epoch ms), for a run that began at `start`. */
export function dependencyDown(scenario: KafkaScenario, start: number, now: number): boolean {
  const { outage } = scenario;
  if (outage === undefined) return false;
  const from = start + outage.startSeconds * 1000;
  return now >= from && now < from + outage.seconds * 1000;
}

/** Writes each partition's records at their time: offset n at start + n / rate. */
export class Producer {
  private readonly produced: number[];

  constructor(
    private readonly topic: MemoryTopic,
    private readonly scenario: KafkaScenario,
    readonly start: number,
  ) {
    this.produced = Array.from({ length: scenario.partitions }, () => 0);
  }

  /** When offset `offset` of any partition is written. */
  at(offset: number): number {
    return this.start + Math.round((offset * 1000) / this.scenario.recordsPerSecond);
  }

  /** Writes every record due by `now`. */
  produceDue(now: number): void {
    for (let partition = 0; partition < this.scenario.partitions; partition += 1) {
      while (!this.producedAll(partition) && this.at(this.produced[partition]) <= now) {
        this.topic.produce(partition, { value: this.valueOf(partition, this.produced[partition]) });
        this.produced[partition] += 1;
      }
    }
  }

  producedAll(partition: number): boolean {
    return this.produced[partition] >= this.scenario.recordsPerPartition;
  }

  /** When the partition's next record is written, if one is left. */
  nextAt(partition: number): number | undefined {
    return this.producedAll(partition) ? undefined : this.at(this.produced[partition]);
  }

  private valueOf(partition: number, offset: number): Buffer {
    const { poison } = this.scenario;
    if (poison?.partition === partition && poison.offset === offset) return POISON_VALUE;
    return Buffer.from(JSON.stringify({ orderId: `o-${partition}-${offset}` }));
  }
}
