/**
 * The quarantine's bucket and table in memory: objects are created only if absent (S3
 * `If-None-Match: *`, enforced by the bucket policy in AWS), records only by a conditional put,
 * as lambdas/adapters/quarantine-writer.ts writes them. Rule 11a's open-record counter is kept
 * as lambdas/adapters/open-records.ts keeps it on its item: absent until first used (then the
 * records are counted once), +1 with each record created, and moved with every change of a
 * record's status, never by a record written twice. A record item over DynamoDB's 400 KB is
 * refused (its transaction with the counter fails as a whole).
 */

import { COUNTED_STATUSES, type QuarantineStatus } from '../../contract/quarantine';
import { countChange } from '../../lambdas/adapters/open-records';
import { quarantineObjectKeys } from '../../lambdas/adapters/quarantine-writer';
import type { NewQuarantineRecord } from '../../lambdas/core/quarantine-record';
import type { QuarantineStorePort } from '../../lambdas/ports/consumer-ports';
import { QuarantineWriteError } from '../../lambdas/ports/errors';
import { checkItemSize } from './dynamodb-limits';

/** A record as stored; an operator sets its status and cause (`pq cause`). */
export type StoredRecord = Omit<NewQuarantineRecord, 'status' | 'cause'> & {
  status: QuarantineStatus;
  cause: string;
};

export class MemoryQuarantine implements QuarantineStorePort {
  /** Object key -> bytes. */
  readonly objects = new Map<string, Buffer>();
  readonly records = new Map<string, StoredRecord>();
  /** The counter item's `openRecords`; undefined while there is no counter item. */
  openRecords: number | undefined;

  async putContent(
    id: string,
    content: { readonly body: string; readonly encoding?: 'utf8' | 'base64'; readonly envelope: object },
  ): Promise<{ readonly bodyKey: string; readonly envelopeKey: string; readonly bodyBytes: number }> {
    const keys = quarantineObjectKeys(id);
    const body = Buffer.from(content.body, content.encoding ?? 'utf8');
    this.putOnce(keys.bodyKey, body);
    this.putOnce(keys.envelopeKey, Buffer.from(JSON.stringify(content.envelope), 'utf8'));
    return { ...keys, bodyBytes: body.length };
  }

  async putRecord(record: NewQuarantineRecord): Promise<{ readonly created: boolean }> {
    // One TransactWriteItems with the counter: each item in it keeps DynamoDB's item limit.
    checkItemSize(
      QuarantineWriteError,
      `Quarantine table quarantine: record ${record.id} not written`,
      record,
    );
    if (this.records.has(record.id)) return { created: false };
    this.openRecords = this.current() + 1;
    this.records.set(record.id, this.counted(structuredClone(record)));
    return { created: true };
  }

  async openRecordsAtLeast(limit: number): Promise<boolean> {
    return this.current() >= limit;
  }

  /**
   * An operator's (or the verification machine's) status change, refused unless the record is in
   * one of `expected` (@default any); moves the count with it, as the adapters' transactions do.
   */
  moveStatus(id: string, to: QuarantineStatus, expected?: readonly QuarantineStatus[]): boolean {
    const record = this.records.get(id);
    if (record === undefined || (expected !== undefined && !expected.includes(record.status))) return false;
    record.status = to;
    return true;
  }

  /** `pq recount`: the counter set to the records' count. */
  recount(): { readonly was?: number; readonly counted: number } {
    const was = this.openRecords;
    const counted = this.countRecords();
    this.openRecords = counted;
    return was === undefined ? { counted } : { was, counted };
  }

  /** The body of a record, as an operator reads it back. */
  body(id: string): Buffer | undefined {
    return this.objects.get(quarantineObjectKeys(id).bodyKey);
  }

  /** The counter; without one, the records are counted once and the counter created. */
  private current(): number {
    this.openRecords ??= this.countRecords();
    return this.openRecords;
  }

  /**
   * The record with a `status` that moves the count whenever it is set: whoever moves a record
   * (a test's operator, the fault campaign's) moves the count with it, as the adapters'
   * transactions do, and a record set to the status it has changes nothing.
   */
  private counted(record: StoredRecord): StoredRecord {
    let status = record.status;
    return Object.defineProperty(record, 'status', {
      enumerable: true,
      get: () => status,
      set: (to: QuarantineStatus) => {
        const change = countChange(status, to);
        if (change !== 0) this.openRecords = this.current() + change;
        status = to;
      },
    });
  }

  private countRecords(): number {
    return [...this.records.values()].filter((record) => COUNTED_STATUSES.includes(record.status)).length;
  }

  private putOnce(key: string, bytes: Buffer): void {
    if (!this.objects.has(key)) this.objects.set(key, bytes);
  }
}
