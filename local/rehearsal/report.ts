/**
 * The rehearsal's report: for a person, one block per scenario with every figure expected vs
 * observed and a mark; for a program (`--json`), one JSON document.
 */
import { DEFAULTS } from '../../contract/defaults';
import { type IsolationTrialView, SAMPLE_MS } from './isolation-watch';
import { type Check, describeFault, judge, showCounts, type Verdict } from './judge';
import type { Observed } from './observe';
import { showCommand } from './operator';
import { type OutageTimeline, outageLength } from './outage';
import type { ScenarioRun } from './run-scenario';
import { messageBody, type Scenario, type ScenarioMessage, TIMEOUT_SCALE_OPTION } from './scenario';

/** A scenario that ran to its end, or one that could not run (its error). */
export type ScenarioResult =
  | { readonly kind: 'ran'; readonly run: ScenarioRun; readonly verdict: Verdict }
  | { readonly kind: 'failed'; readonly scenario: Scenario; readonly error: string };

export function ran(run: ScenarioRun): ScenarioResult {
  return { kind: 'ran', run, verdict: judge(run) };
}

export function passed(result: ScenarioResult): boolean {
  return result.kind === 'ran' && result.verdict.pass;
}

export function textReport(results: readonly ScenarioResult[], wallMs: number): string {
  const blocks = results.map((result) => (result.kind === 'ran' ? runBlock(result) : failedBlock(result)));
  const passing = results.filter(passed).length;
  const summary = `${passing} of ${results.length} scenarios passed in ${seconds(wallMs)} (scenarios run concurrently).`;
  return `${blocks.join('\n\n')}\n\n${passing === results.length ? 'PASS' : 'FAIL'}: ${summary}\n`;
}

function runBlock({ run, verdict }: Extract<ScenarioResult, { kind: 'ran' }>): string {
  const { scenario, observed } = run;
  const main = verdict.checks.filter(
    (check) => check.section === undefined && !verdict.floor.includes(check),
  );
  const operatorSettled = run.afterOperator
    ? `; the operator's answer settled ${seconds(run.afterOperator.runMs)} after it was given`
    : '';
  const lines = [
    `${verdict.pass ? 'PASS' : 'FAIL'}  scenario "${scenario.name}"  (pipeline up in ${seconds(run.startupMs)}, ` +
      `settled ${seconds(run.runMs)} after the first send${operatorSettled})`,
    `  ${describeSetup(scenario)}`,
    ...describeOperations(scenario).map((line) => `  ${line}`),
    '',
    ...(scenario.operator ? ["  before the operator's answer:"] : []),
    tableHeader(),
    ...main.map(checkLine),
    '',
    ...stateLines(observed),
    '',
    ...(observed.timeline ? [...timelineLines(observed.timeline), ''] : []),
    ...(observed.isolation ? [...isolationLines(observed.isolation), ''] : []),
    ...(scenario.operator ? [...operatorLines(observed, verdict), ''] : []),
    ...(scenario.notes ? [...scenario.notes.map((note) => `  note: ${note}`), ''] : []),
    ...deadlineLines(run, verdict),
    ...floorLines(run, verdict),
  ];
  return lines.join('\n');
}

/** The widths of the table's figure and expected columns. */
const FIGURE_WIDTH = 37;
const EXPECTED_WIDTH = 22;

function tableHeader(): string {
  return `  ${pad('', 7)}${pad('figure', FIGURE_WIDTH)}${pad('expected', EXPECTED_WIDTH)}observed`;
}

function stateLines(observed: Observed): string[] {
  return [
    `  messages:     ${observed.messages.map((message) => `${message.id} ${message.state} (${plural(message.attempts, 'attempt')}, ${message.charged} charged, ${plural(message.receives, 'receive')})`).join('; ')}`,
    `  quarantine:   ${
      observed.quarantine.length === 0
        ? 'none'
        : observed.quarantine
            .map(
              (record) =>
                `${record.id} "${record.reason}" (${record.status}, ${record.quarantineId}, ${plural(record.attemptsStarted, 'attempt')} started, ${record.attemptsCharged} charged)`,
            )
            .join('; ')
    }`,
    `  backstop:     ${plural(observed.backstop, 'message')} (the source queue's dead-letter queue: visible, in flight or delayed)`,
    `  external requests per message: ${showCounts(observed.externalRequests)}`,
  ];
}

const TIMELINE_ROWS: readonly [keyof OutageTimeline, string][] = [
  ['outageStart', 'outage starts: the outside system answers 503'],
  ['firstFailure', 'first failure (failure event, control table)'],
  ['outageDetected', 'outage detected (consumer log)'],
  ['breakerTripped', 'breaker tripped, pause started (consumer log)'],
  ['mappingDisabled', "mapping Disabled (the runner's reading)"],
  ['dependencyBack', 'outside system back: answers 200'],
  ['halfOpen', 'half-open: the probe (breaker item halfOpenAt)'],
  ['resumed', 'resumed: mapping restored, breaker closed (closedAt)'],
  ['allCompleted', 'all completed (latest completion, ledger)'],
];

/** The steps in the order they happened (a step not seen last), then the durations that matter. */
function timelineLines(timeline: OutageTimeline): string[] {
  const rows = TIMELINE_ROWS.map(([step, label]) => ({ label, at: timeline[step] }));
  const seen = rows.filter((row) => row.at !== null).sort((a, b) => (a.at as number) - (b.at as number));
  const unseen = rows.filter((row) => row.at === null);
  const span = (from: number | null, to: number | null) =>
    from === null || to === null ? 'n/a' : `${to - from} ms`;
  return [
    '  pause/resume timeline (ms from the outage start):',
    ...seen.map((row) => `    ${pad(row.label, 56)}${`+${row.at}`.padStart(8)} ms`),
    ...unseen.map((row) => `    ${pad(row.label, 56)}${'not seen'.padStart(11)}`),
    `    outage detection -> mapping Disabled: ${timeline.detectionToDisabledMs === null ? 'n/a' : `${timeline.detectionToDisabledMs} ms`}; ` +
      `paused (mapping Disabled -> half-open): ${span(timeline.mappingDisabled, timeline.halfOpen)}; ` +
      `half-open -> resumed: ${span(timeline.halfOpen, timeline.resumed)}`,
  ];
}

/** Each trial's start, restarts and end (rule 6), as the control table showed them. */
function isolationLines(trials: readonly IsolationTrialView[]): string[] {
  return [
    `  isolation trials (ms from the first send; ends as first seen, reading the control table every ${SAMPLE_MS} ms):`,
    ...trials.map(
      (trial) =>
        `    started +${trial.startedAt} ms (${trial.reason})` +
        trial.restartedAt.map((at) => `, restarted +${at} ms`).join('') +
        (trial.endedBy === null ? ', still running' : `, ended by +${trial.endedBy} ms`),
    ),
  ];
}

/** What the operator ran, what the CLI printed (never a task token), and the figures afterwards. */
function operatorLines(observed: Observed, verdict: Verdict): string[] {
  const lines = ['  operator (the CLI in-process: runCli from cli/run.ts):'];
  for (const run of observed.operator ?? []) {
    if (run.command.length === 0) {
      lines.push(`  pq verify for ${run.step.verify}: not run (${run.error ?? 'unknown'})`);
      continue;
    }
    lines.push(`  $ pq ${showCommand(run.command)}`);
    lines.push(...run.stdout.map((line) => `  | ${line}`), ...run.stderr.map((line) => `  ! ${line}`));
    lines.push(`  [exit ${run.exitCode}]`);
  }
  lines.push(...verdict.checks.filter((check) => check.section === 'operator').map(checkLine));
  lines.push('', "  after the operator's answer:", tableHeader());
  lines.push(...verdict.checks.filter((check) => check.section === 'after the operator').map(checkLine));
  if (observed.afterOperator) lines.push('', ...stateLines(observed.afterOperator));
  return lines;
}

/**
 * How near this machine came to the deadline: the slowest invocation that answered, and the kills.
 * A failure the machine's speed may have caused says so: figures a kill changes (a charged crash,
 * an outcome-unknown record) do not tell it by themselves.
 */
function deadlineLines(run: ScenarioRun, verdict: Verdict): string[] {
  const killed = run.killedAtDeadline;
  const deadline = `${run.scenario.consumerTimeoutSeconds} s`;
  const slowest =
    run.slowestAnsweredMs === 0
      ? 'no invocation answered'
      : `the slowest invocation that answered took ${seconds(run.slowestAnsweredMs)} of its ${deadline}`;
  const margin = `  deadline: ${slowest}; invocations killed: ${killed}`;
  if (verdict.pass || killed === 0) return [margin, ''];
  return [
    margin,
    `  ${killed === 1 ? '1 invocation was killed at its' : `${killed} invocations were killed at their`} ` +
      `${deadline} deadline: this machine was too slow for this scenario's timings; ` +
      `rerun on a quieter machine or with \`npm run rehearsal -- --${TIMEOUT_SCALE_OPTION} 2\``,
    '',
  ];
}

function floorLines(run: ScenarioRun, verdict: Verdict): string[] {
  const calls = run.observed.callsPerHealthyMessage;
  if (calls === null)
    return ['  calls per healthy message: not measured (no message completed on its first plain attempt)'];
  return [
    `  calls per healthy message (the most any of ${run.observed.healthyMessages.join(', ')} made), against the floor:`,
    ...verdict.floor.map(checkLine),
    `  ${pad('', 7)}${pad('SQS / Step Functions calls', FIGURE_WIDTH)}${pad('(no floor)', EXPECTED_WIDTH)}${calls.sqs} / ${calls.sfn}`,
    `  round trips before work: ${run.observed.roundTripsBeforeWork} (derived, not timed: the consumer logs calls per record, not`,
    "  when the work starts; a healthy message's only call after its work is the completion write, so the rest came before it)",
    ...slowLine(run.observed.slowHealthyMessages),
  ];
}

/** Says so when the machine was too slow for some healthy messages to be measured. */
function slowLine(slow: readonly string[]): string[] {
  return slow.length === 0
    ? []
    : [
        `  left out as too slow to measure on this machine: ${slow.join(', ')} (each ran longer than a third of its`,
        "  attempt's lease and renewed it, a write a quick record never makes)",
      ];
}

function failedBlock(result: Extract<ScenarioResult, { kind: 'failed' }>): string {
  return [
    `FAIL  scenario "${result.scenario.name}": could not run`,
    `  ${describeSetup(result.scenario)}`,
    `  ${result.error.split('\n').join('\n  ')}`,
  ].join('\n');
}

function describeSetup(scenario: Scenario): string {
  const messages = scenario.messages.map(describeMessage).join(', ');
  return (
    `${messages}; batch size ${scenario.batchSize}, ${scenario.inFlight} in flight per worker, ` +
    `${plural(scenario.environments, 'worker')}, limit ${scenario.limit}, consumer timeout ${scenario.consumerTimeoutSeconds} s ` +
    `(visibility ${scenario.consumerTimeoutSeconds * 6} s)` +
    (scenario.messageKey === 'id' ? ', message key: the body\'s "id"' : '') +
    describeSettings(scenario)
  );
}

function describeMessage(message: ScenarioMessage): string {
  if (message.behaviour === undefined)
    return `${message.id} raw body (${Buffer.byteLength(messageBody(message))} bytes)`;
  return (
    `${message.id} ${message.behaviour}${message.times === undefined ? '' : ` x${message.times}`}` +
    (message.idempotencyKey === undefined ? '' : ` key ${JSON.stringify(message.idempotencyKey)}`)
  );
}

/** The rule 6 and 7 settings a scenario gives (with an outage, the breaker's are on its own line). */
function describeSettings(scenario: Scenario): string {
  const settings = [
    scenario.isolationTrialMessages === undefined
      ? undefined
      : `isolation trial ${plural(scenario.isolationTrialMessages, 'message')}`,
    scenario.outageFailureThreshold === undefined && scenario.outageWindowSeconds === undefined
      ? undefined
      : `outage: ${scenario.outageFailureThreshold ?? DEFAULTS.outageFailureThreshold} failing messages within ` +
        `${scenario.outageWindowSeconds ?? DEFAULTS.outageWindowSeconds} s`,
    ...(scenario.outage === undefined ? breakerSettings(scenario) : []),
  ].filter((setting) => setting !== undefined);
  return settings.map((setting) => `, ${setting}`).join('');
}

function breakerSettings(scenario: Scenario): string[] {
  const given = [
    ['cool-down', scenario.breakerCooldownSeconds],
    ['cool-down cap', scenario.breakerMaxCooldownSeconds],
    ['probe window', scenario.breakerProbeWindowSeconds],
  ] as const;
  const parts = given.flatMap(([name, value]) => (value === undefined ? [] : [`${name} ${value} s`]));
  return parts.length === 0 ? [] : [`breaker ${parts.join(', ')}`];
}

/** The outage, the faults and the operator's steps, one line each; nothing for a scenario without them. */
function describeOperations(scenario: Scenario): string[] {
  const lines: string[] = [];
  const { outage } = scenario;
  if (outage !== undefined) {
    const from =
      outage.startAfterMs === 0
        ? 'from the first send'
        : `${seconds(outage.startAfterMs)} after the first send`;
    lines.push(
      `outage: the outside system answers 503 ${from} ${outageLength(outage)}, then 200` +
        breakerSettings(scenario)
          .map((setting) => `; ${setting}`)
          .join(''),
    );
  }
  for (const fault of scenario.faults ?? []) {
    const times = fault.times ?? 1;
    lines.push(
      `fault: ${describeFault(fault)}, ${times} ${times === 1 ? 'time' : 'times'} across every worker`,
    );
  }
  for (const step of scenario.operator ?? []) {
    lines.push(
      `operator: once ${step.verify} awaits an operator, pq verify <its record> --${step.decision} --reason ${JSON.stringify(step.reason)}`,
    );
  }
  return lines;
}

function checkLine(check: Check): string {
  const mark = `  ${pad(check.pass ? '[ok]' : '[FAIL]', 6)} `;
  const underExpected = ' '.repeat(mark.length + FIGURE_WIDTH);
  // A figure too long for its column (a fault's name): its values go under their columns below.
  const start =
    check.figure.length >= FIGURE_WIDTH
      ? `${mark}${check.figure}\n${underExpected}`
      : `${mark}${pad(check.figure, FIGURE_WIDTH)}`;
  // An expected figure too long for its column: the observed one goes under its own column.
  if (check.expected.length >= EXPECTED_WIDTH)
    return `${start}${check.expected}\n${underExpected}${' '.repeat(EXPECTED_WIDTH)}${check.observed}`;
  return `${start}${pad(check.expected, EXPECTED_WIDTH)}${check.observed}`;
}

/** The `--json` document: exactly one object, `{ "scenarios": [...] }`. */
export function jsonReport(results: readonly ScenarioResult[], wallMs: number): string {
  const scenarios = results.map((result) => {
    if (result.kind === 'failed') {
      const { name, expected } = result.scenario;
      return { name, expected, observed: null, pass: false, error: result.error };
    }
    const { run, verdict } = result;
    const { observed, scenario } = run;
    return {
      name: scenario.name,
      ...(scenario.outage ? { outage: scenario.outage } : {}),
      ...(scenario.operator ? { operator: scenario.operator } : {}),
      ...(scenario.faults ? { faults: faultsJson(scenario, run.faults) } : {}),
      expected: scenario.expected,
      observed: {
        ...observedJson(observed),
        ...(observed.timeline ? { timeline: observed.timeline } : {}),
        ...(observed.partitionsHeld ? { partitionsHeld: observed.partitionsHeld } : {}),
        ...(observed.operator
          ? {
              operator: observed.operator.map((step) => ({
                verify: step.step.verify,
                decision: step.step.decision,
                quarantineId: step.quarantineId,
                command: step.command.length === 0 ? null : `pq ${showCommand(step.command)}`,
                exitCode: step.exitCode,
                stdout: step.stdout,
                stderr: step.stderr,
                tokenInOutput: step.tokenInOutput,
                ...(step.replayedAs === undefined ? {} : { replayedAs: step.replayedAs }),
                ...(step.error === undefined ? {} : { error: step.error }),
              })),
            }
          : {}),
        ...(observed.afterOperator ? { afterOperator: observedJson(observed.afterOperator) } : {}),
      },
      ...(run.deployedIn ? { deployedIn: run.deployedIn } : {}),
      pass: verdict.pass,
      settled: run.settlement.settled,
      killedAtDeadline: run.killedAtDeadline,
      ...(run.afterOperator ? { settledAfterOperator: run.afterOperator.settlement.settled } : {}),
      checks: verdict.checks,
      timings: {
        startupMs: run.startupMs,
        runMs: run.runMs,
        slowestAnsweredMs: run.slowestAnsweredMs,
        ...(run.afterOperator ? { afterOperatorMs: run.afterOperator.runMs } : {}),
      },
    };
  });
  return `${JSON.stringify({ scenarios, pass: results.every(passed), wallMs }, null, 2)}\n`;
}

/** Each planned fault, its `times` defaulted, with how many times it fired (null: not read). */
function faultsJson(scenario: Scenario, fired: ScenarioRun['faults']) {
  return (scenario.faults ?? []).map((fault, index) => ({
    at: fault.at,
    error: fault.error,
    times: fault.times ?? 1,
    ...(fault.message === undefined ? {} : { message: fault.message }),
    fired: fired?.[index]?.fired ?? null,
  }));
}

/** The figures of one look at the pipeline, in the order the seed's report has always had them. */
function observedJson(observed: Observed) {
  return {
    attemptsStarted: observed.attemptsStarted,
    completed: observed.completed,
    quarantined: observed.quarantined,
    leftInQueue: observed.leftInQueue,
    quarantineReasons: observed.quarantineReasons,
    externalRequests: observed.externalRequests,
    callsPerHealthyMessage: observed.callsPerHealthyMessage,
    roundTripsBeforeWork: observed.roundTripsBeforeWork,
    healthyMessages: observed.healthyMessages,
    slowHealthyMessages: observed.slowHealthyMessages,
    completedWithoutPerson: observed.completedWithoutPerson,
    quarantine: observed.quarantine,
    messages: observed.messages,
    backstop: observed.backstop,
    ...(observed.operations ?? {}),
    ...(observed.isolation ? { isolation: observed.isolation } : {}),
  };
}

function pad(text: string, width: number): string {
  return text.length >= width ? `${text} ` : text.padEnd(width);
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
