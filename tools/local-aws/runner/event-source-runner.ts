/**
 * The local stand-in for Lambda's SQS event source mapping: moto keeps the queue, this runner
 * polls it and invokes the function in forked execution environments, then applies the result
 * as Lambda does (see batch-response.ts). One slot per unit of concurrency; each slot owns one
 * warm environment and runs receive -> invoke -> settle until stopped. It listens on nothing.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Message } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { listedIdentifiers, settleBatch } from './batch-response';
import { type EnvironmentPool, functionPool } from './environment-pool';
import type { ExecutionEnvironment, InvocationOutcome } from './execution-environment';
import { accountIdOf, endpointOf, type FunctionIdentity, functionArnOf } from './function-identity';
import { isPollingState, type MappingSettings, readMapping, watchMapping } from './mapping-state';
import { pause } from './pause';
import { deleteRecords, readVisibilityTimeoutSeconds, receiveBatch } from './queue-io';
import { buildSqsEvent } from './sqs-event';
import type {
  EndedRef,
  EventSourceRunner,
  RunnerEventName,
  RunnerEvents,
  RunnerOptions,
  RunnerStats,
} from './types';
import { validateOptions, validateTimeoutAgainstQueue } from './validate-options';

/** How often a parked slot (mapping disabled, or above the concurrency) looks again. */
const PARKED_CHECK_MS = 100;
/** After a failed receive or a failed environment start, before trying again. */
const RETRY_DELAY_MS = 1_000;
/** Between empty short polls when waitTimeSeconds is 0, so an idle runner does not spin. */
const IDLE_POLL_GAP_MS = 200;

type Counters = {
  -readonly [K in Exclude<
    keyof RunnerStats,
    'polling' | 'batchSize' | 'maximumConcurrency' | 'environments' | 'environmentsStarted'
  >]: number;
};

export async function startEventSourceRunner(options: RunnerOptions): Promise<EventSourceRunner> {
  validateOptions(options);
  const runner = new Runner(options, await endpointOf(options.clients.sqs));
  await runner.start();
  return {
    stop: () => runner.stop(),
    stats: () => runner.stats(),
    on: (event, listener) => runner.on(event, listener),
  };
}

class Runner {
  private readonly identity: FunctionIdentity;
  private readonly events = new EventEmitter();
  private readonly abort = new AbortController();
  private readonly pool: EnvironmentPool;
  /** One receive -> invoke -> settle loop per slot (index = slot number). */
  private readonly loops: Promise<void>[] = [];
  private settings: MappingSettings;
  private watcher?: Promise<void>;
  private readonly counters: Counters = {
    invocations: 0,
    inFlightInvocations: 0,
    messagesReceived: 0,
    messagesDeleted: 0,
    messagesReturned: 0,
    functionErrors: 0,
    crashes: 0,
    timeouts: 0,
    deleteFailures: 0,
  };

  constructor(
    private readonly options: RunnerOptions,
    endpoint: string | undefined,
  ) {
    ({ identity: this.identity, pool: this.pool } = functionPool(
      options,
      { region: options.region, accountId: accountIdOf(options.queueArn), endpoint },
      {
        signal: this.abort.signal,
        // The pool's events are a part of this runner's: passed on as they are.
        emit: (event, payload) => this.events.emit(event, payload),
        onIdleDeath: () => {
          this.counters.crashes += 1;
        },
      },
    ));
    this.settings = {
      state: 'Enabled',
      batchSize: options.batchSize,
      batchingWindowMs: options.maximumBatchingWindowMs,
      maximumConcurrency: options.maximumConcurrency,
    };
  }

  /**
   * Checks the queue as CreateEventSourceMapping would, reads the mapping (never poll a disabled
   * one), then warms every slot's environment.
   */
  async start(): Promise<void> {
    const { mapping, clients } = this.options;
    const visibilitySeconds = await readVisibilityTimeoutSeconds(clients.sqs, this.options.queueUrl);
    validateTimeoutAgainstQueue(this.options.functionTimeoutMs, visibilitySeconds);
    if (mapping) {
      const fromOptions = this.settings;
      this.settings = await readMapping(clients.lambda, mapping.uuid, fromOptions);
      this.watcher = watchMapping({
        lambda: clients.lambda,
        uuid: mapping.uuid,
        everyMs: mapping.pollStateEveryMs,
        fallback: fromOptions,
        signal: this.abort.signal,
        onRead: (settings) => this.applySettings(settings),
        onError: (message) => this.emit('warning', { message }),
      });
    }
    const [failure] = await this.addSlots();
    if (failure) {
      await this.stop();
      throw failure;
    }
  }

  async stop(): Promise<void> {
    this.abort.abort();
    // Killing first ends the invocations under way, so the loops can finish.
    await this.pool.killAll();
    await Promise.allSettled([this.watcher, ...this.loops]);
    await this.pool.killAll();
  }

  stats(): RunnerStats {
    return {
      ...this.counters,
      polling: !this.abort.signal.aborted && isPollingState(this.settings.state),
      batchSize: this.settings.batchSize,
      maximumConcurrency: this.settings.maximumConcurrency,
      environmentsStarted: this.pool.environmentsStarted,
      environments: this.pool.live(),
    };
  }

  on<E extends RunnerEventName>(event: E, listener: (payload: RunnerEvents[E]) => void): () => void {
    this.events.on(event, listener);
    return () => this.events.off(event, listener);
  }

  private emit<E extends RunnerEventName>(event: E, payload: RunnerEvents[E]): void {
    this.events.emit(event, payload);
  }

  private applySettings(settings: MappingSettings): void {
    const before = this.settings;
    this.settings = settings;
    if (
      before.state !== settings.state ||
      before.batchSize !== settings.batchSize ||
      before.maximumConcurrency !== settings.maximumConcurrency
    ) {
      const { state, batchSize, maximumConcurrency } = settings;
      this.emit('mapping-state', { state, batchSize, maximumConcurrency });
    }
    // A raised concurrency gets its slots now; a lowered one parks the slots above it.
    void this.addSlots().then((failures) => {
      for (const failure of failures) this.emit('warning', { message: failure.message });
    });
  }

  /**
   * Creates slots up to the concurrency, warms their environments and starts their loops. A slot
   * whose environment failed to start still runs: its loop retries the start.
   */
  private async addSlots(): Promise<Error[]> {
    const added: number[] = [];
    for (let slot = this.loops.length; slot < this.settings.maximumConcurrency; slot += 1) {
      added.push(slot);
    }
    // Claimed before the await, so a second call while these warm adds no duplicates.
    for (const slot of added) this.loops[slot] = Promise.resolve();
    const warmed = await Promise.allSettled(added.map((slot) => this.pool.warm(slot)));
    for (const slot of added) this.loops[slot] = this.runSlot(slot);
    return warmed.flatMap((result) => (result.status === 'rejected' ? [result.reason as Error] : []));
  }

  private slotActive(slot: number): boolean {
    return isPollingState(this.settings.state) && slot < this.settings.maximumConcurrency;
  }

  private async runSlot(slot: number): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      if (!this.slotActive(slot)) {
        await pause(PARKED_CHECK_MS, signal);
        continue;
      }
      const environment = await this.pool.ensure(slot);
      if (!environment) {
        await pause(RETRY_DELAY_MS, signal);
        continue;
      }
      let messages: Message[];
      try {
        messages = await receiveBatch(this.options.clients.sqs, {
          queueUrl: this.options.queueUrl,
          batchSize: this.settings.batchSize,
          batchingWindowMs: this.settings.batchingWindowMs,
          waitTimeSeconds: this.options.waitTimeSeconds,
          signal,
        });
      } catch (error) {
        if (signal.aborted) return;
        this.emit('warning', { message: `receive failed: ${(error as Error).message}` });
        await pause(RETRY_DELAY_MS, signal);
        continue;
      }
      if (signal.aborted) return; // what was received comes back after its visibility timeout
      if (messages.length > 0) await this.invokeAndSettle(slot, environment, messages);
      else if (this.options.waitTimeSeconds === 0) await pause(IDLE_POLL_GAP_MS, signal);
    }
  }

  private async invokeAndSettle(
    slot: number,
    environment: ExecutionEnvironment,
    messages: Message[],
  ): Promise<void> {
    const event = buildSqsEvent(messages, { queueArn: this.options.queueArn, region: this.options.region });
    const messageIds = event.Records.map((record) => record.messageId);
    const ref = { envId: environment.id, pid: environment.pid, requestId: randomUUID(), messageIds };
    this.counters.invocations += 1;
    this.counters.messagesReceived += messageIds.length;
    this.counters.inFlightInvocations += 1;
    this.emit('invoke', ref);
    const invokedAt = performance.now();
    try {
      const outcome = await environment.invoke({
        event,
        requestId: ref.requestId,
        invokedFunctionArn: functionArnOf(this.identity),
        timeoutMs: this.options.functionTimeoutMs,
      });
      await this.settle(
        slot,
        { ...ref, durationMs: Math.round(performance.now() - invokedAt) },
        event.Records,
        outcome,
      );
    } finally {
      this.counters.inFlightInvocations -= 1;
    }
  }

  /** Lambda's rules: only a normal return deletes anything; a crash or timeout also resets the environment. */
  private async settle(
    slot: number,
    ref: EndedRef,
    records: SQSRecord[],
    outcome: InvocationOutcome,
  ): Promise<void> {
    if (outcome.kind === 'stopped') return;
    if (outcome.kind === 'returned') return this.applyResponse(ref, records, outcome.response);
    this.counters.messagesReturned += records.length;
    if (outcome.kind === 'function-error') {
      this.counters.functionErrors += 1;
      this.emit('function-error', { ...ref, error: outcome.error });
    } else if (outcome.kind === 'crash') {
      this.counters.crashes += 1;
      this.emit('crash', { ...ref, exitCode: outcome.exitCode, signal: outcome.signal });
      await this.pool.replace(slot, 'crash');
    } else {
      this.counters.timeouts += 1;
      this.emit('timeout', { ...ref, timeoutMs: this.options.functionTimeoutMs });
      await this.pool.replace(slot, 'timeout');
    }
  }

  private async applyResponse(ref: EndedRef, records: SQSRecord[], response: unknown): Promise<void> {
    const batchItemFailures = listedIdentifiers(response);
    const settlement = settleBatch(ref.messageIds, response);
    if (settlement.kind === 'whole-batch-failed') {
      this.counters.messagesReturned += records.length;
      this.emit('result', {
        ...ref,
        batchItemFailures,
        deleted: [],
        returned: ref.messageIds,
        wholeBatchFailure: settlement.reason,
      });
      return;
    }
    const succeeded = new Set(settlement.succeeded);
    let deleted: readonly string[] = [];
    try {
      const result = await deleteRecords(
        this.options.clients.sqs,
        this.options.queueUrl,
        records.filter((record) => succeeded.has(record.messageId)),
      );
      deleted = result.deleted;
      this.counters.deleteFailures += result.failed.length;
      for (const failure of result.failed) {
        this.emit('warning', { message: `delete of ${failure.messageId} failed: ${failure.reason}` });
      }
    } catch (error) {
      this.counters.deleteFailures += succeeded.size;
      this.emit('warning', { message: `DeleteMessageBatch failed: ${(error as Error).message}` });
    }
    const deletedIds = new Set(deleted);
    const returned = ref.messageIds.filter((id) => !deletedIds.has(id));
    this.counters.messagesDeleted += deleted.length;
    this.counters.messagesReturned += returned.length;
    this.emit('result', { ...ref, batchItemFailures, deleted, returned });
  }
}
