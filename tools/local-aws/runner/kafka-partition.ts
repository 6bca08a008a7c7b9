/**
 * One partition as the Kafka runner keeps it: where the next fetch starts, the records fetched but
 * not yet invoked, and where it goes back to when a batch fails. Its records reach the function in
 * offset order, one batch at a time: a partition with an invocation under way is neither fetched
 * nor dispatched, and every failure empties what was fetched and seeks back.
 */
import type { FetchedRecord } from './kafka-event';

export class PartitionState {
  /** The offset after the last record the function finished: where a seek goes, what is committed. */
  resumeAt: bigint;
  /** The group's committed offset as the broker confirmed it; null before any commit. */
  committed: bigint | null;
  /** The next offset to fetch. */
  position: bigint;
  /** An invocation of this partition is under way. */
  busy = false;
  /** No longer assigned to this member of the group: fetched and invoked no more. */
  revoked = false;
  /** Bumped by each seek, so that records of a fetch under way meanwhile are dropped. */
  generation = 0;
  /** Fetched, not yet invoked, in offset order. */
  private buffer: FetchedRecord[] = [];
  /** When the buffer's first record arrived: the batching window opens then. */
  private bufferedSince?: number;
  /** After a seek the next batch goes at once: Lambda retries a failed batch immediately. */
  private retrying = false;
  /** Where the partition started, for a group that has committed nothing yet. */
  private readonly startedAt: bigint;

  constructor(
    readonly partition: number,
    readonly key: string,
    start: { readonly offset: bigint; readonly committed: bigint | null },
  ) {
    this.resumeAt = start.offset;
    this.position = start.offset;
    this.startedAt = start.offset;
    this.committed = start.committed;
  }

  get buffered(): number {
    return this.buffer.length;
  }

  /** Worth fetching: idle, and its buffer does not hold a full batch yet. */
  wantsRecords(batchSize: number): boolean {
    return !this.busy && !this.revoked && this.buffer.length < batchSize;
  }

  /** Appends what a fetch brought, unless the partition sought meanwhile (`generation` changed). */
  receive(generation: number, records: readonly FetchedRecord[], next: bigint, now: number): void {
    if (generation !== this.generation || this.revoked) return;
    if (records.length > 0 && this.buffer.length === 0) this.bufferedSince = now;
    this.buffer.push(...records);
    if (next > this.position) this.position = next;
  }

  /** Ready to invoke: a full batch, a closed window, or a retry. */
  ready(batchSize: number, windowMs: number, now: number): boolean {
    if (this.busy || this.revoked || this.buffer.length === 0) return false;
    return this.retrying || this.buffer.length >= batchSize || now - (this.bufferedSince ?? now) >= windowMs;
  }

  /** Milliseconds until the window of a buffer still gathering closes; undefined when none is. */
  windowLeft(batchSize: number, windowMs: number, now: number): number | undefined {
    if (this.busy || this.revoked || this.buffer.length === 0 || this.ready(batchSize, windowMs, now)) {
      return undefined;
    }
    return (this.bufferedSince ?? now) + windowMs - now;
  }

  /** Takes the next batch and marks the partition busy. */
  take(batchSize: number): FetchedRecord[] {
    const batch = this.buffer.splice(0, batchSize);
    if (this.buffer.length === 0) this.bufferedSince = undefined;
    this.retrying = false;
    this.busy = true;
    return batch;
  }

  /** Puts a batch that could not be invoked back in front, as if never taken. */
  giveBack(batch: readonly FetchedRecord[]): void {
    this.buffer.unshift(...batch);
    this.bufferedSince ??= Date.now();
    this.retrying = true;
  }

  /** Forgets what was fetched and goes back to `resumeAt`; a retry goes without the window. */
  seek(retry: boolean): void {
    this.generation += 1;
    this.buffer = [];
    this.bufferedSince = undefined;
    this.position = this.resumeAt;
    this.retrying = retry;
  }

  /** The function finished every record before `offset`. */
  finishedBefore(offset: bigint): void {
    if (offset > this.resumeAt) this.resumeAt = offset;
  }

  /** Whether the function finished records the group has not committed (yet, or a commit failed). */
  get uncommitted(): boolean {
    return this.resumeAt > (this.committed ?? this.startedAt);
  }
}
