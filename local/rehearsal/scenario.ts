/**
 * A rehearsal scenario is data: which messages to send (each says in its body what the demo
 * worker does with it, see lambdas/demo/worker.ts), how the pipeline is set up, what happens
 * around it (an outage of the outside system, faults injected into the consumer's own AWS calls,
 * an operator answering through `pq`), and what must be observed in the local AWS afterwards.
 * `parseScenarios` checks a scenario file and names every bad field at once, with the value
 * given, so a typo in a scenario is loud.
 */

import { DEFAULTS } from '../../contract/defaults';
import type { VerifyDecision } from '../../contract/quarantine';
import { QUARANTINE_REASONS } from '../../lambdas/core/types';
import { BEHAVIOURS, type Behaviour } from '../../lambdas/demo/worker';
import type { FaultKind, FaultPoint } from '../faults/fault-points';
import { integer, isObject, show, unknownFields } from './scenario-checks';
import { faultsProblems } from './scenario-faults';

export interface ScenarioMessage {
  /** The message's label: the body's "id", which the outside system counts requests by. */
  readonly id: string;
  readonly behaviour: Behaviour;
  /** Misbehave on attempts 1..times only. @default - on every attempt */
  readonly times?: number;
}

/**
 * An exact figure, or a floor where the run's timing decides the exact number (during an outage,
 * how many attempts fail before consumption pauses depends on how fast the pause lands).
 */
export type Count = number | { readonly atLeast: number };

export interface ExpectedTotals {
  readonly attemptsStarted: Count;
  readonly completed: number;
  /** Quarantine records, whatever their status (a replayed record is kept). */
  readonly quarantined: number;
  readonly leftInQueue: number;
  /** Quarantine records per reason. */
  readonly quarantineReasons: Readonly<Record<string, number>>;
  /** Requests the outside system received per message label; a label not named must see none. */
  readonly externalRequests: Readonly<Record<string, Count>>;
  /** Labels that must complete on their own: completed, no quarantine record, nobody asked. */
  readonly noHumanNeededFor?: readonly string[];
  /** Charged attempts summed over every message (rules 2, 5); an outage charges none (rule 7). */
  readonly charged?: number;
  /** Pause executions (`pause-<epoch>`) the consumer started: one per outage (rule 7). */
  readonly pauses?: number;
  /** Quarantine records per status: open, awaiting-operator, resolved, replayed. */
  readonly quarantineStatuses?: Readonly<Record<string, number>>;
  /** Operator replays per message label (the ledger's generation: +1 per replay). */
  readonly replays?: Readonly<Record<string, number>>;
  /** Executions of both state machines per status: RUNNING, SUCCEEDED, FAILED... */
  readonly executions?: Readonly<Record<string, number>>;
}

export interface Expected extends ExpectedTotals {
  /** The figures once every operator step was taken and what it set off has settled. */
  readonly afterOperator?: ExpectedTotals;
}

/**
 * A shared dependency going down (rule 7): from `startAfterMs` after the first message is sent
 * (0: before it), the outside system answers every request with HTTP 503 for `durationMs`, then
 * 200 again.
 */
export interface Outage {
  readonly startAfterMs: number;
  readonly durationMs: number;
}

/**
 * An operator's answer to an "outcome unknown" record (rule 8). Once the scenario has settled, the
 * rehearsal waits until the record of message `verify` holds its execution's task token, then runs
 * `pq verify <record id> --<decision> --reason <reason>` through the CLI in-process (cli/run.ts).
 */
export interface OperatorStep {
  /** The label of a message quarantined as "outcome unknown". */
  readonly verify: string;
  readonly decision: VerifyDecision;
  /** What the operator checked; it becomes the record's cause and goes into the audit. */
  readonly reason: string;
}

/**
 * A fault injected into the consumer's own calls to AWS (local/faults/inject.ts), e.g.
 * `{"at": "ledger.start", "error": "throttle", "times": 2, "message": "M1"}`. The consumer runs
 * the same code as deployed, bundled with an injector over its ports; the fault plan is shared by
 * every execution environment of the run, so a fault that crashes one process is not repeated by
 * the fresh one. The report lists each fault with how many times it fired, and the judge expects
 * exactly `times`: a fault that never fires tests nothing.
 */
export interface ScenarioFault {
  /**
   * Which call fails, `<port>.<method>` (local/faults/fault-points.ts, FAULT_POINTS), e.g.
   * `ledger.start`, `ledger.recordExternal:done`, `quarantine.putRecord`.
   */
  readonly at: FaultPoint;
  /**
   * What goes wrong (FAULT_KINDS): `throttle`, `server-error` and `access-denied` fail the call
   * before it reaches AWS, as the SDK error would; `timeout-after-send` lets it land and then
   * fails it; `crash` SIGKILLs the worker before the call, `crash-after-send` after it landed (a
   * real crash: the runner returns the whole batch and starts a fresh environment).
   */
  readonly error: FaultKind;
  /** How many matching calls fail, counted across every process of the run, 1..100. @default 1 */
  readonly times?: number;
  /**
   * Only calls about this message (its label). Only calls that name a message key can match: the
   * ledger's (except `ledger.inFlightKeysOf`), `quarantine.putRecord` and
   * `operations.startOutcomeUnknown`.
   * @default - any call at `at`, whatever the message
   */
  readonly message?: string;
}

export const DECISIONS: readonly VerifyDecision[] = ['done', 'not-done', 'discard'];
export const MESSAGE_KEYS = ['messageId', 'id'] as const;
export type MessageKey = (typeof MESSAGE_KEYS)[number];

export interface Scenario {
  readonly name: string;
  readonly messages: readonly ScenarioMessage[];
  /** Charged attempts before quarantine (rule 2). */
  readonly limit: number;
  readonly batchSize: number;
  /** Records processed at once inside one invocation. */
  readonly inFlight: number;
  /** Execution environments the runner keeps (the mapping's concurrency). */
  readonly environments: number;
  /** The consumer's timeout; the queue's visibility timeout is 6x this. */
  readonly consumerTimeoutSeconds: number;
  /** How long the scenario may take to settle. @default - see `settleTimeoutSeconds` */
  readonly timeoutSeconds?: number;
  /**
   * What identifies a message in the ledger: the SQS `messageId`, or the body's `"id"` (the
   * construct's `messageKeyPath: 'id'`). Either way a replay keeps the original's key.
   * @default 'messageId'
   */
  readonly messageKey?: MessageKey;
  /** The breaker's first cool-down (construct prop `breakerCooldown`). @default 60 */
  readonly breakerCooldownSeconds?: number;
  /** How long a half-open probe runs (construct prop `breakerProbeWindow`). @default 30 */
  readonly breakerProbeWindowSeconds?: number;
  readonly outage?: Outage;
  /** Faults injected into the consumer's AWS calls, tried in this order for each call. @default - none */
  readonly faults?: readonly ScenarioFault[];
  /** Operator answers, taken in order once the scenario has settled; needs `expected.afterOperator`. */
  readonly operator?: readonly OperatorStep[];
  /** Sentences printed under the scenario's figures: what a reader should know to judge them. */
  readonly notes?: readonly string[];
  readonly expected: Expected;
}

/**
 * Long enough for every message to use its whole budget, one visibility timeout per attempt, and
 * more; with an outage, also its end, a cool-down and a probe window twice over (one failed probe).
 */
export function settleTimeoutSeconds(scenario: Scenario): number {
  if (scenario.timeoutSeconds !== undefined) return scenario.timeoutSeconds;
  const budget = 30 + 6 * scenario.consumerTimeoutSeconds * (scenario.limit + 2);
  const { outage } = scenario;
  if (outage === undefined) return budget;
  const cooldown = scenario.breakerCooldownSeconds ?? DEFAULTS.breakerCooldownSeconds;
  const probe = scenario.breakerProbeWindowSeconds ?? DEFAULTS.breakerProbeSeconds;
  return budget + Math.ceil((outage.startAfterMs + outage.durationMs) / 1000) + 2 * (cooldown + probe);
}

export class ScenarioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScenarioError';
  }
}

const SCENARIO_FIELDS = [
  'name',
  'messages',
  'limit',
  'batchSize',
  'inFlight',
  'environments',
  'consumerTimeoutSeconds',
  'timeoutSeconds',
  'messageKey',
  'breakerCooldownSeconds',
  'breakerProbeWindowSeconds',
  'outage',
  'faults',
  'operator',
  'notes',
  'expected',
];
const TOTALS_FIELDS = [
  'attemptsStarted',
  'completed',
  'quarantined',
  'leftInQueue',
  'quarantineReasons',
  'externalRequests',
  'noHumanNeededFor',
  'charged',
  'pauses',
  'quarantineStatuses',
  'replays',
  'executions',
];
const EXPECTED_FIELDS = [...TOTALS_FIELDS, 'afterOperator'];
const MESSAGE_FIELDS = ['id', 'behaviour', 'times'];
const OUTAGE_FIELDS = ['startAfterMs', 'durationMs'];
const OPERATOR_FIELDS = ['verify', 'decision', 'reason'];
const QUARANTINE_STATUSES = ['open', 'awaiting-operator', 'resolved', 'replayed'];
const EXECUTION_STATUSES = ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED', 'PENDING_REDRIVE'];

/** A parsed scenario file: one scenario object or an array of them. Throws one ScenarioError naming every problem. */
export function parseScenarios(input: unknown, source: string): Scenario[] {
  const list = Array.isArray(input) ? input : [input];
  const problems: string[] = [];
  if (list.length === 0) problems.push('the file holds an empty array: give at least one scenario');
  list.forEach((item, index) => {
    const where = Array.isArray(input) ? `[${index}]` : '';
    problems.push(...scenarioProblems(item, where));
  });
  const names = list
    .map((item) => (isObject(item) ? item.name : undefined))
    .filter((name) => typeof name === 'string');
  for (const name of new Set(names)) {
    if (names.filter((other) => other === name).length > 1) problems.push(`name "${name}" is used twice`);
  }
  if (problems.length > 0) {
    throw new ScenarioError(
      `${source}: invalid scenario:\n${problems.map((line) => `  - ${line}`).join('\n')}`,
    );
  }
  return list as Scenario[];
}

function scenarioProblems(value: unknown, where: string): string[] {
  if (!isObject(value)) return [`${where || 'the scenario'} must be an object (given ${show(value)})`];
  const at = (field: string) => `${where ? `${where}.` : ''}${field}`;
  const problems = unknownFields(value, SCENARIO_FIELDS, at);
  if (typeof value.name !== 'string' || !/^[A-Za-z0-9_.-]{1,40}$/.test(value.name)) {
    problems.push(`${at('name')} must be 1-40 letters, digits, "_", "." or "-" (given ${show(value.name)})`);
  }
  problems.push(...integer(value.limit, at('limit'), 1, 100));
  problems.push(...integer(value.batchSize, at('batchSize'), 1, 100));
  problems.push(...integer(value.inFlight, at('inFlight'), 1, 100));
  problems.push(...integer(value.environments, at('environments'), 1, 10));
  problems.push(...integer(value.consumerTimeoutSeconds, at('consumerTimeoutSeconds'), 1, 60));
  if (value.timeoutSeconds !== undefined)
    problems.push(...integer(value.timeoutSeconds, at('timeoutSeconds'), 5, 3600));
  if (value.messageKey !== undefined && !MESSAGE_KEYS.some((key) => key === value.messageKey)) {
    problems.push(
      `${at('messageKey')} must be one of ${MESSAGE_KEYS.join(', ')} (given ${show(value.messageKey)})`,
    );
  }
  if (value.breakerCooldownSeconds !== undefined)
    problems.push(...integer(value.breakerCooldownSeconds, at('breakerCooldownSeconds'), 1, 3600));
  if (value.breakerProbeWindowSeconds !== undefined)
    problems.push(...integer(value.breakerProbeWindowSeconds, at('breakerProbeWindowSeconds'), 1, 3600));
  if (value.outage !== undefined) problems.push(...outageProblems(value.outage, at('outage')));
  if (value.notes !== undefined) problems.push(...notesProblems(value.notes, at('notes')));
  const labels = messageLabels(value.messages);
  problems.push(...messagesProblems(value.messages, at('messages')));
  problems.push(...expectedProblems(value.expected, at('expected'), labels));
  if (value.faults !== undefined) problems.push(...faultsProblems(value.faults, at('faults'), labels));
  problems.push(...operatorProblems(value, at, labels));
  return problems;
}

function outageProblems(value: unknown, at: string): string[] {
  if (!isObject(value)) return [`${at} must be an object {startAfterMs, durationMs} (given ${show(value)})`];
  return [
    ...unknownFields(value, OUTAGE_FIELDS, (field) => `${at}.${field}`),
    ...integer(value.startAfterMs, `${at}.startAfterMs`, 0, 600_000),
    ...integer(value.durationMs, `${at}.durationMs`, 1, 600_000),
  ];
}

function notesProblems(value: unknown, at: string): string[] {
  if (!Array.isArray(value)) return [`${at} must be an array of sentences (given ${show(value)})`];
  return value.flatMap((note, index) =>
    typeof note === 'string' && note.trim() !== ''
      ? []
      : [`${at}[${index}] must be a non-empty string (given ${show(note)})`],
  );
}

/** Operator steps, and their link to `expected.afterOperator`: one without the other is a mistake. */
function operatorProblems(
  scenario: Record<string, unknown>,
  at: (field: string) => string,
  labels: ReadonlySet<string>,
): string[] {
  const steps = scenario.operator;
  const after = isObject(scenario.expected) ? scenario.expected.afterOperator : undefined;
  if (steps === undefined) {
    return after === undefined
      ? []
      : [`${at('expected.afterOperator')} needs operator steps: give ${at('operator')} or drop it`];
  }
  if (!Array.isArray(steps) || steps.length === 0) {
    return [
      `${at('operator')} must be a non-empty array of {verify, decision, reason} (given ${show(steps)})`,
    ];
  }
  const problems: string[] = [];
  if (after === undefined) {
    problems.push(
      `${at('operator')} needs ${at('expected.afterOperator')}: the figures once the steps were taken`,
    );
  }
  steps.forEach((step, index) => {
    const here = `${at('operator')}[${index}]`;
    if (!isObject(step)) {
      problems.push(`${here} must be an object {verify, decision, reason} (given ${show(step)})`);
      return;
    }
    problems.push(...unknownFields(step, OPERATOR_FIELDS, (field) => `${here}.${field}`));
    if (typeof step.verify !== 'string' || !labels.has(step.verify)) {
      problems.push(`${here}.verify names no message of this scenario (given ${show(step.verify)})`);
    }
    if (!DECISIONS.some((decision) => decision === step.decision)) {
      problems.push(`${here}.decision must be one of ${DECISIONS.join(', ')} (given ${show(step.decision)})`);
    }
    if (typeof step.reason !== 'string' || step.reason.trim() === '' || step.reason.length > 500) {
      problems.push(
        `${here}.reason must be a non-empty string of at most 500 characters (given ${show(step.reason)})`,
      );
    }
  });
  return problems;
}

function messagesProblems(value: unknown, at: string): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    return [`${at} must be a non-empty array of {id, behaviour, times?} (given ${show(value)})`];
  }
  const problems: string[] = [];
  const seen = new Set<string>();
  value.forEach((message, index) => {
    const here = `${at}[${index}]`;
    if (!isObject(message)) {
      problems.push(`${here} must be an object (given ${show(message)})`);
      return;
    }
    problems.push(...unknownFields(message, MESSAGE_FIELDS, (field) => `${here}.${field}`));
    if (typeof message.id !== 'string' || message.id === '' || message.id.length > 64) {
      problems.push(
        `${here}.id must be a non-empty string of at most 64 characters (given ${show(message.id)})`,
      );
    } else if (seen.has(message.id)) {
      problems.push(`${here}.id "${message.id}" is used twice: labels must be unique`);
    } else {
      seen.add(message.id);
    }
    if (!BEHAVIOURS.some((known) => known === message.behaviour)) {
      problems.push(
        `${here}.behaviour must be one of ${BEHAVIOURS.join(', ')} (given ${show(message.behaviour)})`,
      );
    }
    if (message.times !== undefined) problems.push(...integer(message.times, `${here}.times`, 0, 100));
  });
  return problems;
}

function expectedProblems(value: unknown, at: string, labels: ReadonlySet<string>): string[] {
  if (!isObject(value)) return [`${at} must be an object (given ${show(value)})`];
  const problems = totalsProblems(value, at, labels, EXPECTED_FIELDS);
  const after = value.afterOperator;
  if (after === undefined) return problems;
  if (!isObject(after)) return [...problems, `${at}.afterOperator must be an object (given ${show(after)})`];
  return [...problems, ...totalsProblems(after, `${at}.afterOperator`, labels, TOTALS_FIELDS)];
}

function totalsProblems(
  value: Record<string, unknown>,
  at: string,
  labels: ReadonlySet<string>,
  fields: readonly string[],
): string[] {
  const problems = unknownFields(value, fields, (field) => `${at}.${field}`);
  problems.push(...count(value.attemptsStarted, `${at}.attemptsStarted`));
  for (const figure of ['completed', 'quarantined', 'leftInQueue']) {
    problems.push(...integer(value[figure], `${at}.${figure}`, 0, 100_000));
  }
  for (const figure of ['charged', 'pauses']) {
    if (value[figure] !== undefined) problems.push(...integer(value[figure], `${at}.${figure}`, 0, 100_000));
  }
  const isLabel = (label: string) => (labels.has(label) ? undefined : 'names no message of this scenario');
  const oneOf = (known: readonly string[], what: string) => (key: string) =>
    known.includes(key) ? undefined : `is not ${what} (known: ${known.join(', ')})`;
  problems.push(
    ...countsProblems(
      value.quarantineReasons,
      `${at}.quarantineReasons`,
      oneOf(QUARANTINE_REASONS, 'a quarantine reason'),
    ),
  );
  problems.push(...countsProblems(value.externalRequests, `${at}.externalRequests`, isLabel, count));
  const optionalCounts = [
    ['quarantineStatuses', oneOf(QUARANTINE_STATUSES, 'a quarantine status')],
    ['replays', isLabel],
    ['executions', oneOf(EXECUTION_STATUSES, 'an execution status')],
  ] as const;
  for (const [figure, badKey] of optionalCounts) {
    if (value[figure] !== undefined)
      problems.push(...countsProblems(value[figure], `${at}.${figure}`, badKey));
  }
  const noHuman = value.noHumanNeededFor;
  if (noHuman !== undefined) {
    if (!Array.isArray(noHuman)) {
      problems.push(`${at}.noHumanNeededFor must be an array of message ids (given ${show(noHuman)})`);
    } else {
      noHuman.forEach((label, index) => {
        if (typeof label !== 'string' || !labels.has(label)) {
          problems.push(
            `${at}.noHumanNeededFor[${index}] names no message of this scenario (given ${show(label)})`,
          );
        }
      });
    }
  }
  return problems;
}

function countsProblems(
  value: unknown,
  at: string,
  badKey: (key: string) => string | undefined,
  checkCount: (value: unknown, at: string) => string[] = (given, where) => integer(given, where, 0, 100_000),
): string[] {
  if (!isObject(value)) return [`${at} must be an object of counts, e.g. {} (given ${show(value)})`];
  const problems: string[] = [];
  for (const [key, given] of Object.entries(value)) {
    const why = badKey(key);
    if (why) problems.push(`${at}.${key} ${why}`);
    problems.push(...checkCount(given, `${at}.${key}`));
  }
  return problems;
}

/** A whole number, or `{"atLeast": n}`. */
function count(value: unknown, at: string): string[] {
  if (isObject(value)) {
    return [
      ...unknownFields(value, ['atLeast'], (field) => `${at}.${field}`),
      ...integer(value.atLeast, `${at}.atLeast`, 0, 100_000),
    ];
  }
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 100_000
    ? []
    : [`${at} must be a whole number from 0 to 100000 or {"atLeast": n} (given ${show(value)})`];
}

function messageLabels(value: unknown): ReadonlySet<string> {
  if (!Array.isArray(value)) return new Set();
  return new Set(
    value.flatMap((message) => (isObject(message) && typeof message.id === 'string' ? [message.id] : [])),
  );
}
