// Times one handler bundle in this fresh process: warm-up batches first (the JIT, the SDK's
// lazy parts, the first connection), then the CPU time (user + system) of the measured
// batches, per message, and the bytes its log wrote to stdout in them (what CloudWatch Logs
// ingests and bills). Every batch must come back without failures, or the figure would be of
// another path. Reports to the bench over IPC: the handler's stdout is its log.
const [bundle, batchesText, batchSizeText, warmupText] = process.argv.slice(2);
const batches = Number(batchesText);
const batchSize = Number(batchSizeText);
const warmup = Number(warmupText);

const context = {
  functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
  awsRequestId: 'bench',
  getRemainingTimeInMillis: () => 30_000,
};

// Counts what any writer (a logger's console, an EMF line) puts on stdout: installed before the
// handler is loaded, so that every stream reference it keeps writes through here.
let stdoutBytes = 0;
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  stdoutBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
  return write(chunk, ...rest);
};

let sent = 0;
function batch() {
  const Records = Array.from({ length: batchSize }, () => {
    sent += 1;
    return {
      messageId: `m-${process.pid}-${sent}`,
      receiptHandle: `rh-${sent}`,
      body: JSON.stringify({ orderId: `o-${sent}`, amount: 12.5 }),
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()) },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:source',
      awsRegion: 'us-east-1',
    };
  });
  return { Records };
}

async function run(handler, count) {
  for (let index = 0; index < count; index++) {
    const response = await handler(batch(), context);
    if (response.batchItemFailures.length > 0) {
      throw new Error(`${bundle}: ${response.batchItemFailures.length} record(s) failed`);
    }
  }
}

async function main() {
  // As Lambda loads a handler: import(), whether the bundle is CommonJS or ES modules.
  const { handler } = await import(require('node:url').pathToFileURL(bundle).href);
  await run(handler, warmup);
  stdoutBytes = 0;
  const before = process.cpuUsage();
  await run(handler, batches);
  const used = process.cpuUsage(before);
  const messages = batches * batchSize;
  process.send(
    {
      cpuMicrosPerMessage: (used.user + used.system) / messages,
      stdoutBytesPerMessage: stdoutBytes / messages,
    },
    () => process.exit(0),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
