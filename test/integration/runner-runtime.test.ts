/**
 * The runner's execution environments run on the Node.js the function's runtime names, as
 * Lambda's do: `nodejs24.x` is Node.js 24 whatever Node.js runs the test (the project's own from
 * .venv when this one is another), and a runtime nobody provides fails the start with what to do.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExecutionEnvironment } from '../../tools/local-aws/runner/execution-environment';
import { functionVariables } from '../../tools/local-aws/runner/function-identity';
import { currentRuntime, nodeFor } from '../../tools/local-aws/runner/lambda-node';
import type { RunnerOptions } from '../../tools/local-aws/runner/types';
import { validateOptions } from '../../tools/local-aws/runner/validate-options';

const dir = mkdtempSync(join(tmpdir(), 'pq-runtime-'));
const handlerFile = join(dir, 'index.js');
writeFileSync(
  handlerFile,
  'exports.handler = async () => ({ node: process.versions.node, executionEnv: process.env.AWS_EXECUTION_ENV });\n',
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the Node.js of a function runtime', () => {
  it('is the running Node.js for its own runtime', () => {
    expect(nodeFor(currentRuntime())).toBe(process.execPath);
  });

  it('is Node.js 24 for nodejs24.x, the runtime the consumer is deployed on', () => {
    const version = execFileSync(nodeFor('nodejs24.x'), ['-p', 'process.versions.node'], {
      encoding: 'utf8',
    });
    expect(version).toMatch(/^24\./);
  });

  it('is refused at start when it is not Node.js', () => {
    const options = {
      queueArn: 'arn:aws:sqs:us-east-1:123456789012:q',
      fifo: false,
      handler: { file: handlerFile, exportName: 'handler' },
      runtime: 'python3.12',
      functionTimeoutMs: 1_000,
      batchSize: 1,
      maximumBatchingWindowMs: 0,
      maximumConcurrency: 1,
      waitTimeSeconds: 0,
    } as RunnerOptions;
    expect(() => validateOptions(options)).toThrow(
      'invalid event source runner options:\n- runtime must be a Node.js runtime such as nodejs24.x (given python3.12)',
    );
  });

  it('refuses a runtime neither this Node.js nor the project provides, saying how to get one', () => {
    expect(() => nodeFor('nodejs18.x')).toThrow(/runtime is nodejs18\.x, but this is Node\.js .*Node\.js 18/);
  });

  it('runs the handler on that Node.js, which AWS_EXECUTION_ENV names as Lambda does', async () => {
    // Prepare
    const identity = {
      functionName: 'runtime-test',
      region: 'us-east-1',
      accountId: '123456789012',
      memoryMiB: 128,
      runtime: 'nodejs24.x',
      handler: { file: handlerFile, exportName: 'handler' },
    };
    const environment = await ExecutionEnvironment.start({
      id: 'env-1',
      node: nodeFor(identity.runtime),
      handler: identity.handler,
      variables: functionVariables(identity, 'stream', {}),
      memoryMiB: identity.memoryMiB,
      onLog: () => undefined,
    });
    try {
      // Act
      const outcome = await environment.invoke({
        event: { Records: [] },
        requestId: 'request-1',
        invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:runtime-test',
        timeoutMs: 10_000,
      });
      // Assess
      expect(outcome).toStrictEqual({
        kind: 'returned',
        response: { node: expect.stringMatching(/^24\./), executionEnv: 'AWS_Lambda_nodejs24.x' },
      });
    } finally {
      await environment.kill();
    }
  });
});
