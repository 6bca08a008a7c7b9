/**
 * `npm run local:deploy [-- --keep] [--target moto|localstack]`: synthesizes the demo stack, deploys it into a fresh
 * embedded local AWS (moto on 127.0.0.1), starts the event-source runner, and prints what it
 * created. With --keep it stays up until Ctrl-C, printing commands to try it from another
 * terminal (they run exactly as printed) and the consumer's log lines; without, it stops
 * everything it started.
 *
 * Whenever Ctrl-C comes, during the start too, everything started is stopped and the synthesized
 * cloud assembly removed: the start ends at its next step (or fails at once, as it does when the
 * terminal's Ctrl-C has already ended moto or esbuild), then everything is stopped. A second
 * Ctrl-C does not cut the cleanup short; it takes a few seconds at most. package.json runs this
 * file with `node --import tsx`, not the tsx command: tsx's own process SIGKILLs a child that
 * does not answer a relayed signal within 60 ms, and synthesis blocks this one for seconds.
 */
import * as path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ENV } from '../contract/env';
import { LOCAL_CREDENTIALS } from '../tools/local-aws/moto';
import { LOCALSTACK_ACCOUNT } from '../tools/localstack/localstack';
import { DemoAssembly } from './demo-assembly';
import { LOCAL_TARGETS, type LocalPipeline, type LocalTarget, startLocalPipeline } from './local-pipeline';
import { consumerLogLine, deathLine, tryOutCommands } from './try-out';

const USAGE =
  'usage: npm run local:deploy [-- --keep] [--target moto|localstack]\n' +
  '  --target moto        the embedded local AWS, the consumer run by the local event-source runner (default)\n' +
  '  --target localstack  the embedded LocalStack: deployed by its own CloudFormation, the consumer run by\n' +
  '                       the same runner\n';

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const target = targetOf(argv);
  if (target === undefined) return 2;
  const interrupt = abortOnSignals();
  const assembly = new DemoAssembly();
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
      printResources(pipeline);
      if (!argv.includes('--keep')) return 0;
      printTryOut(pipeline);
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

/** The --target value, moto when absent; undefined (said on stderr) for anything else. */
function targetOf(argv: readonly string[]): LocalTarget | undefined {
  const unknown = argv.filter(
    (arg, index) => !['--keep', '--target'].includes(arg) && argv[index - 1] !== '--target',
  );
  const at = argv.indexOf('--target');
  const value = at === -1 ? 'moto' : argv[at + 1];
  const target = LOCAL_TARGETS.find((candidate) => candidate === value);
  if (unknown.length === 0 && target !== undefined) return target;
  const problem =
    unknown.length > 0
      ? `unknown argument ${unknown[0]}`
      : `--target must be moto or localstack, not ${value ?? 'nothing'}`;
  process.stderr.write(`local:deploy: ${problem}\n${USAGE}`);
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

function printResources(pipeline: LocalPipeline): void {
  const rows = Object.entries(pipeline.stack.resources).map(([logicalId, resource]) => [
    resource.type,
    logicalId,
    resource.notInstantiated ? `(not instantiated: ${resource.notInstantiated})` : resource.physicalId,
  ]);
  const width = (column: number) => Math.max(...rows.map((row) => row[column].length));
  for (const row of rows.sort((a, b) => a[0].localeCompare(b[0]))) {
    process.stdout.write(`${row[0].padEnd(width(0))}  ${row[1].padEnd(width(1))}  ${row[2]}\n`);
  }
  const where = pipeline.stack.accountId === LOCALSTACK_ACCOUNT ? 'LocalStack:    ' : 'Local AWS:     ';
  process.stdout.write(
    `\n${where} ${pipeline.aws.endpoint} (region ${pipeline.aws.region})\n` +
      `Source queue:   ${pipeline.env(ENV.sourceQueueUrl)}\n` +
      `Consumer:       ${pipeline.consumer.functionName} (run by the local event-source runner)\n`,
  );
}

function printTryOut(pipeline: LocalPipeline): void {
  const commands = tryOutCommands({
    projectDir: path.join(__dirname, '..'),
    endpoint: pipeline.aws.endpoint,
    region: pipeline.aws.region,
    credentials: LOCAL_CREDENTIALS,
    functionName: pipeline.consumer.functionName,
  });
  process.stdout.write(
    '\nTry it from another terminal (message bodies choose what the demo worker does: lambdas/demo/worker.ts):\n\n' +
      commands.map((command) => `  ${command}\n`).join('') +
      "\nThe consumer's log follows. Ctrl-C stops everything and removes what it made.\n\n",
  );
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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`local:deploy failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
