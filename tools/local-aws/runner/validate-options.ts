/**
 * Refuses settings Lambda itself would refuse (or that cannot work locally), naming every bad
 * value at once, so a scenario fails at start and not with a confusing runtime symptom.
 */
import { extname, isAbsolute } from 'node:path';
import type { KafkaRunnerOptions } from './kafka-types';
import { isNodeRuntime } from './lambda-node';
import type { FunctionOptions, RunnerOptions } from './types';

const HANDLER_EXTENSIONS = ['.js', '.cjs', '.mjs', '.ts'];
const HOST_PORT = /^[^\s:]+:\d{1,5}$/;
/** arn:aws:kafka:REGION:ACCOUNT:cluster/NAME/UUID */
const MSK_CLUSTER_ARN = /^arn:aws[a-z-]*:kafka:[a-z0-9-]+:\d{12}:cluster\/[^/]+\/.+$/;

export function validateOptions(options: RunnerOptions): void {
  const problems = functionProblems(options);
  const check = checkInto(problems);
  const { batchSize, maximumBatchingWindowMs: windowMs } = options;
  check(
    Number.isInteger(batchSize) && batchSize >= 1 && batchSize <= (options.fifo ? 10 : 10_000),
    `batchSize must be an integer in 1..${options.fifo ? 10 : 10_000} (given ${batchSize})`,
  );
  check(
    windowMs >= 0 && windowMs <= 300_000,
    `maximumBatchingWindowMs must be in 0..300000 (given ${windowMs})`,
  );
  check(!options.fifo || windowMs === 0, `a FIFO queue takes no batching window (given ${windowMs} ms)`);
  // Lambda: "When you set BatchSize to a value greater than 10, you must set MaximumBatchingWindowInSeconds to at least 1."
  check(
    batchSize <= 10 || windowMs >= 1000,
    `batchSize ${batchSize} > 10 needs a batching window >= 1000 ms (given ${windowMs})`,
  );
  check(
    Number.isInteger(options.maximumConcurrency) && options.maximumConcurrency >= 1,
    `maximumConcurrency must be an integer >= 1 (given ${options.maximumConcurrency})`,
  );
  check(
    Number.isInteger(options.waitTimeSeconds) &&
      options.waitTimeSeconds >= 0 &&
      options.waitTimeSeconds <= 20,
    `waitTimeSeconds must be an integer in 0..20 (given ${options.waitTimeSeconds})`,
  );
  check(
    options.queueArn.endsWith('.fifo') === options.fifo,
    `fifo is ${options.fifo} but the queue ARN is ${options.queueArn}`,
  );
  if (options.mapping) {
    const every = options.mapping.pollStateEveryMs;
    check(every > 0, `mapping.pollStateEveryMs must be positive (given ${every})`);
  }
  if (problems.length > 0)
    throw new Error(`invalid event source runner options:\n- ${problems.join('\n- ')}`);
}

/** What either runner refuses of the function itself: its handler, runtime, timeout and memory. */
export function functionProblems(options: FunctionOptions): string[] {
  const problems: string[] = [];
  const check = checkInto(problems);
  check(
    isAbsolute(options.handler.file),
    `handler.file must be an absolute path (given ${options.handler.file})`,
  );
  check(
    HANDLER_EXTENSIONS.includes(extname(options.handler.file)),
    `handler.file must end with ${HANDLER_EXTENSIONS.join(', ')} (given ${options.handler.file})`,
  );
  check(
    options.runtime === undefined || isNodeRuntime(options.runtime),
    `runtime must be a Node.js runtime such as nodejs24.x (given ${options.runtime})`,
  );
  check(
    options.functionTimeoutMs > 0,
    `functionTimeoutMs must be positive (given ${options.functionTimeoutMs})`,
  );
  check((options.memoryMiB ?? 128) >= 128, `memoryMiB must be at least 128 (given ${options.memoryMiB})`);
  return problems;
}

/** A `check(ok, problem)` that writes each failed check's problem into `problems`. */
export function checkInto(problems: string[]): (ok: boolean, problem: string) => void {
  return (ok, problem) => {
    if (!ok) problems.push(problem);
  };
}

/** Lambda refuses a mapping whose function timeout exceeds the queue's visibility timeout. */
export function validateTimeoutAgainstQueue(
  functionTimeoutMs: number,
  visibilityTimeoutSeconds: number,
): void {
  if (functionTimeoutMs > visibilityTimeoutSeconds * 1000) {
    throw new Error(
      `the function timeout (${functionTimeoutMs} ms) exceeds the queue's visibility timeout ` +
        `(${visibilityTimeoutSeconds} s): Lambda refuses such a mapping`,
    );
  }
}

/** What Lambda's CreateEventSourceMapping would refuse of a Kafka mapping, and what cannot work locally. */
export function validateKafkaOptions(options: KafkaRunnerOptions): void {
  const problems = functionProblems(options);
  const check = checkInto(problems);
  const { batchSize, maximumBatchingWindowMs: windowMs, eventShape } = options;
  check(
    options.bootstrapServers.length > 0 && options.bootstrapServers.every((server) => HOST_PORT.test(server)),
    `bootstrapServers must be host:port, at least one (given ${JSON.stringify(options.bootstrapServers)})`,
  );
  check(options.topic !== '', 'topic must not be empty');
  check(options.groupId !== '', 'groupId must not be empty');
  check(
    options.startingPosition === 'TRIM_HORIZON' || options.startingPosition === 'LATEST',
    `startingPosition must be TRIM_HORIZON or LATEST (given ${options.startingPosition})`,
  );
  check(
    Number.isInteger(batchSize) && batchSize >= 1 && batchSize <= 10_000,
    `batchSize must be an integer in 1..10000 (given ${batchSize})`,
  );
  check(
    windowMs >= 0 && windowMs <= 300_000,
    `maximumBatchingWindowMs must be in 0..300000 (given ${windowMs})`,
  );
  check(
    Number.isInteger(options.maximumConcurrency) && options.maximumConcurrency >= 1,
    `maximumConcurrency must be an integer >= 1 (given ${options.maximumConcurrency})`,
  );
  check(
    options.fetchMaxWaitMs === undefined ||
      (Number.isInteger(options.fetchMaxWaitMs) &&
        options.fetchMaxWaitMs >= 1 &&
        options.fetchMaxWaitMs <= 30_000),
    `fetchMaxWaitMs must be an integer in 1..30000 (given ${options.fetchMaxWaitMs})`,
  );
  check(
    options.accountId === undefined || /^\d{12}$/.test(options.accountId),
    `accountId must be 12 digits (given ${options.accountId})`,
  );
  check(
    eventShape?.kind !== 'msk' || MSK_CLUSTER_ARN.test(eventShape.clusterArn),
    `eventShape.clusterArn must be an MSK cluster ARN (given ${eventShape?.kind === 'msk' ? eventShape.clusterArn : ''})`,
  );
  if (options.mapping) {
    const every = options.mapping.pollStateEveryMs;
    check(every > 0, `mapping.pollStateEveryMs must be positive (given ${every})`);
    check(options.clients !== undefined, 'a linked mapping is read through clients.lambda: give clients');
  }
  if (problems.length > 0) throw new Error(`invalid Kafka runner options:\n- ${problems.join('\n- ')}`);
}
