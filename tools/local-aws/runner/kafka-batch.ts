/**
 * One batch of one partition, from the invocation to its end, by Lambda's rules for a Kafka
 * mapping: only a normal return commits (up to the lowest failed offset, kafka-settle.ts); a
 * thrown error, a crash or a timeout commits nothing and seeks the partition back to the offset
 * after the last record the function finished, so the same records come again at once; a crash or
 * a timeout also replaces the slot's environment (a cold start next time).
 */
import { randomUUID } from 'node:crypto';
import type { EnvironmentPool } from './environment-pool';
import type { InvocationOutcome } from './execution-environment';
import { type FunctionIdentity, functionArnOf } from './function-identity';
import { buildKafkaEvent, type FetchedRecord, type KafkaEventSource, kafkaRecordId } from './kafka-event';
import type { KafkaSource } from './kafka-io';
import type { PartitionState } from './kafka-partition';
import { listedKafkaIdentifiers, settleKafkaBatch } from './kafka-settle';
import type { KafkaRunnerEventName, KafkaRunnerEvents, KafkaRunnerStats } from './kafka-types';
import { pause } from './pause';
import type { EndedRef } from './types';

/** After a failed environment start, before the batch may go again. */
const RETRY_DELAY_MS = 1_000;

/** The runner's counts this module keeps up to date. */
export type KafkaCounters = {
  -readonly [K in
    | 'invocations'
    | 'inFlightInvocations'
    | 'recordsReceived'
    | 'recordsCommitted'
    | 'recordsRedelivered'
    | 'functionErrors'
    | 'crashes'
    | 'timeouts'
    | 'commitFailures']: KafkaRunnerStats[K];
};

export interface BatchInvokerDeps {
  readonly identity: FunctionIdentity;
  readonly eventSource: KafkaEventSource;
  readonly functionTimeoutMs: number;
  /** The mapping reads partial batch responses (KafkaRunnerOptions.reportBatchItemFailures). */
  readonly reportBatchItemFailures: boolean;
  readonly pool: EnvironmentPool;
  /** The group's client, once joined. */
  readonly source: () => KafkaSource | undefined;
  readonly counters: KafkaCounters;
  readonly signal: AbortSignal;
  readonly emit: <E extends KafkaRunnerEventName>(event: E, payload: KafkaRunnerEvents[E]) => void;
  readonly warn: (message: string) => void;
}

export class BatchInvoker {
  constructor(private readonly deps: BatchInvokerDeps) {}

  /** Invokes one batch of `state` in the slot's environment and settles it; `state` stays busy meanwhile. */
  async run(state: PartitionState, slot: number, records: FetchedRecord[]): Promise<void> {
    const environment = await this.deps.pool.ensure(slot);
    if (this.deps.signal.aborted) return;
    if (!environment) {
      state.giveBack(records);
      await pause(RETRY_DELAY_MS, this.deps.signal);
      return;
    }
    const event = buildKafkaEvent(records, this.deps.eventSource);
    const messageIds = records.map((record) => kafkaRecordId(record.topic, record.partition, record.offset));
    const ref = {
      envId: environment.id,
      pid: environment.pid,
      requestId: randomUUID(),
      messageIds,
      partition: state.key,
    };
    this.deps.counters.invocations += 1;
    this.deps.counters.recordsReceived += records.length;
    this.deps.counters.inFlightInvocations += 1;
    this.deps.emit('invoke', ref);
    const invokedAt = performance.now();
    try {
      const outcome = await environment.invoke({
        event,
        requestId: ref.requestId,
        invokedFunctionArn: functionArnOf(this.deps.identity),
        timeoutMs: this.deps.functionTimeoutMs,
      });
      const ended = { ...ref, durationMs: Math.round(performance.now() - invokedAt) };
      await this.settle(state, slot, ended, records, outcome);
    } finally {
      this.deps.counters.inFlightInvocations -= 1;
    }
  }

  /** Lambda's rules: only a normal return commits; anything else seeks back, and a crash or timeout resets the environment. */
  private async settle(
    state: PartitionState,
    slot: number,
    ref: EndedRef & { readonly partition: string },
    records: FetchedRecord[],
    outcome: InvocationOutcome,
  ): Promise<void> {
    if (outcome.kind === 'stopped' || this.deps.signal.aborted) return;
    if (outcome.kind === 'returned') return this.applyResponse(state, ref, records, outcome.response);
    this.deps.counters.recordsRedelivered += records.length;
    if (outcome.kind === 'function-error') {
      this.deps.counters.functionErrors += 1;
      this.deps.emit('function-error', { ...ref, error: outcome.error });
    } else if (outcome.kind === 'crash') {
      this.deps.counters.crashes += 1;
      this.deps.emit('crash', { ...ref, exitCode: outcome.exitCode, signal: outcome.signal });
    } else {
      this.deps.counters.timeouts += 1;
      this.deps.emit('timeout', { ...ref, timeoutMs: this.deps.functionTimeoutMs });
    }
    this.seekBack(state, outcome.kind);
    if (outcome.kind === 'crash' || outcome.kind === 'timeout')
      await this.deps.pool.replace(slot, outcome.kind);
  }

  private async applyResponse(
    state: PartitionState,
    ref: EndedRef & { readonly partition: string },
    records: FetchedRecord[],
    response: unknown,
  ): Promise<void> {
    const batchItemFailures = listedKafkaIdentifiers(response);
    const settlement = settleKafkaBatch(
      records.map((record, index) => ({ id: ref.messageIds[index], offset: record.offset })),
      response,
      this.deps.reportBatchItemFailures,
    );
    if (settlement.kind === 'whole-batch-failed') {
      this.deps.counters.recordsRedelivered += records.length;
      this.deps.emit('result', {
        ...ref,
        batchItemFailures,
        committed: [],
        redelivered: ref.messageIds,
        committedOffset: Number(state.resumeAt),
        wholeBatchFailure: settlement.reason,
      });
      this.seekBack(state, 'whole-batch-failed');
      return;
    }
    state.finishedBefore(settlement.commitTo);
    await this.commit(state);
    this.deps.counters.recordsCommitted += settlement.committed.length;
    this.deps.counters.recordsRedelivered += settlement.redelivered.length;
    this.deps.emit('result', {
      ...ref,
      batchItemFailures,
      committed: settlement.committed,
      redelivered: settlement.redelivered,
      committedOffset: Number(state.resumeAt),
    });
    if (settlement.redelivered.length > 0) this.seekBack(state, 'partial');
  }

  private seekBack(state: PartitionState, reason: KafkaRunnerEvents['seek']['reason']): void {
    state.seek(true);
    this.deps.emit('seek', { partition: state.key, offset: Number(state.resumeAt), reason });
  }

  /** Commits what the function finished; a failed commit is a warning, tried again by the poll loop. */
  async commit(state: PartitionState): Promise<void> {
    const source = this.deps.source();
    if (!state.uncommitted || !source) return;
    const offset = state.resumeAt;
    try {
      await source.commit(state.partition, offset);
      if (state.committed === null || offset > state.committed) state.committed = offset;
    } catch (error) {
      if (this.deps.signal.aborted) return;
      this.deps.counters.commitFailures += 1;
      this.deps.warn(`commit of ${state.key} at offset ${offset} failed: ${(error as Error).message}`);
    }
  }
}
