/**
 * The execution environments of a runner, one per slot: started warm, replaced after a crash or a
 * timeout (Lambda resets the environment then, so the next invocation is a cold start), and all
 * killed on stop, including any still starting.
 */
import { ExecutionEnvironment } from './execution-environment';
import { type FunctionIdentity, functionVariables, newLogStreamName } from './function-identity';
import { currentRuntime, nodeFor } from './lambda-node';
import type { EnvironmentEvents, FunctionOptions } from './types';

/** How the pool reports its environments: the runner passes the events on to its own listeners. */
export type Emit = <E extends keyof EnvironmentEvents>(event: E, payload: EnvironmentEvents[E]) => void;

export interface PoolSettings {
  readonly identity: FunctionIdentity;
  /** The node executable of the function's runtime (lambda-node.ts). */
  readonly node: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly forwardLogs: boolean;
  readonly signal: AbortSignal;
  readonly emit: Emit;
  /** Called when an environment is found dead between invocations (it counts as a crash). */
  readonly onIdleDeath: () => void;
}

/**
 * A runner's function as Lambda would name it, and the pool of its execution environments: what
 * the SQS and the Kafka runners start alike from their function options.
 */
export function functionPool(
  options: FunctionOptions,
  where: Pick<FunctionIdentity, 'region' | 'accountId' | 'endpoint'>,
  runner: Pick<PoolSettings, 'signal' | 'emit' | 'onIdleDeath'>,
): { readonly identity: FunctionIdentity; readonly pool: EnvironmentPool } {
  const identity: FunctionIdentity = {
    functionName: options.functionName,
    ...where,
    memoryMiB: options.memoryMiB ?? 128,
    runtime: options.runtime ?? currentRuntime(),
    handler: options.handler,
  };
  const pool = new EnvironmentPool({
    identity,
    node: nodeFor(identity.runtime),
    environment: options.environment,
    forwardLogs: options.forwardLogs ?? true,
    ...runner,
  });
  return { identity, pool };
}

export class EnvironmentPool {
  private readonly bySlot = new Map<number, ExecutionEnvironment>();
  private readonly starting = new Set<Promise<unknown>>();
  private started = 0;
  /** Numbers environment ids, failed starts included, so no id is reused. */
  private attempts = 0;

  constructor(private readonly settings: PoolSettings) {}

  get environmentsStarted(): number {
    return this.started;
  }

  live(): { envId: string; pid: number; slot: number }[] {
    return [...this.bySlot].flatMap(([slot, environment]) =>
      environment.alive ? [{ envId: environment.id, pid: environment.pid, slot }] : [],
    );
  }

  /** The slot's warm environment; a fresh one if it died between invocations or never started. */
  async ensure(slot: number): Promise<ExecutionEnvironment | undefined> {
    const current = this.bySlot.get(slot);
    if (current?.alive) return current;
    if (current) {
      // Died while idle (a stray rejected promise, say); Lambda would notice at the next invoke.
      this.settings.onIdleDeath();
      this.settings.emit('crash', {
        envId: current.id,
        pid: current.pid,
        messageIds: [],
        ...current.exitStatus,
      });
      return this.replace(slot, 'crash');
    }
    return this.warm(slot).catch((error: Error) => this.warn(error));
  }

  async replace(slot: number, reason: 'crash' | 'timeout'): Promise<ExecutionEnvironment | undefined> {
    const old = this.bySlot.get(slot);
    this.bySlot.delete(slot);
    const fresh = await this.warm(slot).catch((error: Error) => this.warn(error));
    if (old && fresh) {
      this.settings.emit('env-replaced', {
        slot,
        oldEnvId: old.id,
        newEnvId: fresh.id,
        pid: fresh.pid,
        reason,
      });
    }
    return fresh;
  }

  /** Kills every environment, waiting first for those still starting. Call after aborting the signal. */
  async killAll(): Promise<void> {
    await Promise.allSettled(this.starting);
    await Promise.all([...this.bySlot.values()].map((environment) => environment.kill()));
  }

  /**
   * A cold start for the slot: a new process with its own log stream. Rejects when the handler
   * cannot be loaded; undefined when the runner stopped meanwhile.
   */
  async warm(slot: number): Promise<ExecutionEnvironment | undefined> {
    if (this.settings.signal.aborted) return undefined;
    this.attempts += 1;
    const id = `env-${this.attempts}`;
    const starting = ExecutionEnvironment.start({
      id,
      node: this.settings.node,
      handler: this.settings.identity.handler,
      variables: functionVariables(
        this.settings.identity,
        newLogStreamName(new Date()),
        this.settings.environment,
      ),
      memoryMiB: this.settings.identity.memoryMiB,
      onLog: (stream, line) => this.log(id, stream, line),
    });
    this.starting.add(starting);
    const environment = await starting.finally(() => this.starting.delete(starting));
    if (this.settings.signal.aborted) {
      await environment.kill();
      return undefined;
    }
    this.bySlot.set(slot, environment);
    this.started += 1;
    this.settings.emit('env-start', { envId: id, pid: environment.pid, slot });
    return environment;
  }

  private warn(error: Error): undefined {
    if (!this.settings.signal.aborted) this.settings.emit('warning', { message: error.message });
    return undefined;
  }

  private log(envId: string, stream: 'stdout' | 'stderr', line: string): void {
    if (this.settings.forwardLogs && !isEmbeddedMetrics(line)) {
      process.stderr.write(`[${this.settings.identity.functionName} ${envId}] ${line}\n`);
    }
    this.settings.emit('log', { envId, stream, line });
  }
}

/**
 * A line in CloudWatch's embedded metric format: metrics for CloudWatch to extract, which locally
 * nothing reads, so it is not printed among the function's logs (listeners still get it).
 */
function isEmbeddedMetrics(line: string): boolean {
  if (!line.includes('"_aws"')) return false;
  try {
    return Array.isArray(
      (JSON.parse(line) as { _aws?: { CloudWatchMetrics?: unknown } })._aws?.CloudWatchMetrics,
    );
  } catch {
    return false;
  }
}
