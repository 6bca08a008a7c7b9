/**
 * One execution environment: a forked Node process running bootstrap.js, warm between
 * invocations. It enforces the function timeout with SIGKILL (no code of the handler runs after
 * it, as in Lambda) and reports how each invocation ended; the runner decides what follows.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { extname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import type { HandlerRef } from './types';

export interface EnvironmentSpec {
  readonly id: string;
  /** The node executable the process runs on (the function's runtime: lambda-node.ts). */
  readonly node: string;
  readonly handler: HandlerRef;
  /** The complete process environment (see function-identity.ts). */
  readonly variables: Readonly<Record<string, string>>;
  readonly memoryMiB: number;
  readonly onLog: (stream: 'stdout' | 'stderr', line: string) => void;
}

export interface InvocationRequest {
  /** The event as the runner built it (SQS or Kafka): sent as JSON, as Lambda sends it. */
  readonly event: unknown;
  readonly requestId: string;
  readonly invokedFunctionArn: string;
  readonly timeoutMs: number;
}

export type InvocationOutcome =
  | { readonly kind: 'returned'; readonly response: unknown }
  | { readonly kind: 'function-error'; readonly error: { readonly name: string; readonly message: string } }
  | { readonly kind: 'crash'; readonly exitCode: number | null; readonly signal: string | null }
  | { readonly kind: 'timeout' }
  /** Killed by the runner's stop(): nothing is settled. */
  | { readonly kind: 'stopped' };

/** Lambda gives the init phase (loading the module) 10 seconds. */
const INIT_TIMEOUT_MS = 10_000;
const BOOTSTRAP = join(__dirname, 'bootstrap.js');
/** Absolute, so the child resolves tsx wherever the handler lives. */
const TSX_LOADER = pathToFileURL(require.resolve('tsx')).href;

type ChildMessage =
  | { type: 'ready' }
  | { type: 'init-error'; error: { name: string; message: string } }
  | { type: 'result'; id: string; payload: string }
  | { type: 'error'; id: string; error: { name: string; message: string } };

export class ExecutionEnvironment {
  private pending?: { readonly id: string; readonly settle: (outcome: InvocationOutcome) => void };
  private ending?: 'timeout' | 'stopped';
  private readonly exited: Promise<void>;

  private constructor(
    readonly id: string,
    private readonly child: ChildProcess,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (exitCode, signal) => {
        this.settle(this.ending ? { kind: this.ending } : { kind: 'crash', exitCode, signal });
        resolve();
      });
    });
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'result' && message.id === this.pending?.id) {
        this.settle({ kind: 'returned', response: JSON.parse(message.payload) });
      } else if (message.type === 'error' && message.id === this.pending?.id) {
        this.settle({
          kind: 'function-error',
          error: { name: message.error.name, message: message.error.message },
        });
      }
    });
    // A send racing the child's death fails here; the exit handler reports the death.
    child.on('error', () => undefined);
  }

  /** Forks the process and waits for the handler module to load (a cold start). */
  static async start(spec: EnvironmentSpec): Promise<ExecutionEnvironment> {
    const child = fork(BOOTSTRAP, [spec.handler.file, spec.handler.exportName], {
      execPath: spec.node,
      env: spec.variables,
      execArgv: [
        ...(extname(spec.handler.file) === '.ts' ? ['--import', TSX_LOADER] : []),
        `--max-old-space-size=${spec.memoryMiB}`,
      ],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    for (const stream of ['stdout', 'stderr'] as const) {
      const source = child[stream];
      if (source) createInterface({ input: source }).on('line', (line) => spec.onLog(stream, line));
    }
    const environment = new ExecutionEnvironment(spec.id, child);
    await environment.waitUntilReady();
    return environment;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  get exitStatus(): { readonly exitCode: number | null; readonly signal: string | null } {
    return { exitCode: this.child.exitCode, signal: this.child.signalCode };
  }

  invoke(request: InvocationRequest): Promise<InvocationOutcome> {
    if (this.pending) throw new Error(`environment ${this.id} is already serving an invocation`);
    if (!this.alive) return Promise.resolve({ kind: 'crash', ...this.exitStatus });
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.killWith('timeout'), request.timeoutMs);
      this.pending = {
        id: request.requestId,
        settle: (outcome) => {
          clearTimeout(timer);
          resolve(outcome);
        },
      };
      this.child.send({
        type: 'invoke',
        id: request.requestId,
        event: request.event,
        requestId: request.requestId,
        deadlineMs: Date.now() + request.timeoutMs,
        invokedFunctionArn: request.invokedFunctionArn,
      });
    });
  }

  /** SIGKILLs the process (if still alive) and waits until it is gone. */
  async kill(): Promise<void> {
    this.killWith('stopped');
    await this.exited;
  }

  private killWith(ending: 'timeout' | 'stopped'): void {
    if (!this.alive) return;
    this.ending ??= ending;
    this.child.kill('SIGKILL');
  }

  private settle(outcome: InvocationOutcome): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.settle(outcome);
  }

  private waitUntilReady(): Promise<void> {
    return new Promise((resolve, reject) => {
      const fail = (reason: string) => {
        clearTimeout(timer);
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
        this.killWith('stopped');
        reject(new Error(`execution environment ${this.id} failed to start: ${reason}`));
      };
      const onMessage = (message: ChildMessage) => {
        if (message.type === 'ready') {
          clearTimeout(timer);
          this.child.off('message', onMessage);
          this.child.off('exit', onExit);
          resolve();
        } else if (message.type === 'init-error') {
          fail(`${message.error.name}: ${message.error.message}`);
        }
      };
      const onExit = (code: number | null, signal: string | null) =>
        fail(`exited (code ${code}, signal ${signal})`);
      const timer = setTimeout(() => fail(`no answer within ${INIT_TIMEOUT_MS} ms`), INIT_TIMEOUT_MS);
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
    });
  }
}
