/**
 * The rehearsal's operations scenarios, run by the same code as `npm run rehearsal`, each on its
 * own pipeline, concurrently:
 * - "outage" (rule 7, acceptance 3): five messages fail while the outside system answers 503;
 *   the consumer pauses once, charges and quarantines nothing, and resumes after the half-open
 *   probe; the pause/resume timeline is measured.
 * - "seed-variant-verified" (rule 8): the seed's variant, then the operator answers M3's
 *   "outcome unknown" record with `pq verify --not-done` through the CLI in-process; the replay
 *   completes and the outside system still saw one request for M3.
 * Also: the scenario fields that stage these are checked like every other field.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCENARIOS, OUTAGE, SEED_VARIANT_VERIFIED } from '../../local/rehearsal/default-scenarios';
import { judge, type Verdict } from '../../local/rehearsal/judge';
import { TIMELINE_ORDER } from '../../local/rehearsal/outage';
import { jsonReport, ran, textReport } from '../../local/rehearsal/report';
import { runScenarios, type ScenarioRun } from '../../local/rehearsal/run-scenario';
import { parseScenarios, type Scenario } from '../../local/rehearsal/scenario';

describe('scenario fields for outages and operators', () => {
  const base = () => JSON.parse(JSON.stringify(SEED_VARIANT_VERIFIED)) as Record<string, unknown>;
  const problems = (scenario: unknown): string => {
    try {
      parseScenarios(scenario, 'test.json');
    } catch (error) {
      return (error as Error).message;
    }
    return '';
  };

  it('accepts every default scenario as a scenario file would give it', () => {
    expect(() => parseScenarios(JSON.parse(JSON.stringify(DEFAULT_SCENARIOS)), 'defaults')).not.toThrow();
  });

  it('names a bad outage field and its value', () => {
    const message = problems({
      ...JSON.parse(JSON.stringify(OUTAGE)),
      outage: { startAfterMs: -1, durationMs: 'long', by: 1 },
    });
    expect(message).toContain('outage.startAfterMs must be a whole number from 0 to 600000 (given -1)');
    expect(message).toContain('outage.durationMs must be a whole number from 1 to 600000 (given "long")');
    expect(message).toContain('outage.by is not a known field');
  });

  it('names a bad operator step, field by field', () => {
    const message = problems({ ...base(), operator: [{ verify: 'M9', decision: 'maybe', reason: ' ' }] });
    expect(message).toContain('operator[0].verify names no message of this scenario (given "M9")');
    expect(message).toContain('operator[0].decision must be one of done, not-done, discard (given "maybe")');
    expect(message).toContain('operator[0].reason must be a non-empty string');
  });

  it('wants operator steps and their expected figures together', () => {
    const { operator: _steps, ...withoutSteps } = base();
    expect(problems(withoutSteps)).toContain('expected.afterOperator needs operator steps');
    const { afterOperator: _after, ...expected } = base().expected as Record<string, unknown>;
    expect(problems({ ...base(), expected })).toContain('operator needs expected.afterOperator');
  });

  it('checks floors, statuses and keys of the new figures', () => {
    const expected = {
      ...(base().expected as Record<string, unknown>),
      attemptsStarted: { atLeast: -2 },
      quarantineStatuses: { lost: 1 },
      executions: { DONE: 1 },
      replays: { M7: 1 },
      pauses: 1.5,
    };
    const message = problems({ ...base(), expected });
    expect(message).toContain(
      'expected.attemptsStarted.atLeast must be a whole number from 0 to 100000 (given -2)',
    );
    expect(message).toContain('expected.quarantineStatuses.lost is not a quarantine status');
    expect(message).toContain('expected.executions.DONE is not an execution status');
    expect(message).toContain('expected.replays.M7 names no message of this scenario');
    expect(message).toContain('expected.pauses must be a whole number from 0 to 100000 (given 1.5)');
  });
});

let outage: ScenarioRun;
let verified: ScenarioRun;
let verdicts: Map<string, Verdict>;

beforeAll(async () => {
  const outcomes = await runScenarios([OUTAGE, SEED_VARIANT_VERIFIED]);
  for (const outcome of outcomes) if (outcome.error) throw outcome.error;
  [outage, verified] = outcomes.map((outcome) => outcome.run as ScenarioRun);
  verdicts = new Map([outage, verified].map((run) => [run.scenario.name, judge(run)]));
}, 150_000);

/** Every check of a verdict passed; on failure, the failing checks are the message. */
function expectAllPassed(scenario: Scenario): void {
  const verdict = verdicts.get(scenario.name) as Verdict;
  expect(verdict.checks.filter((check) => !check.pass)).toStrictEqual([]);
  expect(verdict.pass).toBe(true);
}

describe('outage: a shared dependency down across five messages', () => {
  it('passes every judged figure', () => {
    expectAllPassed(OUTAGE);
    const figures = (verdicts.get('outage') as Verdict).checks.map((check) => check.figure);
    expect(figures).toEqual(
      expect.arrayContaining([
        'settled',
        'attempts started',
        'completed',
        'quarantined',
        'left in queue',
        'charged attempts (all messages)',
        'pauses (pause executions)',
        'state machine executions',
        'pause/resume timeline',
      ]),
    );
  });

  it('pauses once, charges nothing, quarantines nothing, and completes every message', () => {
    expect(outage.settlement.settled).toBe(true);
    expect(outage.observed).toMatchObject({
      completed: 5,
      quarantined: 0,
      leftInQueue: 0,
      quarantineReasons: {},
      operations: { charged: 0, pauses: 1, executions: { SUCCEEDED: 1 }, quarantineStatuses: {} },
    });
    expect(outage.observed.attemptsStarted).toBeGreaterThanOrEqual(8);
    for (const message of outage.observed.messages) {
      expect(message).toMatchObject({ state: 'completed', charged: 0 });
    }
    for (const id of ['O1', 'O2', 'O3', 'O4', 'O5']) {
      expect(outage.observed.externalRequests[id]).toBeGreaterThanOrEqual(1);
    }
  });

  it('measures the pause/resume timeline, every step in order', () => {
    const timeline = outage.observed.timeline;
    expect(timeline).toBeDefined();
    if (timeline === undefined) return;
    const at = TIMELINE_ORDER.map((step) => timeline[step]);
    expect(at.every((value) => typeof value === 'number')).toBe(true);
    expect(at).toStrictEqual([...(at as number[])].sort((a, b) => a - b));
    expect(timeline.outageStart).toBe(0);
    expect(timeline.allCompleted).toBeGreaterThanOrEqual(timeline.halfOpen as number);
    expect(timeline.dependencyBack).toBeGreaterThanOrEqual(timeline.mappingDisabled as number);
    expect(timeline.detectionToDisabledMs).toBe(
      (timeline.mappingDisabled as number) - (timeline.outageDetected as number),
    );
    // The cool-down counts from the pause: the probe cannot come sooner.
    expect((timeline.halfOpen as number) - (timeline.breakerTripped as number)).toBeGreaterThanOrEqual(
      (OUTAGE.breakerCooldownSeconds as number) * 1000 - 1000,
    );
  });
});

describe('seed-variant-verified: the variant, then the operator answers not-done', () => {
  it('passes every judged figure, before and after the answer', () => {
    expectAllPassed(SEED_VARIANT_VERIFIED);
    const checks = (verdicts.get('seed-variant-verified') as Verdict).checks;
    expect(checks.filter((check) => check.section === 'operator').map((check) => check.figure)).toStrictEqual(
      ['pq verify M3: exit code', 'pq verify M3: task token printed'],
    );
    expect(checks.filter((check) => check.section === 'after the operator').length).toBeGreaterThanOrEqual(
      10,
    );
  });

  it("before the answer: the variant's figures, M3 awaiting an operator with its execution running", () => {
    expect(verified.settlement.settled).toBe(true);
    expect(verified.observed).toMatchObject({
      attemptsStarted: 5,
      completed: 4,
      quarantined: 1,
      leftInQueue: 0,
      quarantineReasons: { 'outcome-unknown': 1 },
      externalRequests: { M3: 1 },
      operations: { quarantineStatuses: { 'awaiting-operator': 1 }, executions: { RUNNING: 1 }, replays: {} },
    });
    expect(verified.observed.quarantine).toMatchObject([
      { id: 'M3', reason: 'outcome-unknown', status: 'awaiting-operator', attemptsStarted: 1 },
    ]);
  });

  it('runs pq verify --not-done through the CLI: answered, replayed once, no task token printed', () => {
    const [step] = verified.observed.operator ?? [];
    const id = verified.observed.quarantine[0].quarantineId;
    expect(step).toMatchObject({ quarantineId: id, exitCode: 0, stderr: [], tokenInOutput: false });
    expect(step.command.slice(0, 5)).toStrictEqual([
      'verify',
      id,
      '--not-done',
      '--reason',
      'checked the outside system: no order for M3 was booked',
    ]);
    expect(step.stdout.join('\n')).toMatch(
      new RegExp(`^Answered ${id}: not-done\\. Replayed once as message \\S+\\.`),
    );
    expect(step.replayedAs).toBeDefined();
  });

  it('after the answer: M3 completed after one replay, record replayed, execution succeeded, still 1 request', () => {
    expect(verified.afterOperator?.settlement.settled).toBe(true);
    const after = verified.observed.afterOperator;
    expect(after).toMatchObject({
      attemptsStarted: 6,
      completed: 5,
      quarantined: 1,
      leftInQueue: 0,
      // The replay is attempt 2, past "times": 1: plain success, no call to the outside system.
      externalRequests: { M3: 1 },
      operations: {
        charged: 0,
        quarantineStatuses: { replayed: 1 },
        replays: { M3: 1 },
        executions: { SUCCEEDED: 1 },
      },
    });
    expect(after?.messages.find((message) => message.id === 'M3')).toMatchObject({
      state: 'completed',
      attempts: 2,
      charged: 0,
    });
  });
});

describe('the report of both', () => {
  it('prints the timeline and the operator transcript, and the JSON carries them', () => {
    const results = [ran(outage), ran(verified)];
    const text = textReport(results, 1_000);
    expect(text).toContain('pause/resume timeline (ms from the outage start):');
    expect(text).toMatch(/outage detection -> mapping Disabled: \d+ ms/);
    expect(text).toMatch(/\$ pq verify q-\S+ --not-done --reason "checked the outside system/);
    expect(text).toContain("after the operator's answer:");
    expect(text).toMatch(/^PASS: 2 of 2 scenarios passed/m);

    const json = JSON.parse(jsonReport(results, 1_000));
    const [outageJson, verifiedJson] = json.scenarios;
    expect(Object.keys(outageJson.observed.timeline)).toEqual(
      expect.arrayContaining([...TIMELINE_ORDER, 'allCompleted', 'detectionToDisabledMs']),
    );
    expect(outageJson.observed).toMatchObject({ pauses: 1, charged: 0 });
    expect(verifiedJson.observed.operator[0]).toMatchObject({ exitCode: 0, tokenInOutput: false });
    expect(verifiedJson.observed.afterOperator).toMatchObject({ completed: 5, replays: { M3: 1 } });
    expect(json.pass).toBe(true);
  });
});
