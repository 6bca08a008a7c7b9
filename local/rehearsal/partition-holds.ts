/**
 * A Kafka source's partitions, as the runner saw them held: each invocation that committed
 * nothing of its partition (its function failed, it crashed or timed out) held that partition
 * once. The issue 38 incident is judged by it: a poison record holds its own partition for at most
 * a bounded number of invocations (docs/behaviour.md, "Kafka sources") and no other partition.
 */
import type { ObservedRunner } from '../../tools/local-aws/runner';

/** `topic-partition-offset` -> `topic-partition`. */
function partitionOf(recordId: string): string {
  return recordId.slice(0, recordId.lastIndexOf('-'));
}

export interface PartitionHolds {
  /** Held invocations by `topic-partition`, only the partitions that were held. */
  counts(): Record<string, number>;
  close(): void;
}

export function watchPartitionHolds(runner: ObservedRunner): PartitionHolds {
  const held = new Map<string, number>();
  const count = ({ messageIds }: { readonly messageIds: readonly string[] }) => {
    const [first] = messageIds;
    if (first === undefined) return; // died between invocations: nothing was held
    const partition = partitionOf(first);
    held.set(partition, (held.get(partition) ?? 0) + 1);
  };
  const unsubscribe = [
    runner.on('function-error', count),
    runner.on('crash', count),
    runner.on('timeout', count),
  ];
  return {
    counts: () => Object.fromEntries([...held].sort(([a], [b]) => a.localeCompare(b))),
    close: () => {
      for (const stop of unsubscribe) stop();
    },
  };
}
