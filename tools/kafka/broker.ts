/**
 * The embedded Apache Kafka broker, test infrastructure: one KRaft node, broker and controller in
 * one JVM, from the classpath tools/kafka/ensure-kafka.mjs installs (.kafka/lib), listening on
 * two free 127.0.0.1 ports (PLAINTEXT), its storage formatted in a fresh temporary folder; with
 * `saslListener`, a third port that takes SASL/SCRAM-SHA-512 and SASL/PLAIN over TLS only. Ready
 * when the client library's metadata request is answered; always stopped by whoever started it,
 * and gone with the process that started it however that process ends (kafka-launcher.mjs).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Admin, GenericError, MultipleErrors } from '@platformatic/kafka';
import { freePort } from '../local-aws/moto';
import { javaCommand, KAFKA_LIB, kafkaInstalled } from './ensure-kafka.mjs';

export interface KafkaBroker {
  /** `127.0.0.1:PORT`: the one bootstrap server to give every client. */
  readonly bootstrap: string;
  readonly port: number;
  /** The controller listener's port (KRaft), also on 127.0.0.1; clients do not use it. */
  readonly controllerPort: number;
  /** With the `saslListener` option: the listener that authenticates its users, and its CA. */
  readonly saslListener?: SaslListener;
  /** The broker JVM's pid. */
  readonly pid: number;
  /**
   * `NAME=VALUE` in the environment of the launcher and the JVM: what a test looks for in
   * /proc/PID/environ to show that nothing of this broker is left (test/support/processes.ts).
   */
  readonly processMark: string;
  /** The broker's log (Log4j 2, INFO); removed by stop() unless it is in `logDir`. */
  readonly logFile: string;
  /** Stops the broker (SIGTERM, SIGKILL after the deadline) and removes its temporary folder. Idempotent. */
  stop(): Promise<void>;
}

export interface StartKafkaOptions {
  /** The partitions of a topic created without a count (num.partitions); Kafka's default, 1, when unset. */
  readonly partitionsDefault?: number;
  /** A folder to keep the broker's log in after stop(); by default it lives and goes with the temporary folder. */
  readonly logDir?: string;
  /** Whether the broker creates a topic on a producer's or consumer's first use; default false. */
  readonly autoCreateTopics?: boolean;
  /** How long the broker may take to answer a metadata request; default 90 s (a loaded machine is slow). */
  readonly readyTimeoutMs?: number;
  /** How long stop() waits after SIGTERM before SIGKILL; default 10 s. */
  readonly stopTimeoutMs?: number;
  /** The JVM's maximum heap; default 512 MB. */
  readonly heapMb?: number;
  /**
   * A SASL_SSL listener besides the PLAINTEXT one, as a cluster a Lambda mapping authenticates
   * to: these users by SCRAM-SHA-512 (their credentials written at format time, as KRaft takes
   * them) or PLAIN, over TLS with a self-signed certificate for 127.0.0.1. Names and passwords of
   * letters, digits, '-' and '_' (they go into server.properties and the format's arguments).
   */
  readonly saslListener?: { readonly users: readonly KafkaUser[] };
}

export interface KafkaUser {
  readonly name: string;
  readonly password: string;
}

export interface SaslListener {
  /** `127.0.0.1:PORT` of the SASL_SSL listener. */
  readonly bootstrap: string;
  /** Its certificate (PEM, self-signed, made by keytool): what a client trusts to reach it. */
  readonly caFile: string;
}

const LAUNCHER = join(__dirname, 'kafka-launcher.mjs');
/** The variable of `processMark`. */
export const KAFKA_PROCESS_MARK_VARIABLE = 'PQ_KAFKA_BROKER';
/** Ports are picked free, then bound by the JVM: another process may take one meanwhile. */
const START_ATTEMPTS = 3;
const LOG_TAIL_CHARS = 4_000;
/** The keystore's password: a test broker's throwaway key, in its temporary folder. */
const KEYSTORE_PASSWORD = 'pq-test-broker';
const USER_TEXT = /^[A-Za-z0-9_-]+$/;

export async function startKafka(options: StartKafkaOptions = {}): Promise<KafkaBroker> {
  const unsafe = (options.saslListener?.users ?? []).filter(
    (user) => !USER_TEXT.test(user.name) || !USER_TEXT.test(user.password),
  );
  if (unsafe.length > 0) {
    throw new Error(
      `saslListener users take names and passwords of letters, digits, '-' and '_' (given ${unsafe.map((user) => user.name).join(', ')})`,
    );
  }
  if (!clientSupportsThisNode()) {
    throw new Error(
      `the Kafka client (@platformatic/kafka) needs Node.js >= 22.22 or >= 24.6, and this is ${process.version}: ` +
        "run on the project's Node.js (npm test does; or put .venv/node/bin first on PATH)",
    );
  }
  if (!kafkaInstalled()) {
    throw new Error(
      `the embedded Kafka broker is not installed in ${KAFKA_LIB} (or its pin changed): run "node tools/kafka/ensure-kafka.mjs" first`,
    );
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt === START_ATTEMPTS) throw error;
    }
  }
}

class PortTaken extends Error {}

/** @platformatic/kafka's engines: its readiness request below fails on an older Node.js. */
function clientSupportsThisNode(): boolean {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 24 || (major === 24 && minor >= 6) || major === 23 || (major === 22 && minor >= 22);
}

async function startOnce(options: StartKafkaOptions): Promise<KafkaBroker> {
  const dir = mkdtempSync(join(tmpdir(), 'pq-kafka-'));
  const logDir = options.logDir ?? dir;
  mkdirSync(logDir, { recursive: true });
  const [port = 0, controllerPort = 0, saslPort = 0] = await freePorts(options.saslListener ? 3 : 2);
  const logFile = join(logDir, options.logDir ? `kafka-${port}.log` : 'server.log');
  const jvmOutput = join(logDir, options.logDir ? `kafka-${port}.jvm.out` : 'jvm.out');
  const processMark = `${KAFKA_PROCESS_MARK_VARIABLE}=${basename(dir)}`;
  const tail = () => logTail(logFile, jvmOutput);
  const properties = join(dir, 'server.properties');
  const sasl = options.saslListener && { port: saslPort, users: options.saslListener.users };
  writeFileSync(properties, serverProperties({ dir, port, controllerPort, options, sasl }));
  writeFileSync(join(dir, 'log4j2.properties'), log4jProperties(logFile));
  const jvmArgs = [
    `-Xmx${options.heapMb ?? 512}m`,
    '-Xms64m',
    // A test broker: quick to start on two shared cores, no GC threads to spare, no hsperfdata file.
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-XX:-UsePerfData',
    '-XX:+ExitOnOutOfMemoryError',
    '-Djava.awt.headless=true',
    `-Dlog4j2.configurationFile=${join(dir, 'log4j2.properties')}`,
    `-Dkafka.logs.dir=${logDir}`,
    '-cp',
    join(KAFKA_LIB, '*'),
  ];
  const env = { ...process.env, [KAFKA_PROCESS_MARK_VARIABLE]: basename(dir) };

  try {
    if (sasl) await selfSignedKeystore(dir);
    await format(jvmArgs, properties, env, sasl?.users ?? []);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  const graceMs = options.stopTimeoutMs ?? 10_000;
  // The launcher stops the JVM when its stdin closes: only this process's end closes it.
  const launcher = spawn(
    process.execPath,
    [LAUNCHER, jvmOutput, dir, String(graceMs), '--', javaCommand(), ...jvmArgs, 'kafka.Kafka', properties],
    { env, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const launcherErrors: string[] = [];
  launcher.stderr?.on('data', (chunk: Buffer) => launcherErrors.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => launcher.once('exit', () => resolve()));
  let pid = 0;
  let halting: Promise<void> | undefined;
  const halt = () => {
    halting ??= stopBroker({ launcher, exited, pid: () => pid, graceMs });
    return halting;
  };
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= halt().finally(() => rmSync(dir, { recursive: true, force: true }));
    return stopping;
  };
  const bootstrap = `127.0.0.1:${port}`;
  try {
    pid = await jvmPid(launcher, () => launcherErrors.join(''));
    await waitUntilReady(bootstrap, launcher, options.readyTimeoutMs ?? 90_000);
  } catch (error) {
    // Its log read once it has stopped (all written), before its folder goes.
    await halt().catch(() => undefined);
    const logs = `${tail()}${launcherErrors.join('')}`;
    await stop().catch(() => undefined);
    const message = `${(error as Error).message}\nthe broker's log ends with:\n${logs}`;
    throw /Address already in use/.test(logs) ? new PortTaken(message) : new Error(message);
  }
  const saslListener = sasl && { bootstrap: `127.0.0.1:${sasl.port}`, caFile: join(dir, 'ca.pem') };
  return {
    bootstrap,
    port,
    controllerPort,
    ...(saslListener ? { saslListener } : {}),
    pid,
    processMark,
    logFile,
    stop,
  };
}

interface SaslSettings {
  readonly port: number;
  readonly users: readonly KafkaUser[];
}

function serverProperties(input: {
  dir: string;
  port: number;
  controllerPort: number;
  options: StartKafkaOptions;
  sasl: SaslSettings | undefined;
}): string {
  const { dir, port, controllerPort, options, sasl } = input;
  const saslListener = sasl ? `,SASL_SSL://127.0.0.1:${sasl.port}` : '';
  const settings: Record<string, string | number | boolean> = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.voters': `1@127.0.0.1:${controllerPort}`,
    listeners: `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}${saslListener}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${port}${saslListener}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': `CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT${sasl ? ',SASL_SSL:SASL_SSL' : ''}`,
    'log.dirs': join(dir, 'data'),
    'num.partitions': options.partitionsDefault ?? 1,
    'auto.create.topics.enable': options.autoCreateTopics ?? false,
    // One node: every internal topic with one replica, and few partitions (50 by default) to start fast.
    'offsets.topic.replication.factor': 1,
    'offsets.topic.num.partitions': 1,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'transaction.state.log.num.partitions': 1,
    'share.coordinator.state.topic.replication.factor': 1,
    'share.coordinator.state.topic.min.isr': 1,
    'share.coordinator.state.topic.num.partitions': 1,
    'group.initial.rebalance.delay.ms': 0,
    ...(sasl ? saslSettings(dir, sasl.users) : {}),
  };
  return `${Object.entries(settings)
    .map(([name, value]) => `${name}=${value}`)
    .join('\n')}\n`;
}

/** The SASL_SSL listener's mechanisms, their logins (PLAIN's users inline) and its keystore. */
function saslSettings(dir: string, users: readonly KafkaUser[]): Record<string, string> {
  const plainUsers = users.map(({ name, password }) => ` user_${name}="${password}"`).join('');
  return {
    'listener.name.sasl_ssl.sasl.enabled.mechanisms': 'SCRAM-SHA-512,PLAIN',
    'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config':
      'org.apache.kafka.common.security.scram.ScramLoginModule required;',
    'listener.name.sasl_ssl.plain.sasl.jaas.config': `org.apache.kafka.common.security.plain.PlainLoginModule required${plainUsers};`,
    'ssl.keystore.type': 'PKCS12',
    'ssl.keystore.location': join(dir, 'broker.p12'),
    'ssl.keystore.password': KEYSTORE_PASSWORD,
    'ssl.key.password': KEYSTORE_PASSWORD,
  };
}

/** keytool's self-signed key and certificate for 127.0.0.1 (broker.p12), and the certificate as PEM (ca.pem). */
async function selfSignedKeystore(dir: string): Promise<void> {
  const keystore = ['-keystore', join(dir, 'broker.p12'), '-storepass', KEYSTORE_PASSWORD];
  await run(keytoolCommand(), [
    '-genkeypair',
    '-alias',
    'broker',
    '-keyalg',
    'RSA',
    '-keysize',
    '2048',
    '-validity',
    '2',
    '-dname',
    'CN=127.0.0.1',
    '-ext',
    'SAN=IP:127.0.0.1',
    '-storetype',
    'PKCS12',
    '-keypass',
    KEYSTORE_PASSWORD,
    ...keystore,
  ]);
  await run(keytoolCommand(), [
    '-exportcert',
    '-rfc',
    '-alias',
    'broker',
    '-file',
    join(dir, 'ca.pem'),
    ...keystore,
  ]);
}

/** keytool beside the java the broker runs on. */
function keytoolCommand(): string {
  const java = javaCommand();
  return java.includes('/') ? join(dirname(java), 'keytool') : 'keytool';
}

function log4jProperties(logFile: string): string {
  return [
    'status = warn',
    // The JVM stops on SIGTERM; Log4j's own hook would warn that it comes too late.
    'shutdownHook = disable',
    'appender.file.type = File',
    'appender.file.name = file',
    `appender.file.fileName = ${logFile}`,
    'appender.file.layout.type = PatternLayout',
    'appender.file.layout.pattern = [%d] %p %m (%c)%n',
    'rootLogger.level = INFO',
    'rootLogger.appenderRef.file.ref = file',
    '',
  ].join('\n');
}

/**
 * `kafka-storage.sh format`: the metadata directory of a new cluster with a random id, holding
 * the SCRAM-SHA-512 credentials of `scramUsers` (KRaft takes them as bootstrap records).
 */
async function format(
  jvmArgs: readonly string[],
  properties: string,
  env: NodeJS.ProcessEnv,
  scramUsers: readonly KafkaUser[],
): Promise<void> {
  const scram = scramUsers.flatMap(({ name, password }) => [
    '--add-scram',
    `SCRAM-SHA-512=[name=${name},password=${password}]`,
  ]);
  const args = [
    ...jvmArgs,
    'kafka.tools.StorageTool',
    'format',
    '-t',
    clusterId(),
    '-c',
    properties,
    ...scram,
  ];
  await run(javaCommand(), args, env).catch((error: Error) => {
    throw new Error(`formatting the Kafka storage failed: ${error.message}`);
  });
}

/** Runs a command to its end; its output joins the error when it fails. */
function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stdout}${stderr}`));
      else resolve();
    });
  });
}

/** Kafka's Uuid as text: 16 random bytes, base64url; a leading '-' would read as an option. */
function clusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/** The first line the launcher writes: the JVM's pid. */
function jvmPid(launcher: ChildProcess, errors: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const newline = text.indexOf('\n');
      if (newline < 0) return;
      launcher.stdout?.off('data', onData);
      launcher.off('exit', onExit);
      resolve(Number(text.slice(0, newline)));
    };
    const onExit = (code: number | null) =>
      reject(new Error(`the Kafka launcher exited with code ${code} before it started the JVM: ${errors()}`));
    launcher.stdout?.on('data', onData);
    launcher.once('exit', onExit);
  });
}

async function waitUntilReady(bootstrap: string, launcher: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const admin = new Admin({
    clientId: 'pq-kafka-ready',
    bootstrapBrokers: [bootstrap],
    retries: 0,
    connectTimeout: 2_000,
    requestTimeout: 5_000,
  });
  let lastError = 'no answer yet';
  try {
    while (Date.now() < deadline) {
      if (launcher.exitCode !== null || launcher.signalCode !== null) {
        throw new Error(`the Kafka broker exited (launcher code ${launcher.exitCode}) before it was ready`);
      }
      try {
        const metadata = await admin.metadata({ topics: [], forceUpdate: true });
        if (metadata.brokers.size > 0) return;
        lastError = 'the metadata named no broker';
      } catch (error) {
        // The client's errors (refused, timed out, not ready) mean "not yet"; anything else is a bug.
        if (!(error instanceof GenericError || error instanceof MultipleErrors)) throw error;
        lastError = (error as Error).message;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(
      `the Kafka broker did not answer a metadata request at ${bootstrap} within ${timeoutMs} ms (last: ${lastError})`,
    );
  } finally {
    await admin.close().catch(() => undefined);
  }
}

async function stopBroker(input: {
  launcher: ChildProcess;
  exited: Promise<void>;
  pid: () => number;
  graceMs: number;
}): Promise<void> {
  const { launcher, exited, pid, graceMs } = input;
  if (launcher.exitCode === null && launcher.signalCode === null) {
    // The launcher passes SIGTERM on and SIGKILLs the JVM after graceMs; this is its own deadline.
    launcher.kill('SIGTERM');
    const timer = setTimeout(() => {
      killQuietly(pid(), 'SIGKILL');
      launcher.kill('SIGKILL');
    }, graceMs + 5_000);
    await exited;
    clearTimeout(timer);
  }
  // The launcher exits once the JVM has: this holds unless the launcher was killed first.
  const jvm = pid();
  if (jvm > 0 && !(await goneWithin(jvm, 2_000))) {
    killQuietly(jvm, 'SIGKILL');
    if (!(await goneWithin(jvm, 10_000))) throw new Error(`the Kafka broker's JVM (pid ${jvm}) did not exit`);
  }
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  if (pid <= 0) return;
  try {
    process.kill(pid, signal);
  } catch {
    // gone already
  }
}

/** Whether `pid` is gone (or a zombie for its reaper) within `ms`. */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!alive(pid)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function logTail(...files: string[]): string {
  return files
    .filter((file) => existsSync(file))
    .map((file) => `--- ${file}\n${readFileSync(file, 'utf8').slice(-LOG_TAIL_CHARS)}\n`)
    .join('');
}

async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}
