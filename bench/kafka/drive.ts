/**
 * Plays a Kafka mapping's polls over a topic in virtual time, the same way for every side: each
 * partition is polled on its own, one invocation at a time (Lambda's Kafka mapping), all of them
 * at once, at the pace of scenario.ts, while records are written at their rate. What a poll does
 * (fetch, invoke, commit or retry) is the side's. Every invocation is logged as data; the
 * figures are read from the log (figures.ts).
 */
import { PROBE_FOOTPRINT } from '../../contract/control';
import type { Clock } from '../../sim/world/clock';
import type { MemoryTopic } from '../../sim/world/memory-topic';
import type { VirtualTimers } from '../../sim/world/virtual-timers';
import { type KafkaScenario, PACE, Producer } from './scenario';

export type InvocationKind = 'returned' | 'function-error' | 'crashed';

/** A side: the consumer and its mapping's rules. */
export interface KafkaSide {
  readonly clock: Clock;
  readonly timers: VirtualTimers;
  readonly topic: MemoryTopic;
  /** One poll of one partition: what it fetched (offsets) and how the invocation ended. */
  poll(
    partition: number,
    batchSize: number,
  ): Promise<{ readonly kind: InvocationKind; readonly offsets: readonly number[] }>;
  /** Whether the mapping polls now: a pause disables it, a half-open probe holds it at one record. */
  mapping(): 'enabled' | 'disabled' | 'probe';
}

export interface Invocation {
  readonly partition: number;
  /** Epoch ms (virtual) when it began and ended. */
  readonly at: number;
  readonly endedAt: number;
  readonly kind: InvocationKind;
  readonly offsets: readonly number[];
  readonly committedBefore: number;
  readonly committedAfter: number;
  /** Records written and not committed right after it. */
  readonly lagAfter: number;
}

export interface DriveLog {
  readonly start: number;
  /** When the run ended: every record committed, or the horizon. */
  readonly end: number;
  readonly invocations: readonly Invocation[];
}

export async function driveTopic(side: KafkaSide, scenario: KafkaScenario): Promise<DriveLog> {
  const start = side.clock.now();
  const producer = new Producer(side.topic, scenario, start);
  const horizon = start + scenario.horizonSeconds * 1000;
  const invocations: Invocation[] = [];
  const wait = (until: number) =>
    side.timers.after(Math.min(until, horizon) - side.clock.now(), new AbortController().signal);

  const pollPartition = async (partition: number): Promise<void> => {
    let nextPollAt = start;
    for (;;) {
      producer.produceDue(side.clock.now());
      const now = side.clock.now();
      const mapping = side.mapping();
      // Done once every record is committed and the mapping is itself again (a pause ended).
      const drained = producer.producedAll(partition) && side.topic.lag(partition) === 0;
      if ((drained && mapping === 'enabled') || now >= horizon) return;
      if (mapping === 'disabled') {
        await wait(now + PACE.repollMs);
        continue;
      }
      if (side.topic.lag(partition) === 0) {
        // Nothing to read: the next record, or (all written, a pause still on) the pause's next step.
        await wait(producer.nextAt(partition) ?? now + PACE.repollMs);
        continue;
      }
      if (now < nextPollAt) {
        await wait(nextPollAt);
        continue;
      }
      const committedBefore = side.topic.committedOffset(partition);
      const batchSize = mapping === 'probe' ? PROBE_FOOTPRINT.batchSize : scenario.batchSize;
      const { kind, offsets } = await side.poll(partition, batchSize);
      const committedAfter = side.topic.committedOffset(partition);
      const endedAt = side.clock.now();
      producer.produceDue(endedAt);
      const lagAfter = side.topic.lag(partition);
      invocations.push({
        partition,
        at: now,
        endedAt,
        kind,
        offsets,
        committedBefore,
        committedAfter,
        lagAfter,
      });
      const busy = committedAfter > committedBefore && lagAfter > 0;
      nextPollAt = busy ? endedAt + PACE.roundTripMs : Math.max(endedAt, now + PACE.repollMs);
    }
  };

  await Promise.all(Array.from({ length: scenario.partitions }, (_, partition) => pollPartition(partition)));
  return { start, end: Math.min(side.clock.now(), horizon), invocations };
}
