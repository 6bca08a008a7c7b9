/**
 * What the end-to-end tests share: a pipeline started with a few settings (moto, the demo stack
 * deployed from its own template, the runner with real process kills), the probe that reads
 * the AWS state through the project's adapters, the consumer's log as the runner hands it over,
 * and polling until something has happened.
 */

import { Duration } from 'aws-cdk-lib';
import type { PoisonQuarantineProps } from '../../lib/poison-quarantine';
import { type ConsumerLog, watchConsumerLog } from '../../local/consumer-log';
import { type LocalPipeline, startLocalPipeline } from '../../local/local-pipeline';
import { PipelineProbe } from '../../local/rehearsal/pipeline-probe';
import type { RunnerEvents } from '../../tools/local-aws/runner';

export interface PipelineSettings {
  readonly consumerTimeoutSeconds: number;
  readonly environments?: number;
  readonly pipeline?: Omit<PoisonQuarantineProps, 'processorEntry' | 'consumerTimeout'>;
}

export interface TestPipeline {
  readonly pipeline: LocalPipeline;
  readonly probe: PipelineProbe;
  readonly log: ConsumerLog;
  /** Every invocation the runner made, in order. */
  readonly invocations: RunnerEvents['invoke'][];
  /** SQS messageIds of the invocations that held `messageId`. */
  invocationsOf(messageId: string): RunnerEvents['invoke'][];
  stop(): Promise<void>;
}

export async function startTestPipeline(settings: PipelineSettings): Promise<TestPipeline> {
  const pipeline = await startLocalPipeline({
    pipeline: { ...settings.pipeline, consumerTimeout: Duration.seconds(settings.consumerTimeoutSeconds) },
    environments: settings.environments ?? 1,
  });
  const probe = new PipelineProbe(pipeline);
  const log = watchConsumerLog(pipeline.runner);
  const invocations: RunnerEvents['invoke'][] = [];
  pipeline.runner.on('invoke', (invocation) => invocations.push(invocation));
  return {
    pipeline,
    probe,
    log,
    invocations,
    invocationsOf: (messageId) =>
      invocations.filter((invocation) => invocation.messageIds.includes(messageId)),
    stop: async () => {
      log.close();
      await pipeline.stop();
    },
  };
}

/** A demo message body (lambdas/demo/worker.ts). */
export function demoBody(id: string, behaviour: string, times?: number): string {
  return JSON.stringify({ id, behaviour, times });
}

/** Polls until `check` returns a value other than undefined or false; fails naming `what`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 30_000,
  everyMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${String(last)})`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Resolves with the first event of that name the runner emits from now on. */
export function nextEvent<E extends keyof RunnerEvents>(
  pipeline: LocalPipeline,
  event: E,
  matches: (payload: RunnerEvents[E]) => boolean = () => true,
): Promise<RunnerEvents[E]> {
  return new Promise((resolve) => {
    const off = pipeline.runner.on(event, (payload) => {
      if (!matches(payload)) return;
      off();
      resolve(payload);
    });
  });
}

/** Waits until every key's ledger item is completed or quarantined and the queue is empty. */
export async function waitUntilSettled(probe: PipelineProbe, keys: readonly string[], timeoutMs = 40_000) {
  return waitFor(
    `${keys.length} messages settled and the queue empty`,
    async () => {
      const [items, depth] = await Promise.all([probe.ledgerItems(keys), probe.queueDepth()]);
      const terminal = [...items.values()].every(
        (item) => item?.state === 'completed' || item?.state === 'quarantined',
      );
      return terminal && depth.total === 0 ? items : undefined;
    },
    timeoutMs,
  );
}
