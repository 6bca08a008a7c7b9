/**
 * `npm run local:deploy [-- --keep]`: synthesizes the demo stack, deploys it into a fresh
 * embedded local AWS (moto on 127.0.0.1), starts the event-source runner, and prints what it
 * created. With --keep it stays up until Ctrl-C, so you can send messages and try the operator
 * CLI against it; without, it stops everything it started.
 */
import { ENV } from '../contract/env';
import { startLocalPipeline } from './local-pipeline';

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help')) {
    process.stdout.write('usage: npm run local:deploy [-- --keep]\n');
    return 0;
  }
  const pipeline = await startLocalPipeline();
  try {
    const rows = Object.entries(pipeline.stack.resources).map(([logicalId, resource]) => [
      resource.type,
      logicalId,
      resource.notInstantiated ? `(not instantiated: ${resource.notInstantiated})` : resource.physicalId,
    ]);
    const width = (column: number) => Math.max(...rows.map((row) => row[column].length));
    for (const row of rows.sort((a, b) => a[0].localeCompare(b[0]))) {
      process.stdout.write(`${row[0].padEnd(width(0))}  ${row[1].padEnd(width(1))}  ${row[2]}\n`);
    }
    const cli = `npm run pq -- status --function ${pipeline.consumer.functionName} --endpoint ${pipeline.aws.endpoint}`;
    process.stdout.write(
      `\nLocal AWS:      ${pipeline.aws.endpoint} (region ${pipeline.aws.region})\n` +
        `Source queue:   ${pipeline.env(ENV.sourceQueueUrl)}\n` +
        `Consumer:       ${pipeline.consumer.functionName} (run by the local event-source runner)\n` +
        `Operator CLI:   ${cli}\n`,
    );
    if (!argv.includes('--keep')) return 0;
    process.stdout.write('\nRunning until Ctrl-C ...\n');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    return 0;
  } finally {
    await pipeline.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`local:deploy failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
