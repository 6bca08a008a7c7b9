/**
 * Expected vs observed, figure by figure, plus the performance floor of a healthy message:
 * at most 2 DynamoDB writes, no DynamoDB read, no S3 call, and at most one DynamoDB round trip
 * before its work starts (the first write). A scenario passes when it settled and every check
 * holds; a floor violation fails it like a wrong total.
 */
import type { Observed } from './observe';
import type { ScenarioRun } from './run-scenario';

export interface Check {
  readonly figure: string;
  readonly expected: string;
  readonly observed: string;
  readonly pass: boolean;
}

export interface Verdict {
  readonly checks: readonly Check[];
  /** The floor's checks alone (also among `checks`). */
  readonly floor: readonly Check[];
  readonly pass: boolean;
}

export const FLOOR = { dynamodbWrites: 2, dynamodbReads: 0, s3: 0, roundTripsBeforeWork: 1 } as const;

export function judge(run: ScenarioRun): Verdict {
  const { expected } = run.scenario;
  const { observed, settlement } = run;
  const checks: Check[] = [
    {
      figure: 'settled',
      expected: `within ${settlement.timeoutSeconds} s`,
      observed: settlement.settled
        ? 'yes'
        : `no: ${[...settlement.unsettled, `queue ${settlement.queue.visible} visible, ${settlement.queue.inFlight} in flight, ${settlement.queue.delayed} delayed`].join('; ')}`,
      pass: settlement.settled,
    },
    equal('attempts started', expected.attemptsStarted, observed.attemptsStarted),
    equal('completed', expected.completed, observed.completed),
    equal('quarantined', expected.quarantined, observed.quarantined),
    equal('left in queue', expected.leftInQueue, observed.leftInQueue),
    counts('quarantine reasons', expected.quarantineReasons, observed.quarantineReasons),
    counts('external requests', expected.externalRequests, observed.externalRequests),
  ];
  if (expected.noHumanNeededFor !== undefined) {
    const missing = expected.noHumanNeededFor.filter((id) => !observed.completedWithoutPerson.includes(id));
    checks.push({
      figure: 'completed without a person',
      expected: expected.noHumanNeededFor.join(', ') || 'none',
      observed: missing.length === 0 ? expected.noHumanNeededFor.join(', ') : `not: ${missing.join(', ')}`,
      pass: missing.length === 0,
    });
  }
  const floor = floorChecks(observed);
  checks.push(...floor);
  return { checks, floor, pass: checks.every((check) => check.pass) };
}

function floorChecks(observed: Observed): Check[] {
  const calls = observed.callsPerHealthyMessage;
  if (calls === null) {
    return [{ figure: 'floor', expected: 'measured', observed: 'no healthy message to measure', pass: true }];
  }
  const roundTrips = observed.roundTripsBeforeWork ?? Number.NaN;
  return [
    atMost('DynamoDB writes per healthy message', FLOOR.dynamodbWrites, calls.dynamodbWrites),
    atMost('DynamoDB reads per healthy message', FLOOR.dynamodbReads, calls.dynamodbReads),
    atMost('S3 calls per healthy message', FLOOR.s3, calls.s3),
    atMost('round trips before work', FLOOR.roundTripsBeforeWork, roundTrips),
  ];
}

function equal(figure: string, expected: number, observed: number): Check {
  return { figure, expected: String(expected), observed: String(observed), pass: expected === observed };
}

function atMost(figure: string, limit: number, observed: number): Check {
  return {
    figure,
    expected: limit === 0 ? '0' : `<= ${limit}`,
    observed: String(observed),
    pass: observed <= limit,
  };
}

/** Count maps compare without their zero entries: `{}` and `{ M1: 0 }` say the same. */
function counts(
  figure: string,
  expected: Readonly<Record<string, number>>,
  observed: Readonly<Record<string, number>>,
) {
  const keys = [...new Set([...Object.keys(expected), ...Object.keys(observed)])].sort();
  const pass = keys.every((key) => (expected[key] ?? 0) === (observed[key] ?? 0));
  return { figure, expected: showCounts(expected), observed: showCounts(observed), pass };
}

export function showCounts(counts: Readonly<Record<string, number>>): string {
  const entries = Object.entries(counts).filter(([, count]) => count > 0);
  return entries.length === 0 ? 'none' : entries.map(([key, count]) => `${key} ${count}`).join(', ');
}
