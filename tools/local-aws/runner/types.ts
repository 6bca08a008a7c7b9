/**
 * The public shape of the local event-source runner: what it is started with, what it reports,
 * and the events it emits for tests and the rehearsal to observe.
 */
import type { LocalAwsClients } from '../clients';

/** Where the function's code lives, as Lambda's `Handler` setting names it. */
export interface HandlerRef {
  /** Absolute path of a bundled `.js` module (run by plain node) or a `.ts` source (run through tsx). */
  readonly file: string;
  /** The exported async function to call, e.g. `handler`. */
  readonly exportName: string;
}

/** Links the runner to an event source mapping in the local AWS, which then owns its settings. */
export interface MappingLink {
  /** UUID of a mapping in moto (made against a decoy queue: moto would drain a mapped real queue). */
  readonly uuid: string;
  /** How often the mapping is read. */
  readonly pollStateEveryMs: number;
}

/** The function both runners invoke, and its execution environments (environment-pool.ts). */
export interface FunctionOptions {
  readonly handler: HandlerRef;
  /**
   * The function's environment variables. The runner adds what Lambda sets (AWS_REGION,
   * AWS_LAMBDA_FUNCTION_NAME, ...), local credentials and AWS_ENDPOINT_URL (the endpoint of the
   * runner's local AWS clients, when it has some); a variable given here wins.
   */
  readonly environment: Readonly<Record<string, string>>;
  readonly functionName: string;
  /**
   * Lambda's runtime identifier (`nodejs24.x`): every execution environment runs on that major
   * version of Node.js, this process's own when it is that version, else the project's
   * (.venv/node/bin/node, installed by tools/local-aws/ensure-venv.mjs); the start fails when neither is.
   * @default - the runtime of the Node.js running the runner
   */
  readonly runtime?: string;
  /** The invocation is SIGKILLed when it runs longer than this. */
  readonly functionTimeoutMs: number;
  /**
   * Becomes AWS_LAMBDA_FUNCTION_MEMORY_SIZE and the V8 heap limit, so a runaway handler dies as
   * an out-of-memory crash instead of swapping.
   * @default 128 (Lambda's own default)
   */
  readonly memoryMiB?: number;
  /**
   * Copy every function log line to this process's stderr, prefixed with the environment id.
   * @default true
   */
  readonly forwardLogs?: boolean;
}

export interface RunnerOptions extends FunctionOptions {
  readonly clients: LocalAwsClients;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly region: string;
  readonly fifo: boolean;
  /** Records per invocation, 1..10,000 (FIFO: 1..10). Overridden by the mapping when linked. */
  readonly batchSize: number;
  /** Time to gather a batch across several receives (0 for FIFO). Overridden by the mapping when linked. */
  readonly maximumBatchingWindowMs: number;
  /** Concurrent execution environments (>= 1 locally). Overridden by the mapping's ScalingConfig when linked. */
  readonly maximumConcurrency: number;
  /**
   * When given, the mapping's State, BatchSize, MaximumBatchingWindowInSeconds and
   * ScalingConfig.MaximumConcurrency drive the runner: disabled means no new receives, while
   * invocations already under way finish.
   * @default - the options alone drive the runner, which polls until stopped
   */
  readonly mapping?: MappingLink;
  /** Long-poll wait of each receive, 0..20 s (keep it small in tests so pauses and stops are quick). */
  readonly waitTimeSeconds: number;
}

export interface RunnerStats {
  /** Receiving new batches: not stopped, and the linked mapping (if any) is enabled. */
  readonly polling: boolean;
  readonly batchSize: number;
  readonly maximumConcurrency: number;
  readonly invocations: number;
  readonly inFlightInvocations: number;
  readonly messagesReceived: number;
  readonly messagesDeleted: number;
  /** Records left in the queue to come back after their visibility timeout. */
  readonly messagesReturned: number;
  readonly functionErrors: number;
  readonly crashes: number;
  readonly timeouts: number;
  readonly environmentsStarted: number;
  readonly deleteFailures: number;
  /** The live environments; those warmed during start fired 'env-start' before `on` could be called. */
  readonly environments: readonly { readonly envId: string; readonly pid: number; readonly slot: number }[];
}

export interface InvocationRef {
  readonly envId: string;
  readonly pid: number;
  readonly requestId: string;
  readonly messageIds: readonly string[];
}

/** An invocation and how long it took to end: its answer (returned, threw), its crash or its kill. */
export type EndedRef = InvocationRef & {
  /** From the invoke to its end, wall clock: for an answer, how close the machine came to the deadline. */
  readonly durationMs: number;
};

/** What the execution environments report (environment-pool.ts), alike in both runners. */
export interface EnvironmentEvents {
  'env-start': { readonly envId: string; readonly pid: number; readonly slot: number };
  /** A crashed or timed-out environment was replaced by a fresh one (a cold start). */
  'env-replaced': {
    readonly slot: number;
    readonly oldEnvId: string;
    readonly newEnvId: string;
    readonly pid: number;
    readonly reason: 'crash' | 'timeout';
  };
  /** The process died; `messageIds` is empty when it died between invocations. */
  crash: Omit<InvocationRef, 'requestId'> & {
    readonly requestId?: string;
    readonly exitCode: number | null;
    readonly signal: string | null;
  };
  log: { readonly envId: string; readonly stream: 'stdout' | 'stderr'; readonly line: string };
  /** Something the runner survived but a test may want to see (a failed receive or delete). */
  warning: { readonly message: string };
}

/** The linked mapping's settings changed (mapping-state.ts). */
export interface MappingStateEvent {
  readonly state: string;
  readonly batchSize: number;
  readonly maximumConcurrency: number;
}

export interface RunnerEvents extends EnvironmentEvents {
  invoke: InvocationRef;
  /** The handler returned: which records were deleted and which were left for redelivery. */
  result: EndedRef & {
    readonly batchItemFailures: readonly string[];
    readonly deleted: readonly string[];
    readonly returned: readonly string[];
    /** Why the whole batch was returned despite a normal return (an empty or unknown identifier). */
    readonly wholeBatchFailure?: string;
  };
  /** The handler threw or rejected: the whole batch goes back, the environment stays warm. */
  'function-error': EndedRef & { readonly error: { readonly name: string; readonly message: string } };
  timeout: InvocationRef & { readonly timeoutMs: number };
  'mapping-state': MappingStateEvent;
}

export type RunnerEventName = keyof RunnerEvents;

export interface EventSourceRunner {
  /** Stops polling and kills every environment at once (a power cut: unfinished batches come back). */
  stop(): Promise<void>;
  stats(): RunnerStats;
  /** Subscribes to an event; returns the unsubscribe function. */
  on<E extends RunnerEventName>(event: E, listener: (payload: RunnerEvents[E]) => void): () => void;
}

/**
 * What both runners (SQS and Kafka) tell their watchers alike: the invocations, their answers and
 * deaths, the function's log and the mapping's state. The rehearsal and `local:deploy` watch a
 * pipeline through it, whichever source it reads.
 */
export interface ObservedRunnerEvents extends EnvironmentEvents {
  invoke: InvocationRef;
  result: EndedRef;
  'function-error': EndedRef & { readonly error: { readonly name: string; readonly message: string } };
  timeout: InvocationRef & { readonly timeoutMs: number };
  'mapping-state': MappingStateEvent;
}

export type ObservedRunnerEventName = keyof ObservedRunnerEvents;

/** A running event-source runner, as its watchers see it. */
export interface ObservedRunner {
  stop(): Promise<void>;
  on<E extends ObservedRunnerEventName>(
    event: E,
    listener: (payload: ObservedRunnerEvents[E]) => void,
  ): () => void;
}
