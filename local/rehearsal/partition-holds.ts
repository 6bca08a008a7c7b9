/**
 * A Kafka source's partitions, as the runner saw them held: each invocation that committed
 * nothing of its partition (its function failed, it crashed or timed out) held that partition
 * once. The issue 38 incident is judged by it: a poison record holds its own partition for at most
 * a bounded number of invocations (docs/behaviour.md, "Kafka sources") and no other partition.
 * An invocation that had no time left to wait out a crashed attempt's lease says so
 * (LEASE_WAIT_NO_TIME_LOG_EVENT): it holds the partition once more, and a machine too slow for the
 * judgement is told apart from a consumer that breaks the bound.
 */
import { LEASE_WAIT_NO_TIME_LOG_EVENT } from '../../contract/log-events';
import type { ObservedRunner } from '../../tools/local-aws/runner';
import { parseLine } from '../consumer-log';

/** `topic-partition-offset` -> `topic-partition`. */
function partitionOf(recordId: string): string {
  return recordId.slice(0, recordId.lastIndexOf('-'));
}

export interface PartitionHolds {
  /** Held invocations by `topic-partition`, only the partitions that were held. */
  counts(): Record<string, number>;
  /** Of those, the invocations that had no time left to wait for a lease, by `topic-partition`. */
  withoutTime(): Record<string, number>;
  close(): void;
}

export function watchPartitionHolds(runner: ObservedRunner): PartitionHolds {
  const held = new Map<string, number>();
  const withoutTime = new Map<string, number>();
  const count = ({ messageIds }: { readonly messageIds: readonly string[] }) => {
    const [first] = messageIds;
    if (first === undefined) return; // died between invocations: nothing was held
    increment(held, partitionOf(first));
  };
  const unsubscribe = [
    runner.on('function-error', count),
    runner.on('crash', count),
    runner.on('timeout', count),
    runner.on('log', ({ line }) => {
      const entry = parseLine(line);
      if (entry?.event === LEASE_WAIT_NO_TIME_LOG_EVENT && typeof entry.messageId === 'string')
        increment(withoutTime, partitionOf(entry.messageId));
    }),
  ];
  return {
    counts: () => sorted(held),
    withoutTime: () => sorted(withoutTime),
    close: () => {
      for (const stop of unsubscribe) stop();
    },
  };
}

function increment(counts: Map<string, number>, partition: string): void {
  counts.set(partition, (counts.get(partition) ?? 0) + 1);
}

function sorted(counts: ReadonlyMap<string, number>): Record<string, number> {
  return Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)));
}
