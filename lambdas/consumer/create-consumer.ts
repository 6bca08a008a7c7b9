/**
 * The composition root: configuration, clients, adapters, the logger and the metrics, built once
 * per execution environment (cold start), and the handler of the configured source (SQS or
 * Kafka, lambdas/sources) that uses them.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { METRIC_SERVICE } from '../../contract/metrics';
import type { KafkaBatchResponse } from '../../contract/sources';
import { AttemptLedger } from '../adapters/attempt-ledger';
import type { ClientOptions } from '../adapters/client-config';
import { ControlState } from '../adapters/control-state';
import { dynamodbClient } from '../adapters/dynamodb-client';
import { type ConsumerConfig, type Environment, parseConfig } from '../core/config';
import { timeMarginMs } from '../core/time-guard';
import type {
  ConsumerPorts,
  OperationsPort,
  QuarantineStorePort,
  SourceQueuePort,
} from '../ports/consumer-ports';
import { OperationsUnavailableError, QuarantineWriteError, SourceQueueError } from '../ports/errors';
import type { EventSourcePort } from '../ports/source';
import { type KafkaEvent, kafkaSource } from '../sources/kafka';
import { SQS_SOURCE } from '../sources/sqs';
import { handleBatch } from './batch';
import { CallMeter } from './call-meter';
import { ControlCache } from './control-cache';
import { countedPorts } from './counting';
import type { ConsumerDeps } from './deps';
import { lazyPort, type PortMethods } from './lazy-port';
import { EmfMetrics, loggingFailures } from './metrics';
import { ShareWindow } from './share-window';
import type { ProcessorModule } from './types';
import { UnrecordedFailures } from './unrecorded-failures';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
/** The deployed handler: the configured source's event in, its answer out. */
/** A queue's answer names the messages that stay; a Kafka one where each held partition resumes. */
export type SourceResponse = SQSBatchResponse | KafkaBatchResponse;
export type SourceHandler = (event: SQSEvent | KafkaEvent, context: Context) => Promise<SourceResponse>;
type Handler<E, R> = (event: E, context: Context) => Promise<R>;

export interface ConsumerOptions {
  readonly processor: ProcessorModule;
  /** The environment to read the configuration from (contract/env.ts names). */
  readonly env: Environment;
  readonly clientOptions?: ClientOptions;
  readonly logger?: Logger;
  /**
   * Wraps the AWS adapters before the consumer uses them. Only the local runner sets it, to
   * inject named faults (tools/local-aws/runner); a deployed handler never does.
   * @default - the adapters as they are
   */
  readonly wrapPorts?: (ports: ConsumerPorts) => ConsumerPorts;
}

export function createConsumer(options: ConsumerOptions): SourceHandler {
  // Throws a ConfigError naming every bad variable: a cold start with bad config must fail.
  const config = parseConfig(options.env);
  const clientOptions = options.clientOptions ?? {};
  const meter = new CallMeter();
  const dynamodb = dynamodbClient(clientOptions);
  meter.attach('dynamodb', dynamodb);
  const functionName = options.env.AWS_LAMBDA_FUNCTION_NAME ?? 'local';
  const source = sourceOf(config);
  const adapters: ConsumerPorts = {
    ledger: new AttemptLedger(dynamodb, config.attemptsTable),
    control: new ControlState(dynamodb, config.controlTable, config.policy),
    ...rarePorts(config, clientOptions, dynamodb, meter),
    ...(source.queue === undefined ? {} : { queue: source.queue }),
  };
  const logger = options.logger ?? new Logger({ serviceName: METRIC_SERVICE });
  const handle = consumerHandler(
    {
      config,
      processor: options.processor,
      ...(options.wrapPorts ? options.wrapPorts(adapters) : adapters),
      logger,
      meter,
      metrics: new EmfMetrics({ queueArn: config.sourceQueueArn, logger }),
      envId: `${functionName}:${randomUUID()}`,
      now: () => new Date(),
      newId: randomUUID,
      random: Math.random,
      sleep: (ms) => sleep(ms),
      alarm: (ms, signal) =>
        sleep(ms, undefined, { signal, ref: false }).catch(() => new Promise<void>(() => undefined)),
    },
    source.port as EventSourcePort<SQSEvent | KafkaEvent, SourceResponse>,
  );
  return (event, context) => {
    // Every line of this invocation names its request, and the first one's the cold start.
    logger.addContext(context);
    return handle(event, context);
  };
}

/**
 * The configured source's event adapter, and for Kafka the port its records are handed back
 * through (an SQS queue's is connected on first use, below).
 */
function sourceOf(config: ConsumerConfig): {
  readonly port:
    | EventSourcePort<SQSEvent, SQSBatchResponse>
    | EventSourcePort<KafkaEvent, KafkaBatchResponse>;
  readonly queue?: SourceQueuePort;
} {
  if (config.kafka === undefined) return { port: SQS_SOURCE };
  return kafkaSource({
    cluster: config.kafka.cluster,
    marginMs: timeMarginMs(config.policy.attemptTimeoutSeconds),
    sleep: (ms) => sleep(ms),
    partialBatchResponse: config.kafka.partialBatchResponse,
  });
}

const QUARANTINE_STORE_METHODS: PortMethods<QuarantineStorePort> = {
  putContent: true,
  putRecord: true,
  openRecordsAtLeast: true,
};
const OPERATIONS_METHODS: PortMethods<OperationsPort> = { startOutcomeUnknown: true, startPause: true };
const SOURCE_QUEUE_METHODS: PortMethods<SourceQueuePort> = { delay: true, acknowledge: true };

type MeteredService = Parameters<CallMeter['attach']>[0];
/** What a connect-*.ts module makes: a client, to count its calls, and the adapter over it. */
interface Connected<A> {
  readonly client: Parameters<CallMeter['attach']>[1];
  readonly adapter: A;
}

/**
 * The ports no healthy message calls, each made with its client on its first call: their SDK
 * clients are most of what a cold start would otherwise load (issue 24). Each `import()` is a
 * chunk of the bundle of its own; a failed load is the port's own failure to reach its service.
 */
function rarePorts(
  config: ConsumerConfig,
  clientOptions: ClientOptions,
  dynamodb: DynamoDBClient,
  meter: CallMeter,
): Pick<ConsumerPorts, 'quarantine' | 'operations' | 'queue'> {
  // Each client's calls are counted from its first, as the DynamoDB client's are.
  const metered = async <A>(service: MeteredService, connecting: Promise<Connected<A>>): Promise<A> => {
    const { client, adapter } = await connecting;
    meter.attach(service, client);
    return adapter;
  };
  const place = { bucket: config.quarantineBucket, table: config.quarantineTable };
  return {
    quarantine: lazyPort(
      QUARANTINE_STORE_METHODS,
      () =>
        metered(
          's3',
          import('../adapters/connect-quarantine').then((m) =>
            m.connectQuarantine(clientOptions, dynamodb, place),
          ),
        ),
      (cause) => new QuarantineWriteError('the quarantine adapter could not be loaded', { cause }),
    ),
    operations: lazyPort(
      OPERATIONS_METHODS,
      () =>
        metered(
          'sfn',
          import('../adapters/connect-operations').then((m) =>
            m.connectOperations(clientOptions, config.stateMachines),
          ),
        ),
      (cause) => new OperationsUnavailableError('the state machines adapter could not be loaded', { cause }),
    ),
    queue: lazyPort(
      SOURCE_QUEUE_METHODS,
      () =>
        metered(
          'sqs',
          import('../adapters/connect-source-queue').then((m) =>
            m.connectSourceQueue(clientOptions, config.sourceQueueUrl),
          ),
        ),
      (cause) => new SourceQueueError('the source queue adapter could not be loaded', { cause }),
    ),
  };
}

/**
 * The handler over ready-made dependencies: one execution environment's state lives here. The
 * source's adapter maps its event to records and the records that stay to its answer (SQS's by
 * default).
 */
export function consumerHandler(deps: ConsumerDeps): SqsHandler;
export function consumerHandler<E, R>(deps: ConsumerDeps, source: EventSourcePort<E, R>): Handler<E, R>;
export function consumerHandler<E, R>(
  deps: ConsumerDeps,
  source: EventSourcePort<E, R> = SQS_SOURCE as unknown as EventSourcePort<E, R>,
): Handler<E, R> {
  const { config } = deps;
  const metrics = loggingFailures(deps.metrics, deps.logger);
  const counted: ConsumerDeps = { ...deps, ...countedPorts(deps, metrics), metrics };
  const state = {
    cache: new ControlCache(counted.control, config.controlCacheSeconds * 1000, deps.now),
    shares: new ShareWindow(config.policy),
    unrecorded: new UnrecordedFailures(),
    longestRecordMs: 0,
    pauseCheckedAt: Number.NEGATIVE_INFINITY,
  };
  return async (event, context) => {
    try {
      const stay = await handleBatch(counted, state, source.records(event), context);
      return await source.respond(stay, context);
    } finally {
      metrics.flush();
    }
  };
}
