/**
 * The two implementations the port contract (ports-contract-*.test.ts) runs against: the in-memory
 * world the fast orchestration tests use (sim/world/memory-*.ts), and the real adapters over the
 * local AWS (ports-moto.ts). Each case gets fresh ports, plus the few set-up and read-back steps
 * the ports do not offer (`Arrange`), done as the rest of the system does them: the state machine
 * writes the breaker, an operator resolves a record, the event source mapping receives.
 */

import type { QuarantineStatus } from '../../../contract/quarantine';
import type { Item } from '../../../lambdas/adapters/attribute-values';
import type { OperatorLedger } from '../../../lambdas/adapters/operator-ledger';
import { quarantineObjectKeys } from '../../../lambdas/adapters/quarantine-writer';
import type { BreakerRecord } from '../../../lambdas/core/breaker';
import { defaultPolicy } from '../../../lambdas/core/types';
import type {
  ControlPort,
  LedgerPort,
  OperationsPort,
  QuarantineStorePort,
  SourceQueuePort,
} from '../../../lambdas/ports/consumer-ports';
import { Clock } from '../../../sim/world/clock';
import { MemoryControl } from '../../../sim/world/memory-control';
import { MemoryLedger } from '../../../sim/world/memory-ledger';
import { MemoryOperations } from '../../../sim/world/memory-operations';
import { MemoryQuarantine } from '../../../sim/world/memory-quarantine';
import { MemoryQueue } from '../../../sim/world/memory-queue';

/** The consumer's ledger port plus the operator's reset, which a replay start depends on. */
export type LedgerWithReset = LedgerPort & Pick<OperatorLedger, 'resetForReplay'>;

export interface Arrange {
  /** The state machine's own write of the breaker item (half-open after the cool-down, closed). */
  putBreaker(record: BreakerRecord): Promise<void>;
  /** The breaker item as a person or a bug garbled it: these attributes, key included. */
  putGarbledBreaker(item: Item): Promise<void>;
  probeCounts(): Promise<{
    readonly successes: number;
    readonly failures: number;
    readonly repeated: number;
    readonly own: number;
  }>;
  /** `pq replay freeze`. */
  freezeReplay(): Promise<void>;
  /** The stored objects of a quarantine id, as an operator reads them back. */
  contentOf(id: string): Promise<{ readonly body: string; readonly envelope: string } | undefined>;
  recordOf(id: string): Promise<{ readonly status: string; readonly messageId: string } | undefined>;
  /** An operator moves a record on (resolved, replayed), through the operator's own writes. */
  setRecordStatus(id: string, status: QuarantineStatus): Promise<void>;
  /** Rule 11a's counter as stored; undefined when there is no counter item. */
  openRecordCount(): Promise<number | undefined>;
  /** The counter item gone, as in a table written by a version without it. */
  removeOpenRecordCount(): Promise<void>;
  /** Closes a running execution (an operator's stop); resolves once it is no longer running. */
  finishExecution(executionArn: string): Promise<void>;
  sendMessage(body: string): Promise<void>;
  /** The mapping's receive: the receipt handle of the one visible message, if any. */
  receive(visibilitySeconds: number): Promise<string | undefined>;
  deleteMessage(receiptHandle: string): Promise<void>;
}

export interface PortsUnderTest {
  readonly ledger: LedgerWithReset;
  readonly control: ControlPort;
  readonly quarantine: QuarantineStorePort;
  readonly operations: OperationsPort;
  readonly queue: SourceQueuePort;
  readonly arrange: Arrange;
}

/** Contract cases an implementation is known to break; the suite runs them expecting a failure. */
export type Departure = 'stale-receipt-handle' | 'visible-message-handle';

export interface PortsWorld {
  readonly name: string;
  /** Why this implementation departs from the documented AWS behaviour, per case. */
  readonly departures: Readonly<Partial<Record<Departure, string>>>;
  setUp(): Promise<void>;
  tearDown(): Promise<void>;
  fresh(): Promise<PortsUnderTest>;
}

export function memoryWorld(): PortsWorld {
  return {
    name: 'in-memory world',
    departures: {},
    async setUp() {},
    async tearDown() {},
    async fresh() {
      const control = new MemoryControl(defaultPolicy().breakerCooldownSeconds);
      const quarantine = new MemoryQuarantine();
      const operations = new MemoryOperations();
      // Virtual time that never moves: a visibility of 0 is "visible now", any other is "not yet".
      const queue = new MemoryQueue(new Clock(), 10);
      let sent = 0;
      const arrange: Arrange = {
        async putBreaker(record) {
          control.breaker = { record, probeSuccesses: 0, probeFailures: 0 };
        },
        async putGarbledBreaker(item) {
          control.corruptBreaker(item);
        },
        async probeCounts() {
          return {
            successes: control.breaker?.probeSuccesses ?? 0,
            failures: control.breaker?.probeFailures ?? 0,
            repeated: control.breaker?.probeRepeatFailures ?? 0,
            own: control.breaker?.probeOwnFailures ?? 0,
          };
        },
        async freezeReplay() {
          control.replayFrozen = true;
        },
        async contentOf(id) {
          const body = quarantine.body(id);
          const envelope = quarantine.objects.get(quarantineObjectKeys(id).envelopeKey);
          return body && envelope && { body: body.toString('utf8'), envelope: envelope.toString('utf8') };
        },
        async recordOf(id) {
          const record = quarantine.records.get(id);
          return record && { status: record.status, messageId: record.messageId };
        },
        async setRecordStatus(id, status) {
          quarantine.moveStatus(id, status);
        },
        async openRecordCount() {
          return quarantine.openRecords;
        },
        async removeOpenRecordCount() {
          quarantine.openRecords = undefined;
        },
        async finishExecution(executionArn) {
          for (const execution of operations.executions.values()) {
            if (execution.executionArn === executionArn) execution.status = 'ABORTED';
          }
        },
        async sendMessage(body) {
          queue.send({ messageId: `m-${++sent}`, body });
        },
        async receive(visibilitySeconds) {
          return queue.receive(1, visibilitySeconds)[0]?.receiptHandle;
        },
        async deleteMessage(receiptHandle) {
          queue.delete(receiptHandle);
        },
      };
      return { ledger: new MemoryLedger(), control, quarantine, operations, queue, arrange };
    },
  };
}
