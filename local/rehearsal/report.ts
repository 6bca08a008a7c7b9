/**
 * The rehearsal's report: for a person, one block per scenario with every figure expected vs
 * observed and a mark; for a program (`--json`), one JSON document.
 */
import { type Check, judge, showCounts, type Verdict } from './judge';
import type { ScenarioRun } from './run-scenario';
import type { Scenario } from './scenario';

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
  const lines = [
    `${verdict.pass ? 'PASS' : 'FAIL'}  scenario "${scenario.name}"  (pipeline up in ${seconds(run.startupMs)}, ` +
      `settled ${seconds(run.runMs)} after the first send)`,
    `  ${describeSetup(scenario)}`,
    '',
    `  ${pad('', 7)}${pad('figure', 37)}${pad('expected', 22)}observed`,
    ...verdict.checks.filter((check) => !verdict.floor.includes(check)).map(checkLine),
    '',
    `  messages:     ${observed.messages.map((message) => `${message.id} ${message.state} (${plural(message.attempts, 'attempt')}, ${message.charged} charged)`).join('; ')}`,
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
    `  external requests per message: ${showCounts(observed.externalRequests)}`,
    '',
    ...floorLines(run, verdict),
  ];
  return lines.join('\n');
}

function floorLines(run: ScenarioRun, verdict: Verdict): string[] {
  const calls = run.observed.callsPerHealthyMessage;
  if (calls === null)
    return ['  calls per healthy message: not measured (no message completed on its first plain attempt)'];
  return [
    `  calls per healthy message (the most any of ${run.observed.healthyMessages.join(', ')} made), against the floor:`,
    ...verdict.floor.map(checkLine),
    `  ${pad('', 7)}${pad('SQS / Step Functions calls', 37)}${pad('(no floor)', 22)}${calls.sqs} / ${calls.sfn}`,
    `  round trips before work: ${run.observed.roundTripsBeforeWork} (derived, not timed: the consumer logs calls per record, not`,
    "  when the work starts; a healthy message's only call after its work is the completion write, so the rest came before it)",
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
  const messages = scenario.messages
    .map(
      (message) =>
        `${message.id} ${message.behaviour}${message.times === undefined ? '' : ` x${message.times}`}`,
    )
    .join(', ');
  return (
    `${messages}; batch size ${scenario.batchSize}, ${scenario.inFlight} in flight per worker, ` +
    `${plural(scenario.environments, 'worker')}, limit ${scenario.limit}, consumer timeout ${scenario.consumerTimeoutSeconds} s ` +
    `(visibility ${scenario.consumerTimeoutSeconds * 6} s)`
  );
}

function checkLine(check: Check): string {
  return `  ${pad(check.pass ? '[ok]' : '[FAIL]', 6)} ${pad(check.figure, 37)}${pad(check.expected, 22)}${check.observed}`;
}

/** The `--json` document: exactly one object, `{ "scenarios": [...] }`. */
export function jsonReport(results: readonly ScenarioResult[], wallMs: number): string {
  const scenarios = results.map((result) => {
    if (result.kind === 'failed') {
      const { name, expected } = result.scenario;
      return { name, expected, observed: null, pass: false, error: result.error };
    }
    const { run, verdict } = result;
    const { observed } = run;
    return {
      name: run.scenario.name,
      expected: run.scenario.expected,
      observed: {
        attemptsStarted: observed.attemptsStarted,
        completed: observed.completed,
        quarantined: observed.quarantined,
        leftInQueue: observed.leftInQueue,
        quarantineReasons: observed.quarantineReasons,
        externalRequests: observed.externalRequests,
        callsPerHealthyMessage: observed.callsPerHealthyMessage,
        roundTripsBeforeWork: observed.roundTripsBeforeWork,
        healthyMessages: observed.healthyMessages,
        completedWithoutPerson: observed.completedWithoutPerson,
        quarantine: observed.quarantine,
        messages: observed.messages,
      },
      pass: verdict.pass,
      settled: run.settlement.settled,
      checks: verdict.checks,
      timings: { startupMs: run.startupMs, runMs: run.runMs },
    };
  });
  return `${JSON.stringify({ scenarios, pass: results.every(passed), wallMs }, null, 2)}\n`;
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
