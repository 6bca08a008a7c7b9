/**
 * The public shape of the local Kafka runner (kafka-runner.ts): what it is started with, what it
 * reports, and the events it emits. The function side (options, environments, their events) is the
 * SQS runner's (types.ts); what differs is the source: a topic read by a consumer group, offsets
 * committed instead of messages deleted.
 */
import type { LocalAwsClients } from '../clients';
import type {
  EndedRef,
  EnvironmentEvents,
  FunctionOptions,
  InvocationRef,
  MappingLink,
  MappingStateEvent,
} from './types';

/** Lambda's StartingPosition: where a consumer group without committed offsets begins. */
export type KafkaStartingPosition = 'TRIM_HORIZON' | 'LATEST';

/** Which of Lambda's two Kafka events the function gets (kafka-event.ts). */
export type KafkaEventShape =
  /** `eventSource: "SelfManagedKafka"`: a self-managed cluster, named by its bootstrap servers. */
  | { readonly kind: 'self-managed' }
  /** `eventSource: "aws:kafka"` with `eventSourceArn`: an Amazon MSK cluster. */
  | { readonly kind: 'msk'; readonly clusterArn: string };

export interface KafkaRunnerOptions extends FunctionOptions {
  /** `host:port` of the brokers (the embedded broker's `bootstrap`); also the event's `bootstrapServers`. */
  readonly bootstrapServers: readonly string[];
  readonly topic: string;
  /** The consumer group the runner joins and commits to (Lambda's ConsumerGroupId, or the mapping's UUID). */
  readonly groupId: string;
  /** Where a partition without a committed offset starts: its earliest record or its end. */
  readonly startingPosition: KafkaStartingPosition;
  /** @default { kind: 'self-managed' } */
  readonly eventShape?: KafkaEventShape;
  readonly region: string;
  /**
   * The account of the function's ARN.
   * @default - the MSK cluster ARN's account, else 123456789012 (moto's)
   */
  readonly accountId?: string;
  /**
   * The local AWS: its endpoint becomes the function's AWS_ENDPOINT_URL, and the linked mapping is
   * read through its Lambda client.
   * @default - the function gets no AWS_ENDPOINT_URL and no mapping can be linked
   */
  readonly clients?: LocalAwsClients;
  /** Records per invocation, 1..10,000. Overridden by the mapping when linked. */
  readonly batchSize: number;
  /**
   * How long a partition's first fetched record waits for more to fill its batch, 0..300,000 ms
   * (Lambda's default for Kafka is 500 ms). A batch that failed comes again without waiting.
   * Overridden by the mapping when linked.
   */
  readonly maximumBatchingWindowMs: number;
  /**
   * Partitions invoked at the same time, each in its own execution environment (>= 1). Overridden
   * by the mapping's ScalingConfig when linked.
   */
  readonly maximumConcurrency: number;
  /**
   * The mapping's FunctionResponseTypes hold ReportBatchItemFailures (provisioned mode): a normal
   * return's `batchItemFailures` are read (kafka-settle.ts); without it the batch is committed.
   * @default false
   */
  readonly reportBatchItemFailures?: boolean;
  /**
   * When given (needs `clients`), the mapping's State, BatchSize, MaximumBatchingWindowInSeconds
   * and ScalingConfig.MaximumConcurrency drive the runner: disabled means no new fetches and no
   * new invocations, while those already under way finish and commit; enabled again resumes
   * from the committed offsets.
   * @default - the options alone drive the runner, which polls until stopped
   */
  readonly mapping?: MappingLink;
  /**
   * How long one fetch waits at the broker for records (Kafka's fetch.max.wait.ms); keep it small
   * in tests so pauses and stops are quick.
   * @default 500
   */
  readonly fetchMaxWaitMs?: number;
}

/** A Kafka invocation: its records, all of one partition (`topic-partition`). */
export type KafkaInvocationRef = InvocationRef & { readonly partition: string };

export interface KafkaRunnerEvents extends EnvironmentEvents {
  /** `messageIds` are the records' `topic-partition-offset` (kafka-event.ts kafkaRecordId, as contract/sources.ts). */
  invoke: KafkaInvocationRef;
  /** The handler returned: what it committed, and what comes again from the lowest failed offset. */
  result: EndedRef & {
    readonly partition: string;
    readonly batchItemFailures: readonly string[];
    /** Records whose offsets this result committed, in offset order. */
    readonly committed: readonly string[];
    /** Records delivered again: from the lowest failed offset to the end of the batch. */
    readonly redelivered: readonly string[];
    /** The partition's offset after this result: Kafka's committed offset, the next record to read. */
    readonly committedOffset: number;
    /** Why the whole batch comes again despite a normal return (an empty or unknown identifier). */
    readonly wholeBatchFailure?: string;
  };
  /** The handler threw or rejected: nothing is committed, the environment stays warm. */
  'function-error': EndedRef & {
    readonly partition: string;
    readonly error: { readonly name: string; readonly message: string };
  };
  timeout: KafkaInvocationRef & { readonly timeoutMs: number };
  /**
   * A partition goes back to `offset` (the offset after the last record the function finished):
   * after anything but a complete success, and when the mapping is disabled with records fetched
   * but not yet invoked.
   */
  seek: {
    readonly partition: string;
    readonly offset: number;
    readonly reason: 'partial' | 'whole-batch-failed' | 'function-error' | 'crash' | 'timeout' | 'disabled';
  };
  'mapping-state': MappingStateEvent;
}

export type KafkaRunnerEventName = keyof KafkaRunnerEvents;

export interface KafkaRunnerStats {
  /** Fetching: not stopped, and the linked mapping (if any) is enabled. */
  readonly polling: boolean;
  readonly batchSize: number;
  readonly maximumConcurrency: number;
  readonly invocations: number;
  readonly inFlightInvocations: number;
  /** Records handed to invocations, each delivery counted (a record delivered twice counts 2). */
  readonly recordsReceived: number;
  /** Records whose offsets were committed. */
  readonly recordsCommitted: number;
  /** Records delivered again after a failure (each failure counted). */
  readonly recordsRedelivered: number;
  readonly functionErrors: number;
  readonly crashes: number;
  readonly timeouts: number;
  readonly commitFailures: number;
  readonly environmentsStarted: number;
  /** The group's committed offset of each partition the runner committed or read at start, by `topic-partition`. */
  readonly committedOffsets: Readonly<Record<string, number>>;
  /** The live environments; those warmed during start fired 'env-start' before `on` could be called. */
  readonly environments: readonly { readonly envId: string; readonly pid: number; readonly slot: number }[];
}

/** One partition as the broker tells it: what the group has committed and where the log ends. */
export interface KafkaPartitionLag {
  readonly topic: string;
  readonly partition: number;
  /** `topic-partition` (kafka-event.ts kafkaPartitionKey, as contract/sources.ts). */
  readonly key: string;
  /** The group's committed offset (the next record to process); null when it committed none. */
  readonly committed: number | null;
  /** The log's first offset (records before it were deleted by retention). */
  readonly start: number;
  /** The log's end offset (high watermark): one past its last record. */
  readonly end: number;
  /** Records left to process: `end - committed`, or `end - start` without a commit. */
  readonly left: number;
}

export interface KafkaRunner {
  /**
   * Stops fetching, kills every environment at once (a power cut: what was not committed comes
   * again to the next consumer of the group), then leaves the group and closes the client.
   */
  stop(): Promise<void>;
  stats(): KafkaRunnerStats;
  /** Asks the broker, per partition of the topic: the group's committed offset and the log's end. */
  lag(): Promise<KafkaPartitionLag[]>;
  /** Subscribes to an event; returns the unsubscribe function. */
  on<E extends KafkaRunnerEventName>(event: E, listener: (payload: KafkaRunnerEvents[E]) => void): () => void;
}
