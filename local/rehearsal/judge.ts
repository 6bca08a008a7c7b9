/**
 * Expected vs observed, figure by figure, plus the performance floor of a healthy message:
 * at most 2 DynamoDB writes, no DynamoDB read, no S3 call, and at most one DynamoDB round trip
 * before its work starts (the first write). A scenario passes when it settled and every check
 * holds; a floor violation fails it like a wrong total. Each injected fault must have fired
 * exactly its `times`: one that fired less did not test what the scenario says it tests.
 */
import type { FaultFiring } from '../faults/fault-run';
import { LOCAL_KAFKA_TOPIC } from '../sources/pipeline-source';
import type { Observed } from './observe';
import type { OperatorRun } from './operator';
import { type OutageTimeline, TIMELINE_ORDER } from './outage';
import type { ScenarioRun, Settlement } from './run-scenario';
import type { Count, ExpectedTotals, ScenarioFault } from './scenario';

export interface Check {
  readonly figure: string;
  readonly expected: string;
  readonly observed: string;
  readonly pass: boolean;
  /**
   * Where a scenario with operator steps has it: `operator` (the steps themselves) or
   * `after the operator` (the figures once their consequences settled). Absent: the run itself.
   */
  readonly section?: CheckSection;
}

export type CheckSection = 'operator' | 'after the operator';

export interface Verdict {
  readonly checks: readonly Check[];
  /** The floor's checks alone (also among `checks`). */
  readonly floor: readonly Check[];
  readonly pass: boolean;
}

export const FLOOR = { dynamodbWrites: 2, dynamodbReads: 0, s3: 0, roundTripsBeforeWork: 1 } as const;

export function judge(run: ScenarioRun): Verdict {
  const { expected, outage, operator } = run.scenario;
  const { observed, settlement } = run;
  const checks: Check[] = [settledCheck('settled', settlement), ...totalsChecks(expected, observed)];
  if (outage !== undefined) checks.push(timelineCheck(observed.timeline));
  // An outage holds partitions by design (rule 7); elsewhere only poison may, and only so long.
  if (observed.partitionsHeld !== undefined && outage === undefined)
    checks.push(
      partitionHoldCheck(run.scenario, observed.partitionsHeld, observed.partitionsHeldWithoutTime),
    );
  if (run.scenario.faults !== undefined) checks.push(...faultChecks(run.scenario.faults, run.faults));
  const floor = floorChecks(observed);
  checks.push(...floor);
  if (operator !== undefined) {
    const inSection = (section: CheckSection) => (check: Check) => ({ ...check, section });
    checks.push(...operatorChecks(observed.operator ?? []).map(inSection('operator')));
    const after = observed.afterOperator;
    const afterChecks =
      run.afterOperator === undefined || after === undefined || expected.afterOperator === undefined
        ? [
            {
              figure: 'observed',
              expected: 'yes',
              observed: 'no: the operator steps did not run',
              pass: false,
            },
          ]
        : [
            settledCheck('settled again', run.afterOperator.settlement),
            ...totalsChecks(expected.afterOperator, after),
          ];
    checks.push(...afterChecks.map(inSection('after the operator')));
  }
  return { checks, floor, pass: checks.every((check) => check.pass) };
}

function settledCheck(figure: string, settlement: Settlement): Check {
  return {
    figure,
    expected: `within ${settlement.timeoutSeconds} s`,
    observed: settlement.settled
      ? 'yes'
      : `no: ${[...settlement.unsettled, `queue ${settlement.queue.visible} visible, ${settlement.queue.inFlight} in flight, ${settlement.queue.delayed} delayed`].join('; ')}`,
    pass: settlement.settled,
  };
}

/** The figures of `expected` against what was observed; optional figures only where expected. */
function totalsChecks(expected: ExpectedTotals, observed: Observed): Check[] {
  const checks: Check[] = [
    atLeastOrEqual('attempts started', expected.attemptsStarted, observed.attemptsStarted),
    atLeastOrEqual('completed', expected.completed, observed.completed),
    atLeastOrEqual('quarantined', expected.quarantined, observed.quarantined),
    atLeastOrEqual('left in queue', expected.leftInQueue, observed.leftInQueue),
    ...(expected.backstop === undefined
      ? []
      : [atLeastOrEqual('in the backstop', expected.backstop, observed.backstop)]),
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
  // observe() reads these whenever the scenario expects one, so `operations` is there for them.
  const operations = observed.operations ?? {
    charged: Number.NaN,
    pauses: Number.NaN,
    quarantineStatuses: {},
    replays: {},
    executions: {},
  };
  if (expected.charged !== undefined) {
    checks.push(atLeastOrEqual('charged attempts (all messages)', expected.charged, operations.charged));
  }
  if (expected.pauses !== undefined) {
    checks.push(atLeastOrEqual('pauses (pause executions)', expected.pauses, operations.pauses));
  }
  if (expected.quarantineStatuses !== undefined) {
    checks.push(
      counts('quarantine record statuses', expected.quarantineStatuses, operations.quarantineStatuses),
    );
  }
  if (expected.replays !== undefined) {
    checks.push(counts('replays (ledger generation)', expected.replays, operations.replays));
  }
  if (expected.executions !== undefined) {
    checks.push(counts('state machine executions', expected.executions, operations.executions));
  }
  return checks;
}

/** Rule 7's story, told by the timeline: every step seen, each at or after the one before. */
function timelineCheck(timeline: OutageTimeline | undefined): Check {
  const figure = 'pause/resume timeline';
  const expected = 'every step, in order';
  if (timeline === undefined) return { figure, expected, observed: 'the outage never started', pass: false };
  const required = [...TIMELINE_ORDER, 'allCompleted'] as const;
  const missing = required.filter((step) => timeline[step] === null);
  if (missing.length > 0)
    return { figure, expected, observed: `not seen: ${missing.join(', ')}`, pass: false };
  const at = (step: keyof OutageTimeline) => timeline[step] as number;
  const pairs: [keyof OutageTimeline, keyof OutageTimeline][] = TIMELINE_ORDER.slice(1).map((step, index) => [
    TIMELINE_ORDER[index],
    step,
  ]);
  // Nothing completes while consumption is paused: the first completions come with the probe.
  pairs.push(['halfOpen', 'allCompleted']);
  const wrong = pairs.filter(([before, after]) => at(after) < at(before));
  return wrong.length === 0
    ? { figure, expected, observed: 'yes', pass: true }
    : {
        figure,
        expected,
        observed: `out of order: ${wrong.map(([before, after]) => `${after} (+${at(after)} ms) before ${before} (+${at(before)} ms)`).join('; ')}`,
        pass: false,
      };
}

function faultChecks(planned: readonly ScenarioFault[], fired: readonly FaultFiring[] | undefined): Check[] {
  return planned.map((fault, index) => {
    const times = fault.times ?? 1;
    const count = fired?.[index]?.fired;
    return {
      figure: `fired: ${describeFault(fault)}`,
      expected: String(times),
      observed: count === undefined ? 'not read' : String(count),
      pass: count === times,
    };
  });
}

/** "throttle at ledger.start (M1)": the kind, the point and the message it is restricted to. */
export function describeFault(fault: ScenarioFault): string {
  return `${fault.error} at ${fault.at}${fault.message === undefined ? '' : ` (${fault.message})`}`;
}

/** Each step ran, was answered (exit 0), and printed no task token. */
function operatorChecks(runs: readonly OperatorRun[]): Check[] {
  if (runs.length === 0)
    return [{ figure: 'operator steps', expected: 'run', observed: 'none ran', pass: false }];
  return runs.flatMap((run) => {
    const name = `pq verify ${run.step.verify}`;
    const exit: Check = {
      figure: `${name}: exit code`,
      expected: '0',
      observed: run.exitCode === null ? `not run: ${run.error ?? 'unknown'}` : String(run.exitCode),
      pass: run.exitCode === 0,
    };
    if (run.exitCode === null) return [exit];
    return [
      exit,
      {
        figure: `${name}: task token printed`,
        expected: 'no',
        observed: run.tokenInOutput ? 'YES (shown as <task token> above)' : 'no',
        pass: !run.tokenInOutput,
      },
    ];
  });
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

function atLeastOrEqual(figure: string, expected: Count, observed: number): Check {
  return {
    figure,
    expected: showCount(expected),
    observed: String(observed),
    pass: meets(expected, observed),
  };
}

function meets(expected: Count, observed: number): boolean {
  return typeof expected === 'number' ? observed === expected : observed >= expected.atLeast;
}

export function showCount(count: Count): string {
  return typeof count === 'number' ? String(count) : `>= ${count.atLeast}`;
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
  expected: Readonly<Partial<Record<string, Count>>>,
  observed: Readonly<Record<string, number>>,
): Check {
  const keys = [...new Set([...Object.keys(expected), ...Object.keys(observed)])].sort();
  const pass = keys.every((key) => meets(expected[key] ?? 0, observed[key] ?? 0));
  return { figure, expected: showCounts(expected), observed: showCounts(observed), pass };
}

export function showCounts(counts: Readonly<Partial<Record<string, Count>>>): string {
  const entries = Object.entries(counts).flatMap(([key, count]) =>
    count === undefined || count === 0 ? [] : [`${key} ${showCount(count)}`],
  );
  return entries.length === 0 ? 'none' : entries.join(', ');
}

/**
 * A Kafka source (issue 38): only a partition holding a record that crashes its worker may be
 * held, each such record for at most the attempt limit's invocations (the crashed ones: a
 * redelivery waits out the crashed attempt's lease within itself, then runs it; docs/behaviour.md,
 * "Kafka sources"); every other partition is never held. An invocation that said it had no time
 * left to wait for a lease is one more such a partition may be held, and the figure says so: the
 * machine was too slow for the bound, which is not the consumer breaking it.
 */
function partitionHoldCheck(
  scenario: ScenarioRun['scenario'],
  held: Readonly<Record<string, number>>,
  withoutTime: Readonly<Record<string, number>> = {},
): Check {
  const limit = scenario.limit ?? 3;
  const bound = new Map<string, number>();
  for (const message of scenario.messages.filter((candidate) => candidate.behaviour?.startsWith('crash'))) {
    const partition = `${LOCAL_KAFKA_TOPIC}-${message.partition ?? 0}`;
    bound.set(partition, (bound.get(partition) ?? 0) + limit);
  }
  const expected = [...bound].map(([partition, most]) => `${partition} <= ${most}`).join(', ');
  const slow = (partition: string) => (bound.has(partition) ? (withoutTime[partition] ?? 0) : 0);
  const observedText = Object.entries(held)
    .map(([partition, times]) =>
      slow(partition) === 0
        ? `${partition} ${times}`
        : `${partition} ${times} (${slow(partition)} with no time left to wait for a lease: too slow a machine for the bound)`,
    )
    .join(', ');
  return {
    figure: 'partitions held (invocations)',
    expected: expected === '' ? 'none' : `${expected}; no other`,
    observed: observedText === '' ? 'none' : observedText,
    pass: Object.entries(held).every(
      ([partition, times]) => times <= (bound.get(partition) ?? 0) + slow(partition),
    ),
  };
}
