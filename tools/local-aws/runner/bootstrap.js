// The inside of one execution environment, forked by execution-environment.ts. Like Lambda's
// Node.js runtime it loads the handler module once (the cold start), then serves invocations one
// at a time: it builds a Lambda Context, awaits the handler and answers over IPC.
//
// Plain JavaScript on purpose: a bundled handler must run under plain node, without a TypeScript
// loader that Lambda would not have either. (A .ts handler is run with `--import tsx`.)
//
// Protocol (parent -> child): { type: 'invoke', id, event, requestId, deadlineMs, invokedFunctionArn }
// Protocol (child -> parent): { type: 'ready' } | { type: 'init-error', error }
//                           | { type: 'result', id, payload: JSON text } | { type: 'error', id, error }
const { pathToFileURL } = require('node:url');

const [file, exportName] = process.argv.slice(2);
const env = process.env;

/** ESM or CommonJS, source or bundle: import() loads them all, as the Lambda runtime does. */
async function loadHandler() {
  const module = await import(pathToFileURL(file).href);
  const handler = module[exportName] ?? module.default?.[exportName];
  if (typeof handler !== 'function') {
    throw new Error(`${file} does not export a function named "${exportName}"`);
  }
  return handler;
}

function createContext(invocation) {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: invocation.invokedFunctionArn,
    memoryLimitInMB: env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: invocation.requestId,
    logGroupName: env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: env.AWS_LAMBDA_LOG_STREAM_NAME,
    getRemainingTimeInMillis: () => Math.max(0, invocation.deadlineMs - Date.now()),
  };
}

function describe(error) {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { name: 'NonError', message: String(error) };
}

function send(message) {
  if (process.connected) process.send(message);
}

async function serve(handler, invocation) {
  try {
    const value = await handler(invocation.event, createContext(invocation));
    // Serialised here so an unserialisable result (a cycle, a BigInt) is a function error, as in
    // Lambda; a result JSON cannot express at all (a function) is sent as no result.
    send({ type: 'result', id: invocation.id, payload: JSON.stringify(value) ?? 'null' });
  } catch (error) {
    send({ type: 'error', id: invocation.id, error: describe(error) });
  }
}

// An orphan must not outlive the runner that forked it.
process.on('disconnect', () => process.exit(0));

loadHandler().then(
  (handler) => {
    process.on('message', (message) => {
      if (message?.type === 'invoke') void serve(handler, message);
    });
    send({ type: 'ready' });
  },
  (error) => {
    // Lambda reports Runtime.ImportModuleError and resets the environment: exit once it is said.
    process.send({ type: 'init-error', error: describe(error) }, () => process.exit(1));
  },
);
