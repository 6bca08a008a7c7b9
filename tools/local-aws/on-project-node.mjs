// `node tools/local-aws/on-project-node.mjs [node options] SCRIPT [arguments]`, which `npm run rehearsal` and
// `npm test` start with: makes sure of the project's virtualenv (ensure-venv.mjs), then runs node
// with the given arguments on the project's Node.js (.nvmrc; linked as .venv/node/bin/node) when
// the one running this is older. A machine whose own Node.js is 20 thus needs no PATH step, and
// nothing warns about it: the AWS SDK warns on every process below 22 that makes a client.
// A help (`--help` or `-h` among the arguments, the script's or node's own) needs no local AWS:
// it runs without the virtualenv's first install (minutes), on this Node.js when the project's
// is not installed yet.
// A Node.js as new as the project's or newer stays the one used. The child gets the project's
// node directory first on PATH, as CI has it (.ci/run), so what it starts by name (node, npx)
// runs on the same one. Ends as the child ends: its exit code, or the signal that killed it.
// Plain node, no dependencies: it runs on whatever Node.js the machine has.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { ensureVenvOrExit, PROJECT_NODE, PROJECT_ROOT } from './ensure-venv.mjs';

const PROJECT_MAJOR = Number(readFileSync(join(PROJECT_ROOT, '.nvmrc'), 'utf8').trim());

/**
 * This process's node when it is at least the project's version (or the project's is not
 * installed: a help, see above); else the project's, first on PATH.
 */
function chosenNode() {
  if (Number(process.versions.node.split('.')[0]) >= PROJECT_MAJOR || !existsSync(PROJECT_NODE)) {
    return { node: process.execPath, env: process.env };
  }
  const PATH = `${dirname(PROJECT_NODE)}${delimiter}${process.env.PATH ?? ''}`;
  return { node: PROJECT_NODE, env: { ...process.env, PATH } };
}

/**
 * Runs the child in a process group of its own and ends as it ends. When the child ends, however
 * it ends, whatever is still in its group is killed: a test whose setup timed out leaves its
 * promise running, and what that starts (a local AWS, a spawned tool) would outlive the run.
 * The group is out of the terminal's foreground, so a Ctrl-C reaches only this process, which
 * passes it on to the whole group, as it passes SIGTERM and SIGHUP. The child reads no stdin:
 * a background group that reads the terminal is stopped.
 */
function runChild(args) {
  const { node, env } = chosenNode();
  const child = spawn(node, args, { stdio: ['ignore', 'inherit', 'inherit'], env, detached: true });
  const signalGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is gone already: nothing left to stop.
    }
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => signalGroup(signal));
  child.on('error', (error) => {
    console.error(`poison-quarantine: could not start ${node}: ${error.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    signalGroup('SIGKILL');
    if (signal === null) process.exit(code ?? 1);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
}

const args = process.argv.slice(2);
if (!args.some((arg) => arg === '--help' || arg === '-h')) ensureVenvOrExit();
runChild(args);
