// Runs the embedded Kafka broker's JVM for broker.ts and makes sure it never outlives it:
//
//   node tools/kafka/kafka-launcher.mjs OUTPUT_FILE ORPHAN_REMOVES_DIR GRACE_MS -- JAVA [ARGS...]
//
// Starts JAVA ARGS with its stdout and stderr appended to OUTPUT_FILE, and writes the JVM's pid
// and a newline on stdout. It stops the JVM (SIGTERM, then SIGKILL after GRACE_MS) when:
// - it gets SIGTERM, SIGINT or SIGHUP (broker.ts's stop());
// - its standard input closes: broker.ts holds the other end of that pipe, and only its
//   process's exit closes it, also on SIGKILL or a test worker killed on a hook timeout; it then
//   also removes ORPHAN_REMOVES_DIR (the broker's temporary folder) once the JVM is gone, as
//   nobody else will;
// - its parent changes (it was re-parented: the pipe's watch, once more).
// It exits when the JVM exits, with its exit code. The JVM is started through
// `setpriv --pdeathsig KILL` where util-linux has it, so that even this launcher's SIGKILL takes
// the JVM along; and both stay in the caller's process group, which
// tools/local-aws/on-project-node.mjs kills whole when a test run ends. Plain node, Java-agnostic,
// no dependencies.
import { spawn } from 'node:child_process';
import { existsSync, openSync, rmSync } from 'node:fs';

const SETPRIV = '/usr/bin/setpriv';

const [output, orphanRemovesDir, graceMs, separator, java, ...args] = process.argv.slice(2);
if (separator !== '--' || !java || !/^\d+$/.test(graceMs ?? '')) {
  process.stderr.write(
    'Usage: node tools/kafka/kafka-launcher.mjs OUTPUT_FILE ORPHAN_REMOVES_DIR GRACE_MS -- JAVA [ARGS...]\n',
  );
  process.exit(2);
}

const out = openSync(output, 'a');
const [command, commandArgs] = existsSync(SETPRIV)
  ? [SETPRIV, ['--pdeathsig', 'KILL', '--', java, ...args]]
  : [java, args];
// setpriv execs java in place: the pid is the JVM's.
const jvm = spawn(command, commandArgs, { stdio: ['ignore', out, out] });
const parent = process.ppid;
let stopping = false;
let orphaned = false;

jvm.once('spawn', () => process.stdout.write(`${jvm.pid}\n`));
jvm.once('error', (error) => {
  process.stderr.write(`kafka-launcher: could not start ${java}: ${error.message}\n`);
  process.exit(127);
});
jvm.once('exit', (code, signal) => {
  if (orphaned) rmSync(orphanRemovesDir, { recursive: true, force: true });
  process.exit(code ?? (signal === 'SIGTERM' && stopping ? 0 : 1));
});

function stop() {
  if (stopping) return;
  stopping = true;
  jvm.kill('SIGTERM');
  setTimeout(() => jvm.kill('SIGKILL'), Number(graceMs)).unref();
}

function orphan() {
  orphaned = true;
  stop();
}

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, stop);
process.stdin.on('end', orphan);
process.stdin.on('close', orphan);
process.stdin.on('error', orphan);
process.stdin.resume();
setInterval(() => {
  if (process.ppid !== parent) orphan();
}, 500).unref();
