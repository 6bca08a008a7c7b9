/**
 * Acceptance 2 and 4 (docs/behaviour.md): the seed's rehearsal and its variant, run by the same
 * code as `npm run rehearsal`, each on its own pipeline, concurrently. Real SIGKILLs; the
 * figures come from the ledger, the quarantine table, the queue and the outside system.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { SEED, SEED_VARIANT } from '../../local/rehearsal/default-scenarios';
import { FLOOR, judge } from '../../local/rehearsal/judge';
import { runScenarios, type ScenarioRun } from '../../local/rehearsal/run-scenario';

let seed: ScenarioRun;
let variant: ScenarioRun;

// The seed waits out three crashes, a visibility timeout (6x its 5 s consumer timeout) each.
beforeAll(async () => {
  const outcomes = await runScenarios([SEED, SEED_VARIANT]);
  for (const outcome of outcomes) if (outcome.error) throw outcome.error;
  [seed, variant] = outcomes.map((outcome) => outcome.run as ScenarioRun);
}, 300_000);

describe('the seed rehearsal: M3 crashes the parser, one message in flight, limit 3', () => {
  it('settles with exactly 7 attempts started, 4 completed, 1 quarantined (crash-limit), 0 left', () => {
    expect(seed.settlement.settled).toBe(true);
    expect(seed.observed).toMatchObject({
      attemptsStarted: 7,
      completed: 4,
      quarantined: 1,
      leftInQueue: 0,
      quarantineReasons: { 'crash-limit': 1 },
      externalRequests: {},
    });
  });

  it('charges M3 three attempts and quarantines it at its fourth receive without a fourth attempt; M4 and M5 need nobody', () => {
    expect(seed.observed.messages.find((message) => message.id === 'M3')).toMatchObject({
      state: 'quarantined',
      attempts: 3,
      charged: 3,
      receives: 4,
    });
    // Issue 22, defect 14: the receive counts and the backstop are read from the run itself.
    expect(seed.observed.messages.filter((message) => message.receives === 1)).toHaveLength(4);
    expect(seed.observed.backstop).toBe(0);
    expect(seed.observed.quarantine).toMatchObject([
      { id: 'M3', reason: 'crash-limit', status: 'open', attemptsStarted: 3 },
    ]);
    expect(seed.observed.completedWithoutPerson).toEqual(expect.arrayContaining(['M4', 'M5']));
    expect(judge(seed).pass).toBe(true);
  });
});

describe('the variant: M3 crashes after sending its external request', () => {
  it('settles with exactly 5 attempts started, 4 completed, 1 quarantined as outcome-unknown', () => {
    expect(variant.settlement.settled).toBe(true);
    expect(variant.observed).toMatchObject({
      attemptsStarted: 5,
      completed: 4,
      quarantined: 1,
      leftInQueue: 0,
      quarantineReasons: { 'outcome-unknown': 1 },
    });
    // At the first delivery after the crash: one attempt, nothing charged, a person is asked.
    expect(variant.observed.quarantine).toMatchObject([
      { id: 'M3', reason: 'outcome-unknown', status: 'awaiting-operator', attemptsStarted: 1 },
    ]);
  });

  it('sees exactly one external request for M3 and none for anyone else (acceptance 4)', () => {
    expect(variant.observed.externalRequests).toStrictEqual({ M3: 1 });
    expect(judge(variant).pass).toBe(true);
  });
});

describe('the cost of a healthy message', () => {
  it.each([
    ['seed', () => seed],
    ['seed-variant', () => variant],
  ])('%s: every healthy message stays within the floor', (_name, run) => {
    const { observed } = run();
    expect(observed.healthyMessages).toEqual(['M1', 'M2', 'M4', 'M5']);
    const calls = observed.callsPerHealthyMessage;
    expect(calls?.dynamodbWrites).toBeLessThanOrEqual(FLOOR.dynamodbWrites);
    expect(calls).toMatchObject({ dynamodbReads: 0, s3: 0, sqs: 0, sfn: 0 });
    expect(observed.roundTripsBeforeWork).toBe(1);
  });
});
