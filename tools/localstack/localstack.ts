/**
 * The embedded LocalStack (issue 20): localstack-core on this host, no Docker, from
 * .venv-localstack (ensure-localstack.mjs installs it) through localstack-launcher.py, on a free
 * 127.0.0.1 port, with our moto server (tools/local-aws/moto.ts) as its DynamoDB. Ready when its
 * health endpoint answers; always stopped by whoever started it, with a deadline.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, LOCAL_REGION, type LocalAws, startLocalAws } from '../local-aws/moto';

/** A LocalStack to deploy into: the embedded one, or a user's own (`--endpoint-url`). */
export interface LocalStackEndpoint {
  /** LocalStack's gateway, for every service. */
  readonly endpoint: string;
  readonly region: string;
}

export interface EmbeddedLocalStack extends LocalStackEndpoint {
  /** http://127.0.0.1:PORT - LocalStack's gateway, for every service (DynamoDB too). */
  readonly endpoint: string;
  readonly port: number;
  /** The process group LocalStack runs in (its process id). */
  readonly pid: number;
  /** The moto server LocalStack's DynamoDB forwards to. */
  readonly dynamodb: LocalAws;
  stop(): Promise<void>;
}

/** LocalStack's default account: its DynamoDB items live under it in moto. */
export const LOCALSTACK_ACCOUNT = '000000000000';
/**
 * A stop that takes longer is ended with SIGKILL. Idle, LocalStack ends on SIGTERM in about 3 s;
 * once its SQS has served a request its shutdown waits past 15 s. Nothing is lost: its state
 * lives in a directory removed at the stop, and DynamoDB's in the moto server stopped with it.
 */
const STOP_DEADLINE_MS = 5_000;

const python = join(__dirname, '..', '..', '.venv-localstack', 'bin', 'python');
const launcher = join(__dirname, 'localstack-launcher.py');

export async function startLocalStack(
  options: { readonly readyTimeoutMs?: number } = {},
): Promise<EmbeddedLocalStack> {
  if (!existsSync(python)) {
    throw new Error(
      `LocalStack's python not found at ${python}: run "node tools/localstack/ensure-localstack.mjs" first`,
    );
  }
  const dynamodb = await startLocalAws();
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const filesystem = mkdtempSync(join(tmpdir(), 'pq-localstack-'));
  // Its own process group, stopped whole; the launcher also exits when its stdin closes.
  const child = spawn(python, [launcher], {
    cwd: filesystem,
    env: launcherEnvironment(port, dynamodb.port, filesystem),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const output = keepTail(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    await stopGroup(child, exited);
    await dynamodb.stop();
    rmSync(filesystem, { recursive: true, force: true });
  };
  const readyTimeoutMs = options.readyTimeoutMs ?? 90_000;
  try {
    await waitUntilReady(endpoint, child, readyTimeoutMs);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\nLocalStack's output:\n${output().slice(-3000)}`);
  }
  return { endpoint, port, region: LOCAL_REGION, pid: child.pid ?? -1, dynamodb, stop };
}

function launcherEnvironment(port: number, dynamodbPort: number, filesystem: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GATEWAY_LISTEN: `127.0.0.1:${port}`,
    // What LocalStack names itself in URLs it returns (queue URLs): the address it listens on.
    LOCALSTACK_HOST: `127.0.0.1:${port}`,
    SQS_ENDPOINT_STRATEGY: 'path',
    // Its DNS server would bind 0.0.0.0:53 (and try sudo): off.
    DNS_ADDRESS: '0',
    OVERRIDE_IN_DOCKER: '0',
    FILESYSTEM_ROOT: filesystem,
    SKIP_SSL_CERT_DOWNLOAD: '1',
    DISABLE_EVENTS: '1',
    DYNAMODB_LOCAL_PORT: String(dynamodbPort),
    // Streams read from the DynamoDB backend, not a Kinesis emulator installed at run time.
    PROVIDER_OVERRIDE_DYNAMODBSTREAMS: 'v2',
    AWS_DEFAULT_REGION: LOCAL_REGION,
  };
}

function keepTail(child: ChildProcess): () => string {
  const chunks: string[] = [];
  const keep = (chunk: Buffer) => {
    chunks.push(chunk.toString());
    if (chunks.length > 200) chunks.shift();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => chunks.join('');
}

/** A user's LocalStack that cannot take the stack: not answering, not a LocalStack, services off. */
export class LocalStackUnavailableError extends Error {
  name = 'LocalStackUnavailableError';
}

/**
 * A user's own LocalStack at `endpoint` (issue 20, item 3), checked before anything is deployed
 * into it: its health endpoint answers and runs the services the stack needs. Says what is wrong
 * otherwise.
 */
export async function checkLocalStack(endpoint: string, region: string): Promise<LocalStackEndpoint> {
  const health = await fetch(new URL('/_localstack/health', endpoint)).then(
    async (response) =>
      response.ok
        ? ((await response.json().catch(() => undefined)) as
            | { services?: Record<string, string> }
            | undefined)
        : undefined,
    (error: unknown) => {
      const cause = (error as Error).cause as Error | undefined;
      throw new LocalStackUnavailableError(
        `no LocalStack answers at ${endpoint}: ${cause?.message ?? String(error)}`,
      );
    },
  );
  if (health?.services === undefined) {
    throw new LocalStackUnavailableError(
      `${endpoint} is not a LocalStack: ${endpoint}/_localstack/health says no services`,
    );
  }
  const missing = STACK_SERVICES.filter(
    (service) => !['available', 'running'].includes(health.services?.[service] ?? ''),
  );
  if (missing.length > 0) {
    throw new LocalStackUnavailableError(
      `the LocalStack at ${endpoint} does not run ${missing.join(', ')}, which the stack needs`,
    );
  }
  return { endpoint, region };
}

/** The services the demo stack's resources and `cdk bootstrap` live in. */
const STACK_SERVICES = [
  'cloudformation',
  'cloudwatch',
  'dynamodb',
  'iam',
  'kms',
  'lambda',
  'logs',
  's3',
  'sns',
  'sqs',
  'ssm',
  'stepfunctions',
  'sts',
];

async function waitUntilReady(endpoint: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`LocalStack exited with code ${child.exitCode} before it was ready`);
    try {
      const response = await fetch(`${endpoint}/_localstack/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(
    `LocalStack did not answer at ${endpoint} within ${timeoutMs / 1000} s ` +
      '(about 5-15 s on a quiet 2-core machine: this one may be too slow or too loaded)',
  );
}

async function stopGroup(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const group = -child.pid;
  process.kill(group, 'SIGTERM');
  const timer = setTimeout(() => {
    try {
      process.kill(group, 'SIGKILL');
    } catch {
      // already gone
    }
  }, STOP_DEADLINE_MS);
  await exited;
  clearTimeout(timer);
  try {
    // Anything it started that outlived it.
    process.kill(group, 'SIGKILL');
  } catch {
    // the group is empty
  }
}
