/**
 * `npm run -s rehearsal -- --target localstack --json` (issue 20, items 1 and 4): the default
 * scenarios on stacks that LocalStack's own CloudFormation deployed, its Step Functions engine
 * running the pause and verification machines, our runner playing the mapping. The seed's totals
 * (7 attempts, 4 completed, 1 quarantined, 0 left), its outcome-unknown variant (5/4/1), the
 * outage scenario and the variant answered with pq verify must all pass, as they do on moto.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCALSTACK_ACCOUNT } from '../../tools/localstack/localstack';

const root = join(__dirname, '..', '..');

interface ScenarioJson {
  readonly name: string;
  readonly pass: boolean;
  readonly deployedIn?: { readonly target: string; readonly accountId: string };
  readonly observed: { attemptsStarted: number; completed: number; quarantined: number; leftInQueue: number };
}

describe('the rehearsal on the embedded LocalStack', () => {
  it('passes the seed, its variant, the outage and the verified variant, each deployed by LocalStack', () => {
    // Act
    const run = spawnSync('npm', ['run', '-s', 'rehearsal', '--', '--target', 'localstack', '--json'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 1_500_000,
    });

    // Assess
    expect(run.status, run.stderr.slice(-3000)).toBe(0);
    const report = JSON.parse(run.stdout) as { pass: boolean; scenarios: ScenarioJson[] };
    const byName = Object.fromEntries(report.scenarios.map((scenario) => [scenario.name, scenario]));
    expect(Object.keys(byName).sort()).toStrictEqual([
      'outage',
      'seed',
      'seed-variant',
      'seed-variant-verified',
    ]);
    for (const scenario of report.scenarios) {
      expect(scenario.deployedIn).toStrictEqual({ target: 'localstack', accountId: LOCALSTACK_ACCOUNT });
      expect(scenario.pass, scenario.name).toBe(true);
    }
    const totals = ({ observed }: ScenarioJson) => [
      observed.attemptsStarted,
      observed.completed,
      observed.quarantined,
      observed.leftInQueue,
    ];
    expect(totals(byName.seed as ScenarioJson)).toStrictEqual([7, 4, 1, 0]);
    expect(totals(byName['seed-variant'] as ScenarioJson)).toStrictEqual([5, 4, 1, 0]);
    expect(report.pass).toBe(true);
  }, 1_500_000);
});
