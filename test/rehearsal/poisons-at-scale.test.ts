/**
 * Issue 37 on the local AWS: the two scenarios of local/rehearsal/scenarios/poisons-at-scale-37.json,
 * run by the same code as `npm run rehearsal -- --scenario FILE`, each on its own pipeline,
 * concurrently, with real SIGKILLs. Poisons that share batches over several workers must each
 * end crash-limit, every other message complete, nothing reach the backstop, and no poison be
 * received more often than its bound. The figures (settle time, receives per poison, pauses)
 * are printed for the closing note.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { judge } from '../../local/rehearsal/judge';
import { runScenarios, type ScenarioRun } from '../../local/rehearsal/run-scenario';
import { parseScenarios } from '../../local/rehearsal/scenario';

const FILE = path.join(__dirname, '..', '..', 'local', 'rehearsal', 'scenarios', 'poisons-at-scale-37.json');
/** The backstop's maxReceiveCount: the last-receive quarantine keeps every poison short of it. */
const BACKSTOP = 10;

let runs: ScenarioRun[];

// A crash waits out a 36 s visibility timeout; a poison's four crashes and its quarantine take
// several minutes, more on a loaded machine.
beforeAll(async () => {
  const scenarios = parseScenarios(JSON.parse(readFileSync(FILE, 'utf8')), FILE);
  const outcomes = await runScenarios(scenarios);
  for (const outcome of outcomes) if (outcome.error) throw outcome.error;
  runs = outcomes.map((outcome) => outcome.run as ScenarioRun);
  for (const run of runs) process.stdout.write(`${JSON.stringify(figures(run))}\n`);
}, 1_200_000);

/** What the closing note reports of a run. */
function figures(run: ScenarioRun) {
  const poisons = run.scenario.messages.filter(
    (message) => message.behaviour === 'crash-in-parser' && !message.times,
  );
  const receives = poisons.map(
    (poison) => run.observed.messages.find((message) => message.id === poison.id)?.receives ?? 0,
  );
  return {
    scenario: run.scenario.name,
    settledSeconds: Math.round(run.runMs / 1000),
    receivesPerPoison: receives,
    pauses: run.observed.operations?.pauses ?? null,
    killedAtDeadline: run.killedAtDeadline,
  };
}

describe('poisons that share batches, on the local AWS (issue 37)', () => {
  it('given each scenario, then it settles with every figure it expects', () => {
    for (const run of runs) {
      expect(run.settlement.settled, run.scenario.name).toBe(true);
      expect(judge(run).pass, run.scenario.name).toBe(true);
    }
  });

  it('given each scenario, then every poison is quarantined crash-limit, within its bound of receives', () => {
    for (const run of runs) {
      const poisons = run.scenario.messages.filter(
        (message) => message.behaviour === 'crash-in-parser' && !message.times,
      );
      const bound = Math.min(BACKSTOP, (run.scenario.limit ?? 3) + 2 + poisons.length);
      for (const poison of poisons) {
        const observed = run.observed.messages.find((message) => message.id === poison.id);
        expect(observed, `${run.scenario.name} ${poison.id}`).toMatchObject({ state: 'quarantined' });
        expect(observed?.receives, `${run.scenario.name} ${poison.id}`).toBeLessThanOrEqual(bound);
      }
      expect(run.observed.quarantineReasons).toStrictEqual({ 'crash-limit': poisons.length });
    }
  });
});
