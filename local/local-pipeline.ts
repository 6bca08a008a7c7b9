/**
 * The whole pipeline on the embedded local AWS: moto (or the embedded LocalStack, `target`), the
 * demo stack synthesized and deployed from its own template, the outside system the demo worker calls, and the event-source runner
 * playing Lambda with the consumer's bundled code on the Node.js its runtime names (or, given
 * faults, the same consumer bundled with a fault injector over its ports: local/faults/fault-run.ts).
 * Used by the rehearsal and the end-to-end tests.
 */
import * as path from 'node:path';
import { UpdateEventSourceMappingCommand } from '@aws-sdk/client-lambda';
import { Admin } from '@platformatic/kafka';
import { ENV } from '../contract/env';
import { type AwsClients, createClients } from '../lambdas/adapters/clients';
import { DEMO_OUTSIDE_SYSTEM_URL_ENV } from '../lambdas/demo/worker';
import { CONSUMER_ENTRY_FILE } from '../lib/consumer-bundling';
import { DEMO_PROCESSOR_ENTRY, type DemoStackProps } from '../lib/demo-stack';
import { startKafka } from '../tools/kafka/broker';
import { ensureKafka } from '../tools/kafka/ensure-kafka.mjs';
import { deployCdkOut, type LocalFunction, type LocalStack } from '../tools/local-aws/deploy';
import type { LocalEventSourceMapping } from '../tools/local-aws/deploy/types';
import { LOCAL_CREDENTIALS, type LocalAws, startLocalAws } from '../tools/local-aws/moto';
import {
  type EventSourceRunner,
  type FunctionOptions,
  type KafkaRunnerOptions,
  type ObservedRunner,
  type RunnerOptions,
  startEventSourceRunner,
  startKafkaRunner,
} from '../tools/local-aws/runner';
import { deployOnLocalStack } from '../tools/localstack/cdk-deploy';
import { readDeployedStack } from '../tools/localstack/deployed-stack';
import { ensureLocalStack } from '../tools/localstack/ensure-localstack.mjs';
import { startLocalStack } from '../tools/localstack/localstack';
import { DemoAssembly } from './demo-assembly';
import { type FaultRun, prepareFaultRun } from './faults/fault-run';
import type { FaultSpec } from './faults/shared-plan';
import { startOutsideSystem } from './outside-system';
import { KafkaPipelineSource } from './sources/kafka-source';
import { LOCAL_KAFKA_TOPIC, type PipelineSource } from './sources/pipeline-source';
import { SqsPipelineSource } from './sources/sqs-source';

export interface LocalPipelineOptions {
  readonly stackName?: string;
  readonly pipeline?: DemoStackProps['pipeline'];
  /**
   * Execution environments the runner keeps. AWS's event source mapping cannot go below 2; the
   * seed's rehearsal wants exactly one worker, so the local mapping is set to it.
   * @default - the mapping's own maximum concurrency
   */
  readonly environments?: number;
  /** Copy the consumer's log lines to stderr. @default false */
  readonly forwardLogs?: boolean;
  /**
   * Named faults injected into the consumer's calls through its ports, counted across all its
   * execution environments.
   * @default - none: the runner runs the consumer exactly as bundled for deployment
   */
  readonly faults?: readonly FaultSpec[];
  /**
   * Where to synthesize the stack; pipelines started with the same assembly share one bundle of
   * the consumer. Whoever made it removes it after the last of them stopped.
   * @default - an assembly of this pipeline's own, removed when it stops
   */
  readonly assembly?: DemoAssembly;
  /**
   * Aborting it ends the start at its next step (Ctrl-C during `local:deploy`): what was started is
   * stopped and the start rejects with the signal's reason.
   * @default - the start runs to its end
   */
  readonly signal?: AbortSignal;
  /**
   * Where the stack is deployed: the embedded local AWS (moto, the template instantiated by our
   * own deployer) or the embedded LocalStack (its own CloudFormation, with moto as its DynamoDB).
   * The runner plays the mapping on either.
   * @default 'moto'
   */
  readonly target?: LocalTarget;
  /**
   * What the consumer reads: the demo stack's SQS queue, or a topic of that many partitions on an
   * embedded Apache Kafka broker (tools/kafka), read through the construct's Kafka source and
   * played by the local Kafka runner (moto only).
   * @default - the SQS queue
   */
  readonly kafka?: { readonly partitions: number };
}

export const LOCAL_TARGETS = ['moto', 'localstack'] as const;
export type LocalTarget = (typeof LOCAL_TARGETS)[number];

/** A running pipeline; its runner is the SQS runner's unless it reads a Kafka topic. */
export interface LocalPipeline<Runner extends ObservedRunner = EventSourceRunner> {
  readonly aws: LocalAws;
  readonly clients: AwsClients;
  readonly stack: LocalStack;
  readonly consumer: LocalFunction;
  readonly runner: Runner;
  /** The queue or topic the consumer reads. */
  readonly source: PipelineSource;
  readonly outside: Awaited<ReturnType<typeof startOutsideSystem>>;
  /** The faults of the run and their firings; undefined without faults. */
  readonly faults?: Pick<FaultRun, 'fired'>;
  /** The consumer's resolved environment: every name in contract/env.ts. */
  env(name: string): string;
  stop(): Promise<void>;
}

export function startLocalPipeline(
  options?: LocalPipelineOptions & { readonly kafka?: undefined },
): Promise<LocalPipeline>;
export function startLocalPipeline(options: LocalPipelineOptions): Promise<LocalPipeline<ObservedRunner>>;
export async function startLocalPipeline(
  options: LocalPipelineOptions = {},
): Promise<LocalPipeline<ObservedRunner>> {
  const stackName = options.stackName ?? 'PoisonQuarantineDemo';
  const assembly = options.assembly ?? new DemoAssembly();
  const cleanups: (() => Promise<void> | void)[] = options.assembly ? [] : [() => assembly.remove()];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
  const nextStep = () => options.signal?.throwIfAborted();
  try {
    const broker = options.kafka && (await startBroker(options.kafka.partitions, cleanups));
    const cdkOut = assembly.synthesize(
      stackName,
      options.pipeline,
      broker && { bootstrapServers: [broker.bootstrap], topic: LOCAL_KAFKA_TOPIC },
    );
    nextStep();
    const { aws, stack } = await deployOn(options.target ?? 'moto', stackName, cdkOut, cleanups);
    nextStep();
    const clients = createClients({
      endpoint: aws.endpoint,
      region: aws.region,
      credentials: LOCAL_CREDENTIALS,
    });
    const consumer = stack.functions.find((fn) => fn.environment[ENV.attemptsTable] !== undefined);
    const [mapping] = stack.eventSourceMappings;
    if (!consumer?.assetPath || !mapping)
      throw new Error(`${stackName} has no consumer function with its mapping`);
    const env = (name: string) => {
      const value = consumer.environment[name];
      if (value === undefined) throw new Error(`the consumer's environment has no ${name}`);
      return value;
    };
    if (options.environments !== undefined) {
      await clients.lambda.send(
        new UpdateEventSourceMappingCommand({
          UUID: mapping.uuid,
          ScalingConfig: { MaximumConcurrency: options.environments },
        }),
      );
    }
    const outside = await startOutsideSystem();
    cleanups.push(() => outside.stop());
    const faults = options.faults?.length
      ? await prepareFaultRun(options.faults, DEMO_PROCESSOR_ENTRY)
      : undefined;
    if (faults) cleanups.push(() => faults.remove());
    nextStep();
    const fn: FunctionOptions = {
      runtime: consumer.runtime,
      handler: faults?.handler ?? {
        file: path.join(consumer.assetPath, CONSUMER_ENTRY_FILE),
        exportName: 'handler',
      },
      environment: {
        ...consumer.environment,
        [ENV.endpoint]: aws.endpoint,
        [DEMO_OUTSIDE_SYSTEM_URL_ENV]: outside.url,
        // Every record's line, a completed one's too (DEBUG): the rehearsal and the bench read them.
        POWERTOOLS_LOG_LEVEL: 'DEBUG',
        ...faults?.environment,
      },
      functionName: consumer.functionName,
      functionTimeoutMs: consumer.timeoutSeconds * 1000,
      memoryMiB: consumer.memoryMiB,
      forwardLogs: options.forwardLogs ?? false,
    };
    const polling = {
      batchSize: mapping.batchSize,
      maximumBatchingWindowMs: mapping.maximumBatchingWindowInSeconds * 1000,
      maximumConcurrency: options.environments ?? mapping.maximumConcurrency ?? 2,
      mapping: { uuid: mapping.uuid, pollStateEveryMs: 200 },
    };
    const reading =
      broker === undefined
        ? await readQueue(
            {
              ...fn,
              ...polling,
              clients,
              queueUrl: env(ENV.sourceQueueUrl),
              queueArn: env(ENV.sourceQueueArn),
              region: aws.region,
              fifo: env(ENV.fifo) === 'true',
              waitTimeSeconds: 1,
            },
            clients.sqs,
          )
        : await readTopic(broker.bootstrap, mapping, {
            ...fn,
            ...polling,
            clients,
            region: aws.region,
          });
    cleanups.push(reading.stop);
    const { runner, source } = reading;
    return {
      aws,
      clients,
      stack,
      consumer,
      runner,
      source,
      outside,
      ...(faults ? { faults } : {}),
      env,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The embedded broker (installed on first use) with the demo's topic; its stop joins `cleanups`. */
async function startBroker(partitions: number, cleanups: (() => Promise<void> | void)[]) {
  ensureKafka();
  const broker = await startKafka();
  cleanups.push(() => broker.stop());
  const admin = new Admin({ clientId: 'poison-quarantine-local', bootstrapBrokers: [broker.bootstrap] });
  try {
    await admin.createTopics({ topics: [LOCAL_KAFKA_TOPIC], partitions, replicas: 1 });
  } finally {
    await admin.close();
  }
  return broker;
}

/** The runner and the source of a pipeline, and how to stop both. */
interface Reading {
  readonly runner: ObservedRunner;
  readonly source: PipelineSource;
  readonly stop: () => Promise<void>;
}

/** The SQS runner playing the mapping on the queue. */
async function readQueue(options: RunnerOptions, sqs: AwsClients['sqs']): Promise<Reading> {
  const runner = await startEventSourceRunner(options);
  const source = new SqsPipelineSource(sqs, options.queueUrl);
  return { runner, source, stop: () => runner.stop() };
}

/** The Kafka runner playing the template's Kafka mapping on the embedded broker's topic. */
async function readTopic(
  bootstrap: string,
  mapping: LocalEventSourceMapping,
  options: Omit<KafkaRunnerOptions, 'bootstrapServers' | 'topic' | 'groupId' | 'startingPosition'>,
): Promise<Reading> {
  const kafka = mapping.kafka;
  if (kafka === undefined) throw new Error(`the mapping ${mapping.logicalId} reads no Kafka topic`);
  const runner = await startKafkaRunner({
    ...options,
    bootstrapServers: [bootstrap],
    topic: kafka.topic,
    // Lambda's default group is the mapping's UUID.
    groupId: kafka.consumerGroupId ?? mapping.uuid,
    startingPosition: kafka.startingPosition,
    reportBatchItemFailures: mapping.functionResponseTypes.includes('ReportBatchItemFailures'),
    fetchMaxWaitMs: 200,
  });
  const source = new KafkaPipelineSource(bootstrap, kafka.topic, runner);
  return {
    runner,
    source,
    stop: async () => {
      await runner.stop();
      await source.close();
    },
  };
}

/** Starts the target's local AWS (its stop joins `cleanups`) and deploys the assembly's stack there. */
async function deployOn(
  target: LocalTarget,
  stackName: string,
  cdkOutDir: string,
  cleanups: (() => Promise<void> | void)[],
): Promise<{ readonly aws: LocalAws; readonly stack: LocalStack }> {
  if (target === 'moto') {
    const aws = await startLocalAws();
    cleanups.push(() => aws.stop());
    const clients = createClients({
      endpoint: aws.endpoint,
      region: aws.region,
      credentials: LOCAL_CREDENTIALS,
    });
    return { aws, stack: await deployCdkOut(stackName, { clients, region: aws.region, cdkOutDir }) };
  }
  ensureLocalStack();
  const localstack = await startLocalStack();
  cleanups.push(() => localstack.stop());
  const { outputs } = await deployOnLocalStack(localstack, cdkOutDir, stackName);
  const aws: LocalAws = {
    endpoint: localstack.endpoint,
    port: localstack.port,
    region: localstack.region,
    reset: () => Promise.reject(new Error('the embedded LocalStack has no reset: start a fresh pipeline')),
    stop: () => localstack.stop(),
  };
  return { aws, stack: await readDeployedStack(localstack, cdkOutDir, stackName, outputs) };
}
