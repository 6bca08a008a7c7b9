/**
 * Issue 21, item 6: the local AWS's first install takes minutes. tools/local-aws/pip-progress.py
 * shows one line rewritten in place on a terminal, nothing in a pipe, and pip's whole output
 * when it fails (which --quiet used to hide). pip is a stand-in script here; the terminal is a
 * pseudo-terminal from Python's pty module.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = join(__dirname, '..', '..', 'tools', 'local-aws', 'pip-progress.py');
const dir = mkdtempSync(join(tmpdir(), 'pq-pip-progress-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A pip that prints what a real install prints, and exits with `code`. */
function fakePip(code: number): string {
  const file = join(dir, `pip-${code}`);
  writeFileSync(
    file,
    `#!/bin/sh
echo "Collecting moto==5.1.0 (from -r requirements.txt (line 1))"
echo "Collecting werkzeug>=0.5"
echo "Installing collected packages: werkzeug, moto"
${code === 0 ? 'echo "Successfully installed moto-5.1.0 werkzeug-3.1.0"' : 'echo "ERROR: No matching distribution found for cfn-lint==99"'}
exit ${code}
`,
  );
  chmodSync(file, 0o755);
  return file;
}

/** The script with stdout and stderr on a pseudo-terminal; what the terminal received, and the exit code. */
function onTerminal(pip: string) {
  const run = spawnSync(
    'python3',
    [
      '-c',
      'import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)',
      'python3',
      SCRIPT,
      pip,
      '-r',
      'requirements.txt',
    ],
    { encoding: 'utf8' },
  );
  return { code: run.status, shown: run.stdout };
}

function piped(pip: string) {
  const run = spawnSync('python3', [SCRIPT, pip, '-r', 'requirements.txt'], { encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('given pip installs', () => {
  it('when stderr is a terminal, then one line counts the packages collected, and is cleared at the end', () => {
    const clear = '\r\u001b[K';

    expect(onTerminal(fakePip(0))).toStrictEqual({
      code: 0,
      shown: `${clear}pip: 1 package collected (moto==5.1.0)${clear}pip: 2 packages collected (werkzeug>=0.5)${clear}pip: installing 2 packages...${clear}`,
    });
  });

  it('when stderr is a pipe, then nothing is printed at all', () => {
    expect(piped(fakePip(0))).toStrictEqual({ code: 0, stdout: '', stderr: '' });
  });
});

describe('given pip fails', () => {
  it('when stderr is a pipe, then its exit code and its whole output, to say why', () => {
    const run = piped(fakePip(1));

    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Collecting moto==5.1.0');
    expect(run.stderr).toContain('ERROR: No matching distribution found for cfn-lint==99');
  });
});
