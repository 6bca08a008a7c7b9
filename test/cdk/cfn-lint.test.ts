import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoStack } from '../../lib/demo-stack';
import { templateApp } from './synth';

const cfnLint = path.join(__dirname, '..', '..', '.venv', 'bin', 'cfn-lint');
// W3005: CDK adds an explicit DependsOn on a function's or state machine's role next to the
// GetAtt that already orders it. Redundant, harmless, and not ours to change.
const IGNORED_CHECKS = ['W3005'];

interface ValidationReport {
  readonly pluginReports: readonly { readonly pluginName: string; readonly violations: readonly unknown[] }[];
}

describe('the synthesized demo template, linted', () => {
  const outdir = mkdtempSync(path.join(tmpdir(), 'pq-cfn-lint-'));
  let templateFile = '';
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));
  beforeAll(() => {
    // The one synth of the template tests with CDK's own CloudFormation validation (the other
    // tests leave it off: it is a third of a synth), its findings made errors, as a strict user has them.
    const app = templateApp({
      outdir,
      builtinCloudFormationValidation: true,
      context: { '@aws-cdk/core:validateAgainstDefaultRules': true },
    });
    const stack = new DemoStack(app, 'PoisonQuarantineDemo', { env: { region: 'us-east-1' } });
    const assembly = app.synth();
    templateFile = path.join(assembly.directory, assembly.getStackByName(stack.stackName).templateFile);
  });

  it('cfn-lint reports nothing', () => {
    // Act
    const result = spawnSync(cfnLint, ['--ignore-checks', ...IGNORED_CHECKS, '--', templateFile], {
      encoding: 'utf8',
    });
    // Assess: any finding is printed and makes the exit status non-zero.
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.status).toBe(0);
  });

  it("CDK's built-in CloudFormation validation reports nothing, not even a warning", () => {
    // Act
    const report: ValidationReport = JSON.parse(
      readFileSync(path.join(outdir, 'validation-report.json'), 'utf8'),
    );
    // Assess: a clean template gets no plugin report at all; a finding, even a warning, gets one.
    expect(report.pluginReports.flatMap((plugin) => plugin.violations)).toEqual([]);
  });
});
