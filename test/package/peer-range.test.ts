/**
 * The peer range works at both ends (issue 21, item 2): the packed package installed, with npm's
 * own peer resolution (no --legacy-peer-deps), into a fresh CDK app on the oldest aws-cdk-lib and
 * constructs its peerDependencies allow, and into one on the newest release; each type-checks and
 * synthesizes. The floor was found by trying releases (2026-12-04): 2.260.0, 2.265.0, 2.266.0 and
 * 2.268.0 refuse the construct's cdk-nag acknowledgements (`Validations.of(...).acknowledge`
 * rejects a rule id with `::`), 2.220.0 and 2.240.0 have no `Validations`, 2.200.0 and 2.160.0
 * refuse 1 MiB SQS messages; 2.269.0 and 2.270.0 work, and 2.269.0 itself requires constructs
 * ^10.5.0. aws-cdk-lib comes from
 * the npm registry; everything else is linked from this repository.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './run-command';

const root = path.join(__dirname, '..', '..');
const repoModule = (name: string) => path.join(root, 'node_modules', name);
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};

/** `^2.269.0` -> `2.269.0`: the oldest release a caret range allows. */
function floorOf(range: string | undefined): string {
  const floor = /^\^(\d+\.\d+\.\d+)$/.exec(range ?? '')?.[1];
  if (floor === undefined) throw new Error(`a peer range should be ^x.y.z (given ${range})`);
  return floor;
}

const work = mkdtempSync(path.join(tmpdir(), 'pq-peers-'));
let tarball = '';

beforeAll(() => {
  const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], root));
  tarball = path.join(work, packed.filename);
}, 150_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.each([
  [
    'the peer floor',
    floorOf(manifest.peerDependencies['aws-cdk-lib']),
    floorOf(manifest.peerDependencies.constructs),
  ],
  ['the newest release', 'latest', 'latest'],
])('the packed package in a CDK app on %s', (name, cdkLib, constructs) => {
  const app = path.join(work, name.replaceAll(' ', '-'));

  beforeAll(() => {
    cpSync(path.join(__dirname, 'app'), app, { recursive: true });
    // The package's own dependencies and the app's @types/node are linked: only the peers are fetched.
    const linked = [...Object.keys(manifest.dependencies), '@types/node'].map(repoModule);
    run(
      'npm',
      [
        'install',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        tarball,
        `aws-cdk-lib@${cdkLib}`,
        `constructs@${constructs}`,
        ...linked,
      ],
      app,
    );
  }, 300_000);

  it('installs the peers it asked for, type-checks and synthesizes the consumer', () => {
    const installed = (module: string) =>
      JSON.parse(readFileSync(path.join(app, 'node_modules', module, 'package.json'), 'utf8'))
        .version as string;
    if (cdkLib !== 'latest')
      expect([installed('aws-cdk-lib'), installed('constructs')]).toStrictEqual([cdkLib, constructs]);

    run(process.execPath, [path.join(repoModule('typescript'), 'bin', 'tsc'), '-p', app], app);
    const cdkOut = path.join(app, 'cdk.out');
    run(path.join(root, 'node_modules', '.bin', 'tsx'), ['bin/pq-app.ts'], app, { CDK_OUTDIR: cdkOut });

    const template = JSON.parse(readFileSync(path.join(cdkOut, 'PqAppStack.template.json'), 'utf8')) as {
      Resources: Record<string, { Type: string }>;
    };
    const types = new Set(Object.values(template.Resources).map((resource) => resource.Type));
    for (const type of ['AWS::Lambda::Function', 'AWS::SQS::Queue', 'AWS::StepFunctions::StateMachine']) {
      expect({ type, synthesized: types.has(type) }).toStrictEqual({ type, synthesized: true });
    }
    expect(existsSync(path.join(cdkOut, 'manifest.json'))).toBe(true);
  }, 120_000);
});
