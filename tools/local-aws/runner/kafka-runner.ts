/**
 * The local stand-in for Lambda's Kafka event source mapping, on the embedded broker (tools/kafka):
 * a member of a consumer group fetches the topic's partitions (kafka-io.ts) and invokes the
 * function in the SQS runner's execution environments (environment-pool.ts), one partition per
 * invocation and one invocation per partition at a time, so a partition's records arrive in
 * offset order. A partition commits only after a normal return; anything else seeks it back and
 * the same records come again at once, for ever, as with Lambda's defaults (kafka-batch.ts).
 * Other partitions go on meanwhile, up to `maximumConcurrency` at the same time. One poll loop
 * fetches every idle partition (kafka-partition.ts) and dispatches ready batches to free slots,
 * taking partitions in turn. It listens on nothing.
 */
import { EventEmitter } from 'node:events';
import { type EnvironmentPool, functionPool } from './environment-pool';
import { accountIdOf, endpointOf, type FunctionIdentity } from './function-identity';
import { BatchInvoker, type KafkaCounters } from './kafka-batch';
import { type KafkaEventSource, kafkaPartitionKey } from './kafka-event';
import { KafkaSource } from './kafka-io';
import { PartitionState } from './kafka-partition';
import type {
  KafkaPartitionLag,
  KafkaRunner,
  KafkaRunnerEventName,
  KafkaRunnerEvents,
  KafkaRunnerOptions,
  KafkaRunnerStats,
} from './kafka-types';
import { isPollingState, type MappingSettings, readMapping, watchMapping } from './mapping-state';
import { pause } from './pause';
import { validateKafkaOptions } from './validate-options';

/** How long the loop rests when nothing can be fetched (every partition busy or full). */
const PARKED_CHECK_MS = 100;
/** After a failed fetch, and between attempts to redo a failed commit. */
const RETRY_DELAY_MS = 1_000;
const DEFAULT_FETCH_MAX_WAIT_MS = 500;
/** The account of moto, the local AWS: the function's ARN when no MSK cluster ARN says otherwise. */
const LOCAL_ACCOUNT_ID = '123456789012';

export async function startKafkaRunner(options: KafkaRunnerOptions): Promise<KafkaRunner> {
  validateKafkaOptions(options);
  const endpoint = options.clients ? await endpointOf(options.clients.sqs) : undefined;
  const runner = new Runner(options, endpoint);
  await runner.start();
  return {
    stop: () => runner.stop(),
    stats: () => runner.stats(),
    lag: () => runner.lag(),
    on: (event, listener) => runner.on(event, listener),
  };
}

class Runner {
  private readonly identity: FunctionIdentity;
  private readonly eventSource: KafkaEventSource;
  private readonly events = new EventEmitter();
  private readonly abort = new AbortController();
  private readonly pool: EnvironmentPool;
  private readonly invoker: BatchInvoker;
  private readonly partitions = new Map<number, PartitionState>();
  /** Slots whose environment serves no invocation; a slot >= the concurrency is parked. */
  private readonly idleSlots = new Set<number>();
  private slotCount = 0;
  private readonly running = new Set<Promise<void>>();
  private settings: MappingSettings;
  private source?: KafkaSource;
  private poller?: Promise<void>;
  private watcher?: Promise<void>;
  private wakeUp?: () => void;
  /** Where the last dispatch round stopped, so every partition gets its turn at a free slot. */
  private nextTurn = 0;
  private lastCommitRetry = 0;
  private readonly counters: KafkaCounters = {
    invocations: 0,
    inFlightInvocations: 0,
    recordsReceived: 0,
    recordsCommitted: 0,
    recordsRedelivered: 0,
    functionErrors: 0,
    crashes: 0,
    timeouts: 0,
    commitFailures: 0,
  };

  constructor(
    private readonly options: KafkaRunnerOptions,
    endpoint: string | undefined,
  ) {
    const shape = options.eventShape ?? { kind: 'self-managed' };
    this.eventSource = { shape, bootstrapServers: options.bootstrapServers.join(',') };
    ({ identity: this.identity, pool: this.pool } = functionPool(
      options,
      {
        region: options.region,
        accountId:
          options.accountId ?? (shape.kind === 'msk' ? accountIdOf(shape.clusterArn) : LOCAL_ACCOUNT_ID),
        endpoint,
      },
      {
        signal: this.abort.signal,
        emit: (event, payload) => this.events.emit(event, payload),
        onIdleDeath: () => {
          this.counters.crashes += 1;
        },
      },
    ));
    this.invoker = new BatchInvoker({
      identity: this.identity,
      eventSource: this.eventSource,
      functionTimeoutMs: options.functionTimeoutMs,
      reportBatchItemFailures: options.reportBatchItemFailures ?? false,
      pool: this.pool,
      source: () => this.source,
      counters: this.counters,
      signal: this.abort.signal,
      emit: (event, payload) => this.emit(event, payload),
      warn: (message) => this.warn(message),
    });
    this.settings = {
      state: 'Enabled',
      batchSize: options.batchSize,
      batchingWindowMs: options.maximumBatchingWindowMs,
      maximumConcurrency: options.maximumConcurrency,
    };
  }

  /** Reads the mapping (a disabled one is never polled), joins the group, warms every slot. */
  async start(): Promise<void> {
    try {
      const { mapping, clients } = this.options;
      if (mapping && clients) {
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
      this.source = await KafkaSource.open({
        bootstrapServers: this.options.bootstrapServers,
        topic: this.options.topic,
        groupId: this.options.groupId,
        clientId: `pq-local-kafka-runner-${this.options.functionName}`,
      });
      const source = this.source;
      await this.assign(source.assigned());
      source.onAssignment((partitions) => {
        this.assign(partitions).catch((error: Error) =>
          this.warn(`reassigning partitions failed: ${error.message}`),
        );
      });
      const [failure] = await this.addSlots();
      if (failure) throw failure;
    } catch (error) {
      await this.stop();
      throw error;
    }
    this.poller = this.poll();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.wake();
    // Killing first ends the invocations under way; closing the client ends a fetch under way.
    await this.pool.killAll();
    await this.source?.close().catch(() => undefined);
    await Promise.allSettled([this.watcher, this.poller, ...this.running]);
    await this.pool.killAll();
  }

  stats(): KafkaRunnerStats {
    const committedOffsets: Record<string, number> = {};
    for (const state of this.partitions.values()) {
      if (state.committed !== null) committedOffsets[state.key] = Number(state.committed);
    }
    return {
      ...this.counters,
      polling: !this.abort.signal.aborted && isPollingState(this.settings.state),
      batchSize: this.settings.batchSize,
      maximumConcurrency: this.settings.maximumConcurrency,
      environmentsStarted: this.pool.environmentsStarted,
      committedOffsets,
      environments: this.pool.live(),
    };
  }

  lag(): Promise<KafkaPartitionLag[]> {
    if (!this.source || this.abort.signal.aborted)
      return Promise.reject(new Error('the Kafka runner is stopped'));
    return this.source.lag();
  }

  on<E extends KafkaRunnerEventName>(
    event: E,
    listener: (payload: KafkaRunnerEvents[E]) => void,
  ): () => void {
    this.events.on(event, listener);
    return () => this.events.off(event, listener);
  }

  private emit<E extends KafkaRunnerEventName>(event: E, payload: KafkaRunnerEvents[E]): void {
    this.events.emit(event, payload);
  }

  private warn(message: string): void {
    if (!this.abort.signal.aborted) this.emit('warning', { message });
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
    void this.addSlots().then((failures) => {
      for (const failure of failures) this.warn(failure.message);
    });
    this.wake();
  }

  /** Warms the slots up to the concurrency; a slot whose start failed retries at its first batch. */
  private async addSlots(): Promise<Error[]> {
    const added: number[] = [];
    for (; this.slotCount < this.settings.maximumConcurrency; this.slotCount += 1) added.push(this.slotCount);
    const warmed = await Promise.allSettled(added.map((slot) => this.pool.warm(slot)));
    for (const slot of added) this.idleSlots.add(slot);
    this.wake();
    return warmed.flatMap((result) => (result.status === 'rejected' ? [result.reason as Error] : []));
  }

  /** Follows the group's assignment: new partitions start at their committed offset (or the starting position). */
  private async assign(partitions: readonly number[]): Promise<void> {
    for (const [partition, state] of this.partitions) {
      if (!partitions.includes(partition)) state.revoked = true;
    }
    const fresh = partitions.filter((partition) => this.partitions.get(partition)?.revoked !== false);
    if (fresh.length === 0 || !this.source) return;
    const starts = await this.source.startOffsets(fresh, this.options.startingPosition);
    for (const [partition, start] of starts) {
      this.partitions.set(
        partition,
        new PartitionState(partition, kafkaPartitionKey(this.options.topic, partition), start),
      );
    }
    this.wake();
  }

  /** Fetches every idle partition that can take records, and dispatches what is ready; until stopped. */
  private async poll(): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      if (!isPollingState(this.settings.state)) {
        this.dropFetched();
        await this.rest(PARKED_CHECK_MS);
        continue;
      }
      await this.retryCommits();
      this.dispatchReady();
      const now = Date.now();
      const { batchSize, batchingWindowMs } = this.settings;
      const wanted = [...this.partitions.values()].filter((state) => state.wantsRecords(batchSize));
      const windows = [...this.partitions.values()].flatMap(
        (state) => state.windowLeft(batchSize, batchingWindowMs, now) ?? [],
      );
      if (wanted.length === 0) {
        // Every partition is busy or holds a full batch: an invocation's end wakes the loop.
        await this.rest(Math.min(PARKED_CHECK_MS, ...windows));
        continue;
      }
      // A gathering batch's window closing ends the wait, so that the batch goes in time.
      const waitMs = Math.min(this.options.fetchMaxWaitMs ?? DEFAULT_FETCH_MAX_WAIT_MS, ...windows);
      const generations = new Map(wanted.map((state) => [state, state.generation]));
      try {
        const fetched = await (this.source as KafkaSource).fetch(
          new Map(wanted.map((state) => [state.partition, state.position])),
          waitMs,
        );
        for (const [state, generation] of generations) {
          const answer = fetched.get(state.partition);
          if (answer && this.partitions.get(state.partition) === state) {
            state.receive(generation, answer.records, answer.next, Date.now());
          }
        }
      } catch (error) {
        if (signal.aborted) return;
        this.warn(`fetch failed: ${(error as Error).message}`);
        await this.rest(RETRY_DELAY_MS);
      }
    }
  }

  /** Waits `ms`, or until an invocation ends, the mapping changes or the runner stops. */
  private rest(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wakeUp = resolve;
      void pause(ms, this.abort.signal).then(resolve);
    });
  }

  private wake(): void {
    this.wakeUp?.();
    this.wakeUp = undefined;
  }

  /** The mapping is disabled: records fetched but not invoked are forgotten, to be fetched again when enabled. */
  private dropFetched(): void {
    for (const state of this.partitions.values()) {
      if (state.busy || state.buffered === 0) continue;
      state.seek(false);
      this.emit('seek', { partition: state.key, offset: Number(state.resumeAt), reason: 'disabled' });
    }
  }

  /** Starts an invocation for each ready partition while slots are free, taking partitions in turn. */
  private dispatchReady(): void {
    if (this.abort.signal.aborted || !isPollingState(this.settings.state)) return;
    const { batchSize, batchingWindowMs, maximumConcurrency } = this.settings;
    const states = [...this.partitions.values()].sort((a, b) => a.partition - b.partition);
    const now = Date.now();
    for (let turn = 0; turn < states.length; turn += 1) {
      const state = states[(this.nextTurn + turn) % states.length];
      if (!state.ready(batchSize, batchingWindowMs, now)) continue;
      const slot = [...this.idleSlots].sort((a, b) => a - b).find((each) => each < maximumConcurrency);
      if (slot === undefined) return;
      this.idleSlots.delete(slot);
      this.nextTurn = (this.nextTurn + turn + 1) % states.length;
      const run: Promise<void> = this.invoker
        .run(state, slot, state.take(batchSize))
        .catch((error: Error) => this.warn(`invocation failed in the runner: ${error.message}`))
        .finally(() => {
          state.busy = false;
          this.idleSlots.add(slot);
          this.running.delete(run);
          this.dispatchReady();
          this.wake();
        });
      this.running.add(run);
    }
  }

  private async retryCommits(): Promise<void> {
    if (Date.now() - this.lastCommitRetry < RETRY_DELAY_MS) return;
    this.lastCommitRetry = Date.now();
    for (const state of this.partitions.values()) {
      if (!state.busy && !state.revoked && state.uncommitted) await this.invoker.commit(state);
    }
  }
}
