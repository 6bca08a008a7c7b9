/**
 * `npm run -s local:send -- --function NAME [--region R] [--endpoint-url URL] [--group ID] BODY`:
 * sends one message to a consumer's source queue, found as pq finds it (the queue URL in the
 * consumer function's environment), so a try-out needs no AWS CLI. Against the embedded local AWS,
 * LocalStack or AWS alike; region and endpoint fall back to AWS_REGION (AWS_DEFAULT_REGION) and
 * AWS_ENDPOINT_URL, and credentials come from the SDK's usual chain.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { ENV } from '../contract/env';
import { createClients } from '../lambdas/adapters/clients';
import { functionEnvironment } from '../lambdas/adapters/deployment-lookup';

const USAGE = `usage: npm run -s local:send -- --function NAME [--region REGION] [--endpoint-url URL] [--group ID] BODY

Sends BODY (text, exactly as given) to the source queue of the consumer function NAME.
  --function NAME     the consumer Lambda function
  --region REGION     its region (or AWS_REGION / AWS_DEFAULT_REGION)
  --endpoint-url URL  the local AWS or LocalStack (or AWS_ENDPOINT_URL); --endpoint is the same
  --group ID          the message group, for a FIFO queue
`;

class UsageError extends Error {}

async function main(argv: readonly string[]): Promise<number> {
  const { values, positionals } = readArgs(argv);
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const functionName = values.function;
  if (!functionName) throw new UsageError('which consumer? pass --function NAME');
  if (positionals.length !== 1) throw new UsageError(`give one BODY (given ${positionals.length})`);
  const region = values.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  const endpoint = values['endpoint-url'] ?? values.endpoint ?? process.env.AWS_ENDPOINT_URL;
  const clients = createClients({ ...(region ? { region } : {}), ...(endpoint ? { endpoint } : {}) });
  const queueUrl = (await functionEnvironment(clients.lambda, functionName))?.[ENV.sourceQueueUrl];
  if (queueUrl === undefined) {
    throw new Error(`${functionName}: no such function, or no ${ENV.sourceQueueUrl} in its environment`);
  }
  const fifo = queueUrl.endsWith('.fifo');
  if (fifo !== (values.group !== undefined)) {
    throw new UsageError(fifo ? `${queueUrl} is FIFO: pass --group ID` : '--group is for FIFO queues only');
  }
  const sent = await clients.sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: positionals[0],
      ...(fifo ? { MessageGroupId: values.group, MessageDeduplicationId: randomUUID() } : {}),
    }),
  );
  process.stdout.write(`sent ${sent.MessageId} to ${queueUrl}\n`);
  return 0;
}

function readArgs(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      options: {
        function: { type: 'string' },
        region: { type: 'string' },
        'endpoint-url': { type: 'string' },
        endpoint: { type: 'string' },
        group: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: Error) => {
    const usage = error instanceof UsageError;
    process.stderr.write(`local:send: ${error.message}\n${usage ? `\n${USAGE}` : ''}`);
    process.exitCode = usage ? 2 : 1;
  },
);
