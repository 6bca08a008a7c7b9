/**
 * Issue 22, defect 16: on a machine whose own Node.js is older than the project's (Node 20 first on
 * PATH), `npm run rehearsal` orchestrated on it, with the AWS SDK's warning about Node 20, though
 * the project installs its own Node.js 24 into .venv. The two README commands start with the
 * launcher, which runs their entry on the project's Node.js when the machine's is older: no PATH
 * step for the user, no warning printed. These tests need an older Node.js on the machine (this
 * machine kind has Node 20 in /usr/bin) and are skipped, saying so, where there is none.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.join(__dirname, '..', '..');
const PROJECT_MAJOR = Number(readFileSync(path.join(root, '.nvmrc'), 'utf8').trim());
const LAUNCHER = path.join(root, 'tools', 'local-aws', 'on-project-node.mjs');

/** A Node.js older than the project's, found on PATH or where distributions put it; undefined if none. */
function olderNode(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/bin', '/usr/local/bin'];
  return dirs
    .map((dir) => path.join(dir, 'node'))
    .filter((candidate) => existsSync(candidate))
    .find((candidate) => {
      const version = execFileSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' });
      return Number(version.split('.')[0]) < PROJECT_MAJOR;
    });
}

const oldNode = olderNode();
/** PATH as a machine with the older Node.js first has it. */
const oldPath = oldNode && `${path.dirname(oldNode)}${path.delimiter}${process.env.PATH}`;

describe.skipIf(oldNode === undefined)(
  `defect 16: the first commands on an older Node.js (${oldNode})`,
  () => {
    it("given the machine's older Node.js, when the launcher runs a script, then it runs on the project's", () => {
      // Act
      const run = spawnSync(oldNode as string, [LAUNCHER, '-p', 'process.versions.node'], {
        cwd: root,
        encoding: 'utf8',
      });
      // Assess
      expect({ status: run.status, stderr: run.stderr }).toStrictEqual({ status: 0, stderr: '' });
      expect(Number(run.stdout.split('.')[0])).toBe(PROJECT_MAJOR);
    });

    it('given an AWS SDK client made under the launcher, then no warning about the Node.js version', () => {
      // Act
      const run = spawnSync(
        oldNode as string,
        [LAUNCHER, '-e', "new (require('@aws-sdk/client-sqs').SQSClient)({ region: 'us-east-1' })"],
        { cwd: root, encoding: 'utf8' },
      );
      // Assess
      expect({ status: run.status, stderr: run.stderr }).toStrictEqual({ status: 0, stderr: '' });
    });

    it.each(['rehearsal', 'test'])('given npm run %s, then its script starts with the launcher', (script) => {
      const scripts = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;
      expect(scripts[script]).toMatch(/^node tools\/local-aws\/on-project-node\.mjs /);
    });

    it('given `npm run rehearsal -- --help` with the older Node.js first on PATH, then the usage, and nothing on stderr', () => {
      // Act
      const run = spawnSync('npm', ['run', '-s', 'rehearsal', '--', '--help'], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, PATH: oldPath },
      });
      // Assess
      expect({ status: run.status, stderr: run.stderr }).toStrictEqual({ status: 0, stderr: '' });
      expect(run.stdout).toMatch(/^Usage: npm run rehearsal/);
    });

    it('given a child killed by a signal, then the launcher ends the same way', () => {
      // Act
      const run = spawnSync(oldNode as string, [LAUNCHER, '-e', "process.kill(process.pid, 'SIGTERM')"], {
        cwd: root,
      });
      // Assess
      expect(run.signal).toBe('SIGTERM');
    });
  },
);
