import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DemoStack } from '../../lib/demo-stack';
import { templateApp } from './synth';

const cfnLint = path.join(__dirname, '..', '..', '.venv', 'bin', 'cfn-lint');
// W3005: CDK adds an explicit DependsOn on a function's or state machine's role next to the
// GetAtt that already orders it. Redundant, harmless, and not ours to change.
const IGNORED_CHECKS = ['W3005'];

describe('cfn-lint over the synthesized demo template', () => {
  const outdir = mkdtempSync(path.join(tmpdir(), 'pq-cfn-lint-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('reports nothing', () => {
    // Prepare
    const app = templateApp({ outdir });
    const stack = new DemoStack(app, 'PoisonQuarantineDemo', { env: { region: 'us-east-1' } });
    const assembly = app.synth();
    const templateFile = path.join(assembly.directory, assembly.getStackByName(stack.stackName).templateFile);
    // Act
    const result = spawnSync(cfnLint, ['--ignore-checks', ...IGNORED_CHECKS, '--', templateFile], {
      encoding: 'utf8',
    });
    // Assess: any finding is printed and makes the exit status non-zero.
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.status).toBe(0);
  });
});
