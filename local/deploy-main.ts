/**
 * `npm run local:deploy [-- --keep] [--target moto|localstack [--endpoint-url URL]]`: synthesizes the
 * demo stack, deploys it into a fresh embedded local AWS (moto on 127.0.0.1, or the embedded
 * LocalStack), starts the event-source runner, and prints what it created; with --endpoint-url,
 * deploys it into the user's own LocalStack instead, whose Lambda runs the consumer
 * (local/their-localstack.ts). With --keep it stays up until Ctrl-C, printing commands to try it from another
 * terminal (they run exactly as printed) and the consumer's log lines; without, it stops
 * everything it started.
 *
 * Whenever Ctrl-C comes, during the start too, everything started is stopped and the synthesized
 * cloud assembly removed: the start ends at its next step (or fails at once, as it does when the
 * terminal's Ctrl-C has already ended moto or esbuild), then everything is stopped. A second
 * Ctrl-C does not cut the cleanup short; it takes a few seconds at most. package.json runs this
 * file with `node --import tsx`, not the tsx command: tsx's own process SIGKILLs a child that
 * does not answer a relayed signal within 60 ms, and synthesis blocks this one for seconds.
 * Makes sure of the local AWS's virtualenv (its first install takes minutes) once the arguments
 * are read: `--help` and bad usage install nothing.
 */

import * as path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { exitOnceWritten, exitQuietlyOnBrokenPipe } from '../cli/broken-pipe';
import { ENV } from '../contract/env';
import type { LocalFunction, LocalStack } from '../tools/local-aws/deploy';
import { ensureVenvOrExit } from '../tools/local-aws/ensure-venv.mjs';
import { LOCAL_CREDENTIALS } from '../tools/local-aws/moto';
import { LocalStackDeployError } from '../tools/localstack/cdk-deploy';
import { LOCALSTACK_ACCOUNT, LocalStackUnavailableError } from '../tools/localstack/localstack';
import { DemoAssembly } from './demo-assembly';
import { LOCAL_TARGETS, type LocalPipeline, type LocalTarget, startLocalPipeline } from './local-pipeline';
import { deployIntoTheirLocalStack } from './their-localstack';
import { consumerLogLine, deathLine, tryOutCommands } from './try-out';

const USAGE =
  'usage: npm run local:deploy [-- --keep] [--target moto|localstack [--endpoint-url URL]]\n' +
  '\n' +
  'Deploys the demo stack into a fresh local AWS, prints what it created, and stops what it started.\n' +
  "  --keep               stay up until Ctrl-C, printing commands to try it and the consumer's log\n" +
  '  --target moto        the embedded local AWS, the consumer run by the local event-source runner (default)\n' +
  '  --target localstack  the embedded LocalStack: deployed by its own CloudFormation, the consumer run by\n' +
  '                       the same runner\n' +
  '  --endpoint-url URL   with --target localstack: your own LocalStack at URL instead (Docker, your token);\n' +
  '                       the stack stays there and its Lambda runs the consumer (no --keep: nothing of ours runs)\n' +
  '  --help, -h           this text, and nothing deployed or installed\n';

interface DeployArguments {
  readonly keep: boolean;
  readonly target: LocalTarget;
  readonly endpointUrl?: string;
}

async function main(argv: readonly string[]): Promise<number> {
  exitQuietlyOnBrokenPipe();
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const args = parseArguments(argv);
  if (args === undefined) return 2;
  ensureVenvOrExit();
  const { target, endpointUrl } = args;
  const interrupt = abortOnSignals();
  const assembly = new DemoAssembly();
  if (endpointUrl !== undefined) {
    try {
      const stack = await deployIntoTheirLocalStack(endpointUrl, assembly);
      printResources(stack, { endpoint: endpointUrl, runBy: "your LocalStack's Lambda" });
      printTryOut(stack, endpointUrl, false);
      return 0;
    } catch (error) {
      // Said as it is: what is wrong with their LocalStack, or what it refused to create.
      if (!(error instanceof LocalStackUnavailableError || error instanceof LocalStackDeployError))
        throw error;
      process.stderr.write(`local:deploy: ${error.message}\n`);
      return 1;
    } finally {
      assembly.remove();
    }
  }
  try {
    const pipeline = await startLocalPipeline({ assembly, signal: interrupt.signal, target }).catch(
      async (error: unknown) => {
        // A start cut short by the terminal's Ctrl-C (moto or esbuild ended) may fail before this
        // process has handled the same signal: let it be handled first.
        await nextTurn();
        if (interrupt.signal.aborted) return undefined;
        throw error;
      },
    );
    if (pipeline === undefined || interrupt.signal.aborted) {
      await pipeline?.stop();
      process.stdout.write('Interrupted: everything started was stopped.\n');
      return 130;
    }
    try {
      printResources(pipeline.stack, {
        endpoint: pipeline.aws.endpoint,
        runBy: 'the local event-source runner',
      });
      if (!args.keep) return 0;
      printTryOut(pipeline.stack, pipeline.aws.endpoint, true);
      const stopForwarding = forwardConsumerLogs(pipeline);
      await aborted(interrupt.signal);
      stopForwarding();
      process.stdout.write('\nStopping the runner and the local AWS ...\n');
      return 0;
    } finally {
      await pipeline.stop();
    }
  } finally {
    assembly.remove();
  }
}

/** The arguments, or undefined when they are wrong (said on stderr with the usage). */
function parseArguments(argv: readonly string[]): DeployArguments | undefined {
  let problem: string | undefined;
  let parsed: DeployArguments | undefined;
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: {
        keep: { type: 'boolean', default: false },
        target: { type: 'string', default: 'moto' },
        'endpoint-url': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    });
    const target = LOCAL_TARGETS.find((candidate) => candidate === values.target);
    const endpointUrl = values['endpoint-url'];
    problem =
      target === undefined
        ? `--target must be moto or localstack, not ${values.target || 'nothing'}`
        : endpointUrl === undefined
          ? undefined
          : endpointProblem(endpointUrl, target, values.keep);
    if (problem === undefined && target !== undefined) {
      parsed = { keep: values.keep, target, ...(endpointUrl === undefined ? {} : { endpointUrl }) };
    }
  } catch (error) {
    problem = (error as Error).message;
  }
  if (parsed === undefined) process.stderr.write(`local:deploy: ${problem}\n${USAGE}`);
  return parsed;
}

function endpointProblem(endpointUrl: string, target: LocalTarget, keep: boolean): string | undefined {
  if (target !== 'localstack') return '--endpoint-url is for --target localstack (your own LocalStack)';
  if (keep) return '--keep has nothing to keep with --endpoint-url: your LocalStack runs the consumer';
  if (!URL.canParse(endpointUrl) || !/^https?:$/.test(new URL(endpointUrl).protocol)) {
    return `--endpoint-url must be an http(s) URL such as http://localhost:4566, not ${endpointUrl || 'nothing'}`;
  }
  return undefined;
}

/** Aborted at the first SIGINT or SIGTERM; later ones are absorbed while the stop runs. */
function abortOnSignals(): AbortController {
  const interrupt = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => interrupt.abort());
  return interrupt;
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

function printResources(stack: LocalStack, where: { endpoint: string; runBy: string }): void {
  const rows = Object.entries(stack.resources).map(([logicalId, resource]) => [
    resource.type,
    logicalId,
    resource.notInstantiated ? `(not instantiated: ${resource.notInstantiated})` : resource.physicalId,
  ]);
  const width = (column: number) => Math.max(...rows.map((row) => row[column].length));
  for (const row of rows.sort((a, b) => a[0].localeCompare(b[0]))) {
    process.stdout.write(`${row[0].padEnd(width(0))}  ${row[1].padEnd(width(1))}  ${row[2]}\n`);
  }
  const consumer = consumerOf(stack);
  const label = stack.accountId === LOCALSTACK_ACCOUNT ? 'LocalStack:    ' : 'Local AWS:     ';
  process.stdout.write(
    `\n${label} ${where.endpoint} (region ${stack.region})\n` +
      `Source queue:   ${consumer.environment[ENV.sourceQueueUrl]}\n` +
      `Consumer:       ${consumer.functionName} (run by ${where.runBy})\n`,
  );
}

function printTryOut(stack: LocalStack, endpoint: string, kept: boolean): void {
  const commands = tryOutCommands({
    projectDir: path.join(__dirname, '..'),
    endpoint,
    region: stack.region,
    credentials: LOCAL_CREDENTIALS,
    functionName: consumerOf(stack).functionName,
  });
  process.stdout.write(
    `\nTry it${kept ? ' from another terminal' : ''} (message bodies choose what the demo worker does: lambdas/demo/worker.ts):\n\n` +
      commands.map((command) => `  ${command}\n`).join('') +
      (kept ? "\nThe consumer's log follows. Ctrl-C stops everything and removes what it made.\n\n" : ''),
  );
}

function consumerOf(stack: LocalStack): LocalFunction {
  const consumer = stack.functions.find((fn) => fn.environment[ENV.attemptsTable] !== undefined);
  if (consumer === undefined) throw new Error(`${stack.stackName} has no consumer function`);
  return consumer;
}

function forwardConsumerLogs(pipeline: LocalPipeline): () => void {
  const write = (line: string) => process.stdout.write(`${line}\n`);
  const unsubscribe = [
    pipeline.runner.on('log', (log) => write(consumerLogLine(log))),
    pipeline.runner.on('crash', (death) => write(deathLine('crash', death))),
    pipeline.runner.on('timeout', (death) => write(deathLine('timeout', death))),
  ];
  return () => {
    for (const off of unsubscribe) off();
  };
}

main(process.argv.slice(2)).then(exitOnceWritten, (error: unknown) => {
  process.stderr.write(`local:deploy failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
