// `node tools/local-aws/on-project-node.mjs [node options] SCRIPT [arguments]`, which `npm run rehearsal` and
// `npm test` start with: makes sure of the project's virtualenv (ensure-venv.mjs), then runs node
// with the given arguments on the project's Node.js (.nvmrc; linked as .venv/node/bin/node) when
// the one running this is older. A machine whose own Node.js is 20 thus needs no PATH step, and
// nothing warns about it: the AWS SDK warns on every process below 22 that makes a client.
// A Node.js as new as the project's or newer stays the one used. The child gets the project's
// node directory first on PATH, as CI has it (.ci/run), so what it starts by name (node, npx)
// runs on the same one. Ends as the child ends: its exit code, or the signal that killed it.
// Plain node, no dependencies: it runs on whatever Node.js the machine has.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { ensureVenvOrExit, PROJECT_NODE, PROJECT_ROOT } from './ensure-venv.mjs';

const PROJECT_MAJOR = Number(readFileSync(join(PROJECT_ROOT, '.nvmrc'), 'utf8').trim());

/** This process's node when it is at least the project's version; else the project's, first on PATH. */
function chosenNode() {
  if (Number(process.versions.node.split('.')[0]) >= PROJECT_MAJOR) {
    return { node: process.execPath, env: process.env };
  }
  const PATH = `${dirname(PROJECT_NODE)}${delimiter}${process.env.PATH ?? ''}`;
  return { node: PROJECT_NODE, env: { ...process.env, PATH } };
}

/**
 * Runs the child and ends as it ends. A terminal's Ctrl-C reaches the whole process group, the
 * child too, so this process only outlives it (the child decides how to stop); a SIGTERM or
 * SIGHUP sent to this process alone is passed on.
 */
function runChild(args) {
  const { node, env } = chosenNode();
  const child = spawn(node, args, { stdio: 'inherit', env });
  process.on('SIGINT', () => {});
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => {
    console.error(`poison-quarantine: could not start ${node}: ${error.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (signal === null) process.exit(code ?? 1);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
}

ensureVenvOrExit();
runChild(process.argv.slice(2));
