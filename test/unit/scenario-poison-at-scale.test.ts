/**
 * Issue 22, defect 14's done-when: a rehearsal scenario with the shape of the defect (200
 * messages, 5 crashing the parser, batch 10, 4 in flight, two environments, limit 3), once with
 * an isolation trial of 1 message and once with the default trial, expecting every healthy
 * message completed, every poison message `crash-limit` and nothing in the backstop. The file is
 * what `npm run rehearsal -- --scenario local/rehearsal/scenarios/poison-at-scale.json` runs.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScenarios, type Scenario } from '../../local/rehearsal/scenario';

const FILE = path.join(__dirname, '..', '..', 'local', 'rehearsal', 'scenarios', 'poison-at-scale.json');

const read = (): Scenario[] => parseScenarios(JSON.parse(readFileSync(FILE, 'utf8')), FILE);

/** What defect 14 fixes of a scenario: its messages and the pipeline's settings. */
function shape(scenario: Scenario) {
  const behaviours = scenario.messages.map((message) => message.behaviour);
  return {
    messages: behaviours.length,
    succeed: behaviours.filter((behaviour) => behaviour === 'succeed').length,
    crashInParser: behaviours.filter((behaviour) => behaviour === 'crash-in-parser').length,
    batchSize: scenario.batchSize,
    inFlight: scenario.inFlight,
    environments: scenario.environments,
    limit: scenario.limit,
  };
}

describe('defect 14: the poison-at-scale scenario file', () => {
  it('given the file, then it holds two scenarios of the shape of defect 14: a trial of 1 message and the default trial', () => {
    // Act
    const scenarios = read();
    // Assess
    const defect14 = {
      messages: 200,
      succeed: 195,
      crashInParser: 5,
      batchSize: 10,
      inFlight: 4,
      environments: 2,
      limit: 3,
    };
    expect(scenarios.map(shape)).toStrictEqual([defect14, defect14]);
    expect(scenarios.map((scenario) => scenario.isolationTrialMessages)).toStrictEqual([1, undefined]);
  });

  it('given the file, then each expects 195 completed, 5 crash-limit, nothing left in the queue or the backstop', () => {
    for (const scenario of read()) {
      // Poison messages reach their limit (3 attempts each), healthy ones complete (1 each); how
      // many attempts shared crashes cost besides depends on the run's timing.
      expect(scenario.expected).toStrictEqual({
        attemptsStarted: { atLeast: 195 + 5 * 3 },
        completed: 195,
        quarantined: 5,
        leftInQueue: 0,
        backstop: 0,
        quarantineReasons: { 'crash-limit': 5 },
        externalRequests: {},
      });
    }
  });

  it('given the file, then each states the bound of receives per poison message', () => {
    for (const scenario of read()) {
      expect(scenario.notes?.join(' ')).toMatch(/at most \d+ receives/);
    }
  });
});
