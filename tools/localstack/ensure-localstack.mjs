// Creates or refreshes the embedded LocalStack's virtualenv (.venv-localstack): localstack-core
// pinned in tools/localstack/requirements.txt, on Python 3.13, which LocalStack needs (3.11 and
// 3.12 fail on `warnings.deprecated`). Python 3.13 is found as $LOCALSTACK_PYTHON, else
// python3.13 on PATH, else pyenv's newest 3.13. Does nothing when the virtualenv matches the
// requirements file. The first install downloads about 500 MB and takes minutes. Run directly
// (`node tools/localstack/ensure-localstack.mjs`) or imported (`ensureLocalStack()`).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  checkedPython,
  ensurePythonVenv,
  PROJECT_ROOT,
  runWhenStarted,
  VenvError,
} from '../local-aws/ensure-venv.mjs';

export const LOCALSTACK_VENV = join(PROJECT_ROOT, '.venv-localstack');
const NEEDED = [3, 13];

export function ensureLocalStack() {
  ensurePythonVenv({
    venv: LOCALSTACK_VENV,
    requirements: join(PROJECT_ROOT, 'tools', 'localstack', 'requirements.txt'),
    what: 'the embedded LocalStack (localstack-core 2026.3.0, about 500 MB)',
    python: findPython,
  });
}

/** The first Python 3.13 of $LOCALSTACK_PYTHON, python3.13 on PATH and pyenv's versions. */
function findPython() {
  const candidates = [process.env.LOCALSTACK_PYTHON, 'python3.13', ...pyenvPythons()].filter(Boolean);
  for (const candidate of candidates) {
    try {
      return checkedPython(candidate, NEEDED);
    } catch {
      // the next candidate
    }
  }
  throw new VenvError(
    'poison-quarantine: the embedded LocalStack needs Python 3.13 (LocalStack fails on 3.11 and 3.12), ' +
      `and none was found (tried ${candidates.join(', ')}). Install one (e.g. "pyenv install 3.13") ` +
      'or name it with LOCALSTACK_PYTHON=/path/to/python3.13.',
  );
}

function pyenvPythons() {
  let root;
  try {
    root = execFileSync('pyenv', ['root'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return [];
  }
  const versions = join(root, 'versions');
  if (!existsSync(versions)) return [];
  return readdirSync(versions)
    .filter((version) => version.startsWith('3.13'))
    .sort()
    .reverse()
    .map((version) => join(versions, version, 'bin', 'python3.13'));
}

runWhenStarted(import.meta.url, ensureLocalStack);
