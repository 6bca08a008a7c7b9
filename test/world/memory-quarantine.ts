/**
 * The quarantine's bucket and table in memory: objects are created only if absent (S3
 * `If-None-Match: *`, enforced by the bucket policy in AWS), records only by a conditional put,
 * as lambdas/adapters/quarantine-writer.ts writes them.
 */

import { QUARANTINE_STATUS, type QuarantineStatus } from '../../contract/quarantine';
import { quarantineObjectKeys } from '../../lambdas/adapters/quarantine-writer';
import type { QuarantineStorePort } from '../../lambdas/consumer/ports';
import type { NewQuarantineRecord } from '../../lambdas/core/quarantine-record';

export type StoredRecord = Omit<NewQuarantineRecord, 'status'> & { status: QuarantineStatus };

export class MemoryQuarantine implements QuarantineStorePort {
  /** Object key -> bytes. */
  readonly objects = new Map<string, Buffer>();
  readonly records = new Map<string, StoredRecord>();

  async putContent(
    id: string,
    content: { readonly body: string; readonly envelope: object },
  ): Promise<{ readonly bodyKey: string; readonly envelopeKey: string; readonly bodyBytes: number }> {
    const keys = quarantineObjectKeys(id);
    const body = Buffer.from(content.body, 'utf8');
    this.putOnce(keys.bodyKey, body);
    this.putOnce(keys.envelopeKey, Buffer.from(JSON.stringify(content.envelope), 'utf8'));
    return { ...keys, bodyBytes: body.length };
  }

  async putRecord(record: NewQuarantineRecord): Promise<{ readonly created: boolean }> {
    if (this.records.has(record.id)) return { created: false };
    this.records.set(record.id, structuredClone(record));
    return { created: true };
  }

  async openRecordsAtLeast(limit: number): Promise<boolean> {
    const open = [...this.records.values()].filter(
      (record) =>
        record.status === QUARANTINE_STATUS.open || record.status === QUARANTINE_STATUS.awaitingOperator,
    );
    return open.length >= limit;
  }

  /** The body of a record, as an operator reads it back. */
  body(id: string): Buffer | undefined {
    return this.objects.get(quarantineObjectKeys(id).bodyKey);
  }

  private putOnce(key: string, bytes: Buffer): void {
    if (!this.objects.has(key)) this.objects.set(key, bytes);
  }
}
