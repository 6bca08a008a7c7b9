/**
 * The composition root: configuration, clients, adapters, the logger and the metrics, built once
 * per execution environment (cold start), and the SQS handler that uses them.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { METRIC_SERVICE } from '../../contract/metrics';
import { AttemptLedger } from '../adapters/attempt-ledger';
import { type ClientOptions, createConsumerClients } from '../adapters/consumer-clients';
import { ControlState } from '../adapters/control-state';
import { Operations } from '../adapters/operations';
import { QuarantineWriter } from '../adapters/quarantine-writer';
import { SourceQueue } from '../adapters/source-queue';
import { type Environment, parseConfig } from '../core/config';
import type { ConsumerPorts } from '../ports/consumer-ports';
import { handleBatch } from './batch';
import { CallMeter } from './call-meter';
import { ControlCache } from './control-cache';
import { countedPorts } from './counting';
import type { ConsumerDeps } from './deps';
import { EmfMetrics, loggingFailures } from './metrics';
import { ShareWindow } from './share-window';
import type { ProcessorModule } from './types';
import { UnrecordedFailures } from './unrecorded-failures';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

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

export function createConsumer(options: ConsumerOptions): SqsHandler {
  // Throws a ConfigError naming every bad variable: a cold start with bad config must fail.
  const config = parseConfig(options.env);
  const clients = createConsumerClients(options.clientOptions);
  const meter = new CallMeter();
  meter.attach('dynamodb', clients.dynamodb);
  meter.attach('s3', clients.s3);
  meter.attach('sqs', clients.sqs);
  meter.attach('sfn', clients.sfn);
  const functionName = options.env.AWS_LAMBDA_FUNCTION_NAME ?? 'local';
  const adapters: ConsumerPorts = {
    ledger: new AttemptLedger(clients.dynamodb, config.attemptsTable),
    control: new ControlState(clients.dynamodb, config.controlTable, config.policy),
    quarantine: new QuarantineWriter(
      clients.s3,
      clients.dynamodb,
      config.quarantineBucket,
      config.quarantineTable,
    ),
    operations: new Operations(clients.sfn, config.stateMachines),
    queue: new SourceQueue(clients.sqs, config.sourceQueueUrl),
  };
  const logger = options.logger ?? new Logger({ serviceName: METRIC_SERVICE });
  const handle = consumerHandler({
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
  });
  return (event, context) => {
    // Every line of this invocation names its request, and the first one's the cold start.
    logger.addContext(context);
    return handle(event, context);
  };
}

/** The handler over ready-made dependencies: one execution environment's state lives here. */
export function consumerHandler(deps: ConsumerDeps): SqsHandler {
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
      return await handleBatch(counted, state, event, context);
    } finally {
      metrics.flush();
    }
  };
}
