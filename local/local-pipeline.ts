/**
 * The whole pipeline on the embedded local AWS: moto (or the embedded LocalStack, `target`), the
 * demo stack synthesized and deployed from its own template, the outside system the demo worker calls, and the event-source runner
 * playing Lambda with the consumer's bundled code on the Node.js its runtime names (or, given
 * faults, the same consumer bundled with a fault injector over its ports: local/faults/fault-run.ts).
 * Used by the rehearsal and the end-to-end tests.
 */
import * as path from 'node:path';
import { UpdateEventSourceMappingCommand } from '@aws-sdk/client-lambda';
import { ENV } from '../contract/env';
import { type AwsClients, createClients } from '../lambdas/adapters/clients';
import { DEMO_OUTSIDE_SYSTEM_URL_ENV } from '../lambdas/demo/worker';
import { CONSUMER_ENTRY_FILE } from '../lib/consumer-bundling';
import { DEMO_PROCESSOR_ENTRY, type DemoStackProps } from '../lib/demo-stack';
import { deployCdkOut, type LocalFunction, type LocalStack } from '../tools/local-aws/deploy';
import { LOCAL_CREDENTIALS, type LocalAws, startLocalAws } from '../tools/local-aws/moto';
import { type EventSourceRunner, startEventSourceRunner } from '../tools/local-aws/runner';
import { deployOnLocalStack } from '../tools/localstack/cdk-deploy';
import { readDeployedStack } from '../tools/localstack/deployed-stack';
import { ensureLocalStack } from '../tools/localstack/ensure-localstack.mjs';
import { startLocalStack } from '../tools/localstack/localstack';
import { DemoAssembly } from './demo-assembly';
import { type FaultRun, prepareFaultRun } from './faults/fault-run';
import type { FaultSpec } from './faults/shared-plan';
import { startOutsideSystem } from './outside-system';

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
}

export const LOCAL_TARGETS = ['moto', 'localstack'] as const;
export type LocalTarget = (typeof LOCAL_TARGETS)[number];

export interface LocalPipeline {
  readonly aws: LocalAws;
  readonly clients: AwsClients;
  readonly stack: LocalStack;
  readonly consumer: LocalFunction;
  readonly runner: EventSourceRunner;
  readonly outside: Awaited<ReturnType<typeof startOutsideSystem>>;
  /** The faults of the run and their firings; undefined without faults. */
  readonly faults?: Pick<FaultRun, 'fired'>;
  /** The consumer's resolved environment: every name in contract/env.ts. */
  env(name: string): string;
  stop(): Promise<void>;
}

export async function startLocalPipeline(options: LocalPipelineOptions = {}): Promise<LocalPipeline> {
  const stackName = options.stackName ?? 'PoisonQuarantineDemo';
  const assembly = options.assembly ?? new DemoAssembly();
  const cleanups: (() => Promise<void> | void)[] = options.assembly ? [] : [() => assembly.remove()];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
  const nextStep = () => options.signal?.throwIfAborted();
  try {
    const cdkOut = assembly.synthesize(stackName, options.pipeline);
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
    const runner = await startEventSourceRunner({
      clients,
      queueUrl: env(ENV.sourceQueueUrl),
      queueArn: env(ENV.sourceQueueArn),
      region: aws.region,
      fifo: env(ENV.fifo) === 'true',
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
      batchSize: mapping.batchSize,
      maximumBatchingWindowMs: mapping.maximumBatchingWindowInSeconds * 1000,
      maximumConcurrency: options.environments ?? mapping.maximumConcurrency ?? 2,
      mapping: { uuid: mapping.uuid, pollStateEveryMs: 200 },
      waitTimeSeconds: 1,
      forwardLogs: options.forwardLogs ?? false,
    });
    cleanups.push(() => runner.stop());
    return { aws, clients, stack, consumer, runner, outside, ...(faults ? { faults } : {}), env, stop };
  } catch (error) {
    await stop();
    throw error;
  }
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
