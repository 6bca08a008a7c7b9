/**
 * Request units per second on single DynamoDB items (or one partition key's item collection),
 * in one-second buckets, so the peak second can be set against DynamoDB's per-partition limits.
 */
export const PARTITION_LIMITS = { writeUnitsPerSecond: 1_000, readUnitsPerSecond: 3_000 } as const;

/**
 * The share of a partition's limits a hot item may use at the modelled peak (issue 24): the rest
 * is headroom for a burst beyond the model, for keys that share the item's partition, and for
 * DynamoDB's own adaptive capacity to act before anything is throttled.
 */
export const HEADROOM_PERCENT = 50;

export type HotItem = 'breaker' | 'isolation' | 'failureWindow' | 'openRecordsCounter';

export interface ItemPeak {
  readonly peakWritesPerSecond: number;
  readonly peakReadsPerSecond: number;
  /** The busier of the two, as a percentage of its limit (rounded up). */
  readonly percentOfLimits: number;
}

export class ItemLoad {
  private readonly writes = new Map<HotItem, number[]>();
  private readonly reads = new Map<HotItem, number[]>();

  write(item: HotItem, at: number, units = 1): void {
    add(this.writes, item, at, units);
  }

  read(item: HotItem, at: number, units = 1): void {
    add(this.reads, item, at, units);
  }

  peaks(items: readonly HotItem[]): Record<HotItem, ItemPeak> {
    const entries = items.map((item): [HotItem, ItemPeak] => {
      const peakWritesPerSecond = peakOf(this.writes.get(item));
      const peakReadsPerSecond = peakOf(this.reads.get(item));
      return [
        item,
        {
          peakWritesPerSecond: Math.ceil(peakWritesPerSecond),
          peakReadsPerSecond: Math.ceil(peakReadsPerSecond),
          percentOfLimits: Math.ceil(
            100 *
              Math.max(
                peakWritesPerSecond / PARTITION_LIMITS.writeUnitsPerSecond,
                peakReadsPerSecond / PARTITION_LIMITS.readUnitsPerSecond,
              ),
          ),
        },
      ];
    });
    return Object.fromEntries(entries) as Record<HotItem, ItemPeak>;
  }
}

function add(buckets: Map<HotItem, number[]>, item: HotItem, at: number, units: number): void {
  const seconds = buckets.get(item) ?? [];
  const second = Math.floor(at / 1000);
  seconds[second] = (seconds[second] ?? 0) + units;
  buckets.set(item, seconds);
}

/** The busiest second; `reduce` skips the seconds nothing touched the item. */
function peakOf(seconds: readonly number[] | undefined): number {
  return (seconds ?? []).reduce((peak, units) => Math.max(peak, units), 0);
}
