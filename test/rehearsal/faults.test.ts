/**
 * Faults injected into the consumer's own AWS calls (sim/faults), run by the same code as
 * `npm run rehearsal -- --scenario FILE`: each of the six kinds fires at its point, counted
 * across every execution environment (a crash forks a fresh process that must not crash again),
 * and the report lists what fired. The scenario goes through the parser as a scenario file would.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { judge } from '../../local/rehearsal/judge';
import { jsonReport, ran, textReport } from '../../local/rehearsal/report';
import { runScenario, type ScenarioRun } from '../../local/rehearsal/run-scenario';
import { parseScenarios } from '../../local/rehearsal/scenario';

/**
 * One message per fault, so each outcome is told apart, and M7 untouched: the floor of a healthy
 * message is measured on it. Refused starts, crashes and "outcome unknown" are failure events of
 * rule 7; here only M1 and M5 make them, two keys, so no pause can blur the figures. The other
 * faults hit writes the consumer retries within the attempt (settle writes).
 */
const EACH_KIND = {
  name: 'faults-each-kind',
  messages: [
    { id: 'M1', behaviour: 'succeed' },
    { id: 'M2', behaviour: 'succeed' },
    { id: 'M3', behaviour: 'succeed' },
    { id: 'M4', behaviour: 'succeed-with-external' },
    { id: 'M5', behaviour: 'succeed' },
    { id: 'M6', behaviour: 'succeed' },
    { id: 'M7', behaviour: 'succeed' },
  ],
  limit: 3,
  batchSize: 1,
  inFlight: 1,
  environments: 1,
  // 3 s (visibility 18 s): a retried write needs a second left, the external call gets the rest
  // but a second; less, and a busy machine turns a slow invocation into a timeout, a third
  // failure event, and a pause.
  consumerTimeoutSeconds: 3,
  faults: [
    { at: 'ledger.start', error: 'throttle', message: 'M1' },
    { at: 'ledger.complete', error: 'server-error', times: 2, message: 'M2' },
    { at: 'ledger.complete', error: 'access-denied', message: 'M3' },
    { at: 'ledger.recordExternal:done', error: 'timeout-after-send', message: 'M4' },
    { at: 'ledger.complete', error: 'crash', message: 'M5' },
    { at: 'ledger.complete', error: 'crash-after-send', message: 'M6' },
  ],
  expected: {
    attemptsStarted: 8,
    completed: 7,
    quarantined: 0,
    leftInQueue: 0,
    quarantineReasons: {},
    externalRequests: { M4: 1 },
    noHumanNeededFor: ['M1', 'M2', 'M3', 'M4', 'M5', 'M6', 'M7'],
    charged: 1,
  },
};

let run: ScenarioRun;

beforeAll(async () => {
  const [scenario] = parseScenarios(JSON.parse(JSON.stringify(EACH_KIND)), 'faults.test.ts');
  run = await runScenario(scenario);
}, 150_000);

const message = (id: string) => run.observed.messages.find((entry) => entry.id === id);

describe('each fault kind fires at its point, counted across processes', () => {
  it('fires every fault exactly its times, and the scenario passes as a whole', () => {
    expect(run.settlement.settled).toBe(true);
    expect(run.faults?.map((fault) => [fault.at, fault.error, fault.message, fault.fired])).toStrictEqual([
      ['ledger.start', 'throttle', 'M1', 1],
      ['ledger.complete', 'server-error', 'M2', 2],
      ['ledger.complete', 'access-denied', 'M3', 1],
      ['ledger.recordExternal:done', 'timeout-after-send', 'M4', 1],
      ['ledger.complete', 'crash', 'M5', 1],
      ['ledger.complete', 'crash-after-send', 'M6', 1],
    ]);
    expect(judge(run).checks.filter((check) => !check.pass)).toStrictEqual([]);
  });

  it('refuses the work while ledger.start fails (rule 1): the redelivery is the first attempt', () => {
    expect(message('M1')).toMatchObject({ state: 'completed', attempts: 1, charged: 0 });
  });

  it('finishes an attempt whose completion or external result failed to write, without repeating the call', () => {
    for (const id of ['M2', 'M3', 'M4']) {
      expect(message(id)).toMatchObject({ state: 'completed', attempts: 1, charged: 0 });
    }
    // Rule 8: the outside system answered before the "done" write timed out; it is not asked again.
    expect(run.observed.externalRequests).toStrictEqual({ M4: 1 });
  });

  it('kills the worker once before ledger.complete; the fresh process completes the message (rule 5)', () => {
    // A count kept in one process's memory would crash every fresh process until the limit.
    expect(message('M5')).toMatchObject({ state: 'completed', attempts: 2, charged: 1 });
  });

  it('kills the worker after ledger.complete landed: the redelivery is a duplicate (rule 13)', () => {
    expect(message('M6')).toMatchObject({ state: 'completed', attempts: 1, charged: 0 });
  });

  it('leaves a message no fault names alone: M7 is measured within the floor', () => {
    expect(run.observed.healthyMessages).toStrictEqual(['M7']);
  });

  it('lists the faults in the text and JSON reports: point, kind, times fired', () => {
    const text = textReport([ran(run)], 0);
    expect(text).toContain('fault: server-error at ledger.complete (M2), 2 times across every worker');
    expect(text).toMatch(/\[ok\] +fired: crash at ledger\.complete \(M5\) +1 +1/);
    const [json] = JSON.parse(jsonReport([ran(run)], 0)).scenarios;
    expect(json.faults[1]).toStrictEqual({
      at: 'ledger.complete',
      error: 'server-error',
      times: 2,
      message: 'M2',
      fired: 2,
    });
  });
});
