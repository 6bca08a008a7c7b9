/**
 * The Kafka section's figures, read from a drive's log of invocations (drive.ts), the same way
 * for every side: how long a partition was held and by how many invocations, where the poison
 * ended, and how the topic flowed through an outage.
 */
import type { DriveLog, Invocation } from './drive';

/** Where a record ended by the run's end. */
export type RecordFate =
  | { readonly kind: 'quarantined'; readonly reason: string }
  | { readonly kind: 'sent-to-destination' }
  | { readonly kind: 'completed' }
  | { readonly kind: 'blocking' };

export interface PoisonHold {
  /**
   * Virtual seconds from the poison's first delivery until its partition committed past it;
   * null: it never did by the run's horizon (the partition waits for the topic's retention).
   */
  readonly seconds: number | null;
  /** Invocations whose batch held the poison, from its first delivery to that commit (or the horizon). */
  readonly invocations: number;
  /** Of them, how many failed (a crash or a function error). */
  readonly failed: number;
  /** The span they were counted over: to the commit past it, or to the horizon. */
  readonly countedSeconds: number;
}

export interface PartitionHold {
  /** Invocations that were handed records and committed none. */
  readonly heldInvocations: number;
  /** The longest span from such an invocation to the commit that moved the partition again. */
  readonly longestHoldSeconds: number;
}

export interface OutageFlow {
  /** Invocations that began while the dependency was down, every partition. */
  readonly invocationsDuringOutage: number;
  /** Invocations that failed (a function error or a crash), over the whole run. */
  readonly failedInvocations: number;
  /** The longest hold of any partition (PartitionHold). */
  readonly longestHoldSeconds: number;
  /**
   * Seconds from the dependency's return until every partition had caught up (nothing left to
   * read right after a commit); null: not by the run's end.
   */
  readonly caughtUpSeconds: number | null;
}

const seconds = (ms: number) => ms / 1000;
const ofPartition = (log: DriveLog, partition: number) =>
  log.invocations.filter((invocation) => invocation.partition === partition);
const failed = (invocation: Invocation) => invocation.kind !== 'returned';

export function poisonHold(log: DriveLog, poison: { partition: number; offset: number }): PoisonHold {
  const delivered = ofPartition(log, poison.partition).filter((invocation) =>
    invocation.offsets.includes(poison.offset),
  );
  const first = delivered[0];
  if (first === undefined) throw new Error(`the poison at offset ${poison.offset} was never delivered`);
  const past = ofPartition(log, poison.partition).find(
    (invocation) => invocation.at >= first.at && invocation.committedAfter > poison.offset,
  );
  const until = past?.endedAt ?? log.end;
  const counted = delivered.filter((invocation) => invocation.at <= until);
  return {
    seconds: past === undefined ? null : seconds(past.endedAt - first.at),
    invocations: counted.length,
    failed: counted.filter(failed).length,
    countedSeconds: seconds(until - first.at),
  };
}

export function partitionHold(log: DriveLog, partition: number): PartitionHold {
  let heldInvocations = 0;
  let longest = 0;
  let heldSince: number | undefined;
  for (const invocation of ofPartition(log, partition)) {
    if (invocation.committedAfter === invocation.committedBefore) {
      heldInvocations += 1;
      heldSince ??= invocation.at;
    } else if (heldSince !== undefined) {
      longest = Math.max(longest, invocation.endedAt - heldSince);
      heldSince = undefined;
    }
  }
  if (heldSince !== undefined) longest = Math.max(longest, log.end - heldSince);
  return { heldInvocations, longestHoldSeconds: seconds(longest) };
}

/** The holds of several partitions as one: invocations summed, the longest span. */
export function holdOf(log: DriveLog, partitions: readonly number[]): PartitionHold {
  const holds = partitions.map((partition) => partitionHold(log, partition));
  return {
    heldInvocations: holds.reduce((sum, hold) => sum + hold.heldInvocations, 0),
    longestHoldSeconds: Math.max(0, ...holds.map((hold) => hold.longestHoldSeconds)),
  };
}

export function outageFlow(
  log: DriveLog,
  partitions: number,
  outage: { readonly from: number; readonly until: number },
): OutageFlow {
  const caughtUp = Array.from({ length: partitions }, (_, partition) =>
    ofPartition(log, partition).find(
      (invocation) =>
        invocation.at >= outage.until &&
        invocation.committedAfter > invocation.committedBefore &&
        invocation.lagAfter === 0,
    ),
  );
  const all = Array.from({ length: partitions }, (_, partition) => partition);
  return {
    invocationsDuringOutage: log.invocations.filter(
      (invocation) => invocation.at >= outage.from && invocation.at < outage.until,
    ).length,
    failedInvocations: log.invocations.filter(failed).length,
    longestHoldSeconds: holdOf(log, all).longestHoldSeconds,
    caughtUpSeconds: caughtUp.some((invocation) => invocation === undefined)
      ? null
      : seconds(Math.max(...caughtUp.map((invocation) => invocation?.endedAt ?? 0)) - outage.until),
  };
}
