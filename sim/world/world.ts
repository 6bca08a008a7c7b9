/**
 * The consumer's whole world in memory: the ports with the real services' semantics, virtual
 * time, execution environments that can die at any await point, and the event source mapping's
 * rules for a batch (a function error or a crash returns the whole batch; a normal return
 * deletes everything but `batchItemFailures`). The consumer under test is the real one
 * (`consumerHandler`), so what passes here passes the code that runs in Lambda.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { LogLevel } from '@aws-lambda-powertools/logger/types';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { ENV } from '../../contract/env';
import { kafkaItemRecordId, kafkaRecordId, SOURCE_KIND, type SourceKind } from '../../contract/sources';
import { CallMeter } from '../../lambdas/consumer/call-meter';
import { consumerHandler } from '../../lambdas/consumer/create-consumer';
import type { ConsumerDeps } from '../../lambdas/consumer/deps';
import type { ProcessorModule } from '../../lambdas/consumer/types';
import { type ConsumerConfig, parseConfig } from '../../lambdas/core/config';
import { timeMarginMs } from '../../lambdas/core/time-guard';
import type { ConsumerPorts } from '../../lambdas/ports/consumer-ports';
import { type KafkaEvent, kafkaSource } from '../../lambdas/sources/kafka';
import type { FaultKind } from '../faults/fault-points';
import { type FaultCall, withFaults } from '../faults/inject';
import { Clock } from './clock';
import { withInterleavings } from './interleave';
import { MemoryControl } from './memory-control';
import { MemoryLedger } from './memory-ledger';
import { MemoryMetrics } from './memory-metrics';
import { MemoryOperations } from './memory-operations';
import { MemoryQuarantine } from './memory-quarantine';
import { MemoryQueue } from './memory-queue';
import { VirtualTimers } from './virtual-timers';

export const QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:source';

/**
 * One call meter for every environment of every world: each meter holds an AsyncLocalStorage,
 * which Node never forgets and visits at every promise created, so a meter per environment
 * makes a long run (the fault campaign's thousands of worlds) slower with every cold start.
 */
const METER = new CallMeter();

/** The consumer's function timeout in the world: an invocation still running past it dies. */
export const WORLD_TIMEOUT_SECONDS = 30;

/** The consumer's environment variables for the world (contract/env.ts names), overridable. */
export function worldEnvironment(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    [ENV.attemptsTable]: 'attempts',
    [ENV.quarantineTable]: 'quarantine',
    [ENV.quarantineBucket]: 'quarantine-bucket',
    [ENV.controlTable]: 'control',
    [ENV.pauseStateMachineArn]: 'arn:aws:states:us-east-1:000000000000:stateMachine:pause',
    [ENV.verificationStateMachineArn]: 'arn:aws:states:us-east-1:000000000000:stateMachine:verify',
    [ENV.sourceQueueUrl]: 'https://sqs.us-east-1.amazonaws.com/000000000000/source',
    [ENV.sourceQueueArn]: QUEUE_ARN,
    [ENV.fifo]: 'false',
    [ENV.consumerTimeoutSeconds]: String(WORLD_TIMEOUT_SECONDS),
    ...overrides,
  };
}

/** The world's Kafka topic and cluster (sim/world/kafka-mapping.ts plays its mapping). */
export const WORLD_TOPIC = 'orders';
export const WORLD_CLUSTER = '127.0.0.1:9092';

/** A Kafka source's variables in place of the queue's: the same consumer, the other adapter. */
export function kafkaWorldEnvironment(overrides: Record<string, string> = {}): Record<string, string> {
  const {
    [ENV.sourceQueueUrl]: _url,
    [ENV.sourceQueueArn]: _arn,
    [ENV.fifo]: _fifo,
    ...common
  } = worldEnvironment();
  return {
    ...common,
    [ENV.sourceKind]: SOURCE_KIND.kafka,
    [ENV.kafkaCluster]: WORLD_CLUSTER,
    [ENV.kafkaTopic]: WORLD_TOPIC,
    ...overrides,
  };
}

function environmentOf(source: SourceKind | undefined, overrides?: Record<string, string>) {
  return source === SOURCE_KIND.kafka ? kafkaWorldEnvironment(overrides) : worldEnvironment(overrides);
}

export interface WorldOptions {
  /** The source the consumer reads. @default 'sqs' */
  readonly source?: SourceKind;
  readonly env?: Record<string, string>;
  /** The user's module, built per environment (a scripted one needs to know whom it can kill). */
  readonly processorFor: (env: ExecutionEnvironment) => ProcessorModule;
  /** SQS's native redrive to the backstop. @default 10 */
  readonly maxReceiveCount?: number;
  /** Faults by call; `crash` kinds kill the calling environment. @default - none */
  readonly faultFor?: (call: FaultCall, env: ExecutionEnvironment) => FaultKind | undefined;
  /** Uniform in [0, 1): backoff jitter and ids. @default Math.random */
  readonly random?: () => number;
  /**
   * Uniform in [0, 1): the order in which ready awaits resume (interleave.ts).
   * @default - the fixed order: every call answers at once
   */
  readonly interleave?: () => number;
}

export type InvocationResult =
  | { readonly kind: 'returned'; readonly failed: readonly string[] }
  | { readonly kind: 'function-error'; readonly error: unknown }
  | { readonly kind: 'crashed' };

/** One execution environment: a consumer instance that can die at any await. */
export class ExecutionEnvironment {
  alive = true;
  /** Epoch ms at which the current invocation times out. */
  deadline = 0;
  private readonly died: Promise<void>;
  private kill!: () => void;
  private readonly deathListeners: (() => void)[] = [];

  constructor(readonly id: string) {
    this.died = new Promise<void>((resolve) => {
      this.kill = resolve;
    });
  }

  /** The worker dies: every pending and later await of this environment never settles. */
  crash(): Promise<never> {
    if (this.alive) {
      this.alive = false;
      for (const listener of this.deathListeners) listener();
    }
    this.kill();
    return new Promise<never>(() => undefined);
  }

  /**
   * Runs `listener` at the moment of death, before any other await resumes: what the worker left
   * (its attempts in flight) as it left it, whatever order the scheduler resumes the rest in.
   */
  onDeath(listener: () => void): void {
    this.deathListeners.push(listener);
  }

  whenDead(): Promise<void> {
    return this.died;
  }
}

export class World {
  readonly clock = new Clock();
  readonly timers = new VirtualTimers(this.clock);
  readonly config: ConsumerConfig;
  readonly ledger = new MemoryLedger();
  readonly control: MemoryControl;
  readonly quarantine = new MemoryQuarantine();
  readonly operations = new MemoryOperations();
  readonly queue: MemoryQueue;
  readonly metrics = new MemoryMetrics();
  readonly environments: ExecutionEnvironment[] = [];
  private readonly random: () => number;
  private ids = 0;

  constructor(private readonly options: WorldOptions) {
    this.config = parseConfig(environmentOf(options.source, options.env));
    this.control = new MemoryControl(this.config.policy.breakerCooldownSeconds);
    this.queue = new MemoryQueue(this.clock, options.maxReceiveCount ?? 10);
    this.random = options.random ?? Math.random;
  }

  /**
   * A new execution environment (a cold start) with its own consumer instance. `overrides`
   * (contract/env.ts names) stand for a redeploy: only environments started after it see them.
   */
  environment(overrides?: Record<string, string>): ExecutionEnvironment & { readonly handle: Handle } {
    const env = new ExecutionEnvironment(`env-${this.environments.length + 1}`);
    this.environments.push(env);
    const ports = this.portsFor(env);
    const config =
      overrides === undefined
        ? this.config
        : parseConfig(environmentOf(this.options.source, { ...this.options.env, ...overrides }));
    // A Kafka source hands records back through its own port, waiting on this environment's time.
    const kafka =
      config.kafka === undefined
        ? undefined
        : kafkaSource({
            cluster: config.kafka.cluster,
            marginMs: timeMarginMs(config.policy.attemptTimeoutSeconds),
            sleep: (ms) => this.pass(env, ms),
            partialBatchResponse: config.kafka.partialBatchResponse,
          });
    const deps: ConsumerDeps = {
      ...ports,
      ...(kafka === undefined ? {} : { queue: kafka.queue }),
      config,
      processor: this.options.processorFor(env),
      // WORLD_LOG_LEVEL=DEBUG shows what the consumers decided, when a case needs explaining.
      logger: new Logger({
        serviceName: env.id,
        logLevel: (process.env.WORLD_LOG_LEVEL ?? 'SILENT') as LogLevel,
      }),
      meter: METER,
      metrics: this.metrics.sink(),
      envId: env.id,
      now: () => this.clock.date(),
      newId: () => `id-${++this.ids}`,
      random: this.random,
      // Waiting is time passing for this environment alone, on the world's timers.
      sleep: (ms) => this.pass(env, ms),
      // A dead environment's timers never fire: no code of it runs after its death.
      alarm: (ms, signal) => this.timers.after(ms, signal, () => env.alive),
    };
    const handler = kafka === undefined ? consumerHandler(deps) : consumerHandler(deps, kafka.port);
    return Object.assign(env, { handle: handler as unknown as Handle });
  }

  /**
   * Lets `ms` of virtual time pass for one environment's code (a wait, the user's work). Time moves
   * only when nothing else can run, to the earliest timer: another environment's long work never
   * moves this one's clock past its deadline, and an invocation still waiting at its deadline is
   * killed there (its deadline's timer fires first), after which this never settles.
   */
  pass(env: ExecutionEnvironment, ms: number): Promise<void> {
    return this.timers.after(ms, new AbortController().signal, () => env.alive);
  }

  /**
   * The event source mapping's poll for one environment: receive up to `batchSize` messages,
   * invoke, and apply the result as Lambda does. A crash or function error deletes nothing.
   */
  async deliver(
    env: ExecutionEnvironment & { readonly handle: Handle },
    batchSize = 10,
  ): Promise<InvocationResult & { readonly records: readonly SQSRecord[] }> {
    const visibility = this.config.policy.attemptTimeoutSeconds * 6;
    const records = this.queue.receive(batchSize, visibility).map(toRecord);
    if (records.length === 0) return { kind: 'returned', failed: [], records };
    const result = await this.invoke(env, records);
    if (result.kind === 'returned') {
      const failed = new Set(result.failed);
      for (const record of records)
        if (!failed.has(record.messageId)) this.queue.delete(record.receiptHandle);
    }
    return { ...result, records };
  }

  /** One invocation; resolves as soon as the handler returns, throws, or the environment dies. */
  invoke(
    env: ExecutionEnvironment & { readonly handle: Handle },
    records: SQSRecord[],
  ): Promise<InvocationResult> {
    return this.invokeWith(env, { Records: records } as SQSEvent);
  }

  /**
   * What a normal return leaves at the source, as Lambda reads the answer: the SQS messages it
   * names; on Kafka, nothing unless the mapping reads partial batch responses (the construct turns
   * both on together), then each named partition from the named offset, and the whole batch when
   * an identifier is malformed or names no record of the batch.
   */
  private failedOf(
    event: SQSEvent | KafkaEvent,
    response: { readonly batchItemFailures: readonly { readonly itemIdentifier: unknown }[] },
  ): string[] {
    const identifiers = response.batchItemFailures.map((failure) => failure.itemIdentifier);
    if (this.config.kafka === undefined) return identifiers as string[];
    if (!this.config.kafka.partialBatchResponse) return [];
    const ids = recordIdsOf(event);
    const named = identifiers.map(kafkaItemRecordId);
    return named.every((id) => id !== undefined && ids.includes(id)) ? (named as string[]) : ids;
  }

  /** One invocation with the source's own event (a Kafka event: sim/world/kafka-mapping.ts). */
  async invokeWith(
    env: ExecutionEnvironment & { readonly handle: Handle },
    event: SQSEvent | KafkaEvent,
  ): Promise<InvocationResult> {
    if (!env.alive) return { kind: 'crashed' };
    env.deadline = this.clock.now() + this.config.policy.attemptTimeoutSeconds * 1000;
    const context = { getRemainingTimeInMillis: () => Math.max(0, env.deadline - this.clock.now()) };
    const run = (env.handle as AnyHandle)(event, context).then(
      (response): InvocationResult => ({ kind: 'returned', failed: this.failedOf(event, response) }),
      (error: unknown): InvocationResult => ({ kind: 'function-error', error }),
    );
    // Lambda kills an invocation still running at its deadline: no code of it runs after that.
    const ended = new AbortController();
    void this.timers.after(env.deadline - this.clock.now(), ended.signal).then(() => env.crash());
    try {
      return await Promise.race([run, env.whenDead().then((): InvocationResult => ({ kind: 'crashed' }))]);
    } finally {
      ended.abort();
    }
  }

  /** The ports as one environment sees them: faults injected, and nothing answers the dead. */
  private portsFor(env: ExecutionEnvironment): ConsumerPorts {
    const shared: ConsumerPorts = {
      ledger: this.ledger,
      control: this.control,
      quarantine: this.quarantine,
      operations: this.operations,
      queue: this.queue,
    };
    const faultFor = this.options.faultFor;
    const { interleave } = this.options;
    const ordered =
      interleave === undefined ? shared : withInterleavings(shared, interleave, () => env.alive);
    return withFaults(ordered, {
      faultFor: (call) => {
        if (!env.alive) return 'crash';
        return faultFor?.(call, env);
      },
      crash: () => env.crash(),
    });
  }
}

/** The ids of an event's records: SQS messages, or Kafka records (`topic-partition-offset`). */
function recordIdsOf(event: SQSEvent | KafkaEvent): string[] {
  if ('Records' in event) return event.Records.map((record) => record.messageId);
  return Object.values(event.records).flatMap((records) =>
    records.map((record) => kafkaRecordId(record.topic, record.partition, record.offset)),
  );
}

export type Handle = (
  event: SQSEvent,
  context: { getRemainingTimeInMillis(): number },
) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;
type AnyHandle = (
  event: SQSEvent | KafkaEvent,
  context: { getRemainingTimeInMillis(): number },
) => Promise<{ readonly batchItemFailures: readonly { readonly itemIdentifier: unknown }[] }>;

function toRecord(message: {
  readonly messageId: string;
  readonly body: string;
  readonly receiveCount: number;
  readonly sentAt: number;
  readonly receiptHandle?: string;
  readonly messageAttributes: Readonly<
    Record<string, { readonly dataType: string; readonly stringValue?: string }>
  >;
}): SQSRecord {
  return {
    messageId: message.messageId,
    receiptHandle: message.receiptHandle ?? '',
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentAt),
      SenderId: 'world',
      ApproximateFirstReceiveTimestamp: String(message.sentAt),
    },
    messageAttributes: message.messageAttributes as SQSRecord['messageAttributes'],
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: QUEUE_ARN,
    awsRegion: 'us-east-1',
  };
}
