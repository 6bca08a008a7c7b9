/**
 * The status changes of a plain replay. `replaying` is held from the claim until the message is
 * sent, so two operators (or two runs of one) cannot replay a record twice, and the claim
 * re-checks rule 12 in its condition. Only the operator CLI makes these writes. A record that is
 * no longer in the status a write expects is a QuarantineStatusConflictError; any other failure
 * a QuarantineReadError.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { QUARANTINE_STATUS, type QuarantineStatus, RECORD_ATTRIBUTES as R } from '../../contract/quarantine';
import { UNIDENTIFIED_CAUSE } from '../core/operator';
import type { AuditEntry } from '../core/quarantine-record';
import { QuarantineReadError, QuarantineStatusConflictError } from '../ports/errors';
import { type Item, ItemReader, S } from './attribute-values';
import {
  APPEND_AUDIT,
  AUDIT_INTACT,
  auditProblem,
  auditValues,
  guarded,
  updateIf,
} from './conditional-writes';
import { countChange, OpenRecordsCounter } from './open-records';
import { auditEntryAttribute } from './quarantine-item';
import { describeSdkError } from './sdk-errors';

// Record timeline: open --claim--> replaying --finish--> replayed
//                                  replaying --release--> open (the replay did not happen)
// The claim leaves rule 11a's open records (count -1), a release comes back (+1).
// A replay killed half-way leaves `replaying`; `replay --resume` finishes or releases it from
// what the ledger shows (core/operator.ts `decideResume`).
const IS_STATUS = `attribute_exists(#id) AND #${R.status} = :from AND ${AUDIT_INTACT}`;
const HAS_CAUSE = '#cause <> :unidentified';
const SET_STATUS = `SET #${R.status} = :to, ${APPEND_AUDIT}`;

export class ReplayClaims {
  private readonly counter: OpenRecordsCounter;

  constructor(
    private readonly dynamodb: DynamoDBClient,
    private readonly table: string,
  ) {
    this.counter = new OpenRecordsCounter(dynamodb, table);
  }

  async claim(id: string, entry: AuditEntry): Promise<void> {
    await this.move(id, QUARANTINE_STATUS.open, QUARANTINE_STATUS.replaying, entry, HAS_CAUSE);
  }

  async finish(id: string, entry: AuditEntry): Promise<void> {
    await this.move(id, QUARANTINE_STATUS.replaying, QUARANTINE_STATUS.replayed, entry);
  }

  /** Undoes a claim whose replay did not happen, or whose message, if it went out, can no longer run. */
  async release(id: string, entry: AuditEntry): Promise<void> {
    await this.move(id, QUARANTINE_STATUS.replaying, QUARANTINE_STATUS.open, entry);
  }

  /** One conditional status change; leaving or re-entering `open` moves rule 11a's count with it. */
  private async move(
    id: string,
    from: QuarantineStatus,
    to: QuarantineStatus,
    entry: AuditEntry,
    also?: string,
  ): Promise<void> {
    const write = {
      key: { id: S(id) },
      update: SET_STATUS,
      condition: also ? `${IS_STATUS} AND ${also}` : IS_STATUS,
      values: {
        ':from': S(from),
        ':to': S(to),
        ...auditValues(auditEntryAttribute(entry)),
        ...(also ? { ':unidentified': S(UNIDENTIFIED_CAUSE) } : {}),
      },
    };
    const change = countChange(from, to);
    const outcome = await guarded(
      () =>
        change === 0
          ? updateIf(this.dynamodb, { tableName: this.table, ...write })
          : this.counter.write({ update: write }, change),
      (error) =>
        new QuarantineReadError(
          `Quarantine table ${this.table}: record ${id} not moved from ${from} to ${to}: ${describeSdkError(error)}`,
          { cause: error },
        ),
    );
    if (outcome.ok) return;
    const problem = outcome.old && auditProblem(outcome.old);
    throw new QuarantineStatusConflictError(
      problem === undefined
        ? `record ${id} is no longer ${from} (${describe(outcome.old)})`
        : `record ${id} not moved from ${from} to ${to}: ${problem}`,
    );
  }
}

/** What the record is now, for the refusal (usually: another operator acted first). */
function describe(item: Item | undefined): string {
  if (item === undefined) return 'it does not exist';
  const read = new ItemReader(item, 'quarantine record');
  const status = read.optionalString(R.status) ?? 'unknown';
  return read.optionalString('cause') === UNIDENTIFIED_CAUSE
    ? `status ${status}, no cause recorded`
    : `status ${status}`;
}
