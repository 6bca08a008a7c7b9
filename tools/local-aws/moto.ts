/**
 * The embedded local AWS: moto's server on a free 127.0.0.1 port, started from the project's
 * virtualenv (ensure-venv.mjs installs it) through moto-launcher.py, which makes
 * writes to DynamoDB atomic as they are on AWS; ready when it answers, with Step Functions
 * execution switched on, and always stopped by whoever started it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export interface LocalAws {
  /** http://127.0.0.1:PORT - pass it as the endpoint of every SDK client. */
  readonly endpoint: string;
  readonly port: number;
  readonly region: string;
  /** Wipes every resource (and re-enables Step Functions execution, which a reset clears). */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export const LOCAL_REGION = 'us-east-1';
/** moto accepts any credentials; fixed ones keep the SDK from looking for a profile. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' } as const;

const python = join(__dirname, '..', '..', '.venv', 'bin', 'python');
const launcher = join(__dirname, 'moto-launcher.py');

export async function startLocalAws(options: { readonly readyTimeoutMs?: number } = {}): Promise<LocalAws> {
  if (!existsSync(python)) {
    throw new Error(
      `the local AWS's python not found at ${python}: run "node tools/local-aws/ensure-venv.mjs" first`,
    );
  }
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  // moto's Step Functions engine calls other services at localhost:$MOTO_PORT. The launcher
  // exits when its stdin closes, which only this process's end does (also when it is killed).
  const child = spawn(python, [launcher, String(port)], {
    env: { ...process.env, MOTO_PORT: String(port), AWS_DEFAULT_REGION: LOCAL_REGION },
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr.push(chunk.toString());
    if (stderr.length > 50) stderr.shift();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitUntilReady(endpoint, child, options.readyTimeoutMs ?? 20_000);
    await enableStepFunctionsExecution(endpoint);
  } catch (error) {
    await stopChild(child, exited);
    throw new Error(`${(error as Error).message}\nmoto stderr:\n${stderr.join('').slice(-2000)}`);
  }
  return {
    endpoint,
    port,
    region: LOCAL_REGION,
    async reset() {
      await post(endpoint, '/moto-api/reset', undefined);
      await enableStepFunctionsExecution(endpoint);
    },
    stop: () => stopChild(child, exited),
  };
}

/** Step Functions only executes definitions after this call, and again after every reset. */
async function enableStepFunctionsExecution(endpoint: string): Promise<void> {
  await post(endpoint, '/moto-api/config', { stepfunctions: { execute_state_machine: true } });
}

async function post(endpoint: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${endpoint}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`moto ${path} answered HTTP ${response.status}`);
}

async function waitUntilReady(endpoint: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`moto's server exited with code ${child.exitCode} before it was ready`);
    try {
      const response = await fetch(`${endpoint}/moto-api/data.json`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`moto's server did not answer at ${endpoint} within ${timeoutMs} ms`);
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await exited;
  clearTimeout(timer);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
