/**
 * The rehearsal's judgement of a Kafka partition's holds (local/rehearsal/judge.ts, issue 38): a
 * partition holding a record that crashes its worker may be held for the attempt limit's
 * invocations, plus one for each invocation that said it had no time left to wait for a lease
 * (the machine, not the consumer); every other partition never.
 */
import { describe, expect, it } from 'vitest';
import { judge } from '../../local/rehearsal/judge';
import type { ScenarioRun } from '../../local/rehearsal/run-scenario';

/** Totals that meet each other: only the holds are judged here. */
const NO_TOTALS = {
  attemptsStarted: 0,
  completed: 0,
  quarantined: 0,
  leftInQueue: 0,
  quarantineReasons: {},
  externalRequests: {},
};

/** A finished incident run with only what the judgement reads. */
function incident(held: Record<string, number>, withoutTime?: Record<string, number>): ScenarioRun {
  return {
    scenario: {
      name: 'incident',
      limit: 3,
      messages: [
        { label: 'P1-6', partition: 1 },
        { label: 'P1-7', partition: 1, behaviour: 'crash' },
      ],
      expected: NO_TOTALS,
    },
    settlement: { settled: true, timeoutSeconds: 60 },
    observed: {
      ...NO_TOTALS,
      callsPerHealthyMessage: null,
      partitionsHeld: held,
      ...(withoutTime === undefined ? {} : { partitionsHeldWithoutTime: withoutTime }),
    },
  } as unknown as ScenarioRun;
}

const holdCheck = (run: ScenarioRun) =>
  judge(run).checks.find((check) => check.figure === 'partitions held (invocations)');

describe("the judgement of a Kafka incident's holds", () => {
  it("given the crashing record's partition held for the limit's invocations, then it passes", () => {
    expect(holdCheck(incident({ 'orders-1': 3 }))).toStrictEqual({
      figure: 'partitions held (invocations)',
      expected: 'orders-1 <= 3; no other',
      observed: 'orders-1 3',
      pass: true,
    });
  });

  it('given one invocation more, then it fails: the bound is the limit', () => {
    expect(holdCheck(incident({ 'orders-1': 4 }))?.pass).toBe(false);
  });

  it('given one more that said it had no time left to wait for a lease, then it passes and says why', () => {
    expect(holdCheck(incident({ 'orders-1': 4 }, { 'orders-1': 1 }))).toMatchObject({
      observed: 'orders-1 4 (1 with no time left to wait for a lease: too slow a machine for the bound)',
      pass: true,
    });
  });

  it('given another partition held, then it fails, whatever was said about time', () => {
    expect(holdCheck(incident({ 'orders-1': 3, 'orders-2': 1 }, { 'orders-2': 1 }))?.pass).toBe(false);
  });
});
