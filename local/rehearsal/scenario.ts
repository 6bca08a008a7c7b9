/**
 * A rehearsal scenario is data: which messages to send (each says in its body what the demo
 * worker does with it, see lambdas/demo/worker.ts), how the pipeline is set up, and what must be
 * observed in the local AWS afterwards. `parseScenarios` checks a scenario file and names every
 * bad field at once, with the value given, so a typo in a scenario is loud.
 */

import { QUARANTINE_REASONS } from '../../lambdas/core/types';
import { BEHAVIOURS, type Behaviour } from '../../lambdas/demo/worker';

export interface ScenarioMessage {
  /** The message's label: the body's "id", which the outside system counts requests by. */
  readonly id: string;
  readonly behaviour: Behaviour;
  /** Misbehave on attempts 1..times only. @default - on every attempt */
  readonly times?: number;
}

export interface Expected {
  readonly attemptsStarted: number;
  readonly completed: number;
  readonly quarantined: number;
  readonly leftInQueue: number;
  /** Quarantine records per reason. */
  readonly quarantineReasons: Readonly<Record<string, number>>;
  /** Requests the outside system received per message label; a label not named must see none. */
  readonly externalRequests: Readonly<Record<string, number>>;
  /** Labels that must complete on their own: completed, no quarantine record, nobody asked. */
  readonly noHumanNeededFor?: readonly string[];
}

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
  readonly expected: Expected;
}

/** Long enough for every message to use its whole budget, one visibility timeout per attempt, and more. */
export function settleTimeoutSeconds(scenario: Scenario): number {
  if (scenario.timeoutSeconds !== undefined) return scenario.timeoutSeconds;
  return 30 + 6 * scenario.consumerTimeoutSeconds * (scenario.limit + 2);
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
  'expected',
];
const EXPECTED_FIELDS = [
  'attemptsStarted',
  'completed',
  'quarantined',
  'leftInQueue',
  'quarantineReasons',
  'externalRequests',
  'noHumanNeededFor',
];
const MESSAGE_FIELDS = ['id', 'behaviour', 'times'];

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
  const labels = messageLabels(value.messages);
  problems.push(...messagesProblems(value.messages, at('messages')));
  problems.push(...expectedProblems(value.expected, at('expected'), labels));
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
  const problems = unknownFields(value, EXPECTED_FIELDS, (field) => `${at}.${field}`);
  for (const figure of ['attemptsStarted', 'completed', 'quarantined', 'leftInQueue']) {
    problems.push(...integer(value[figure], `${at}.${figure}`, 0, 100_000));
  }
  problems.push(
    ...countsProblems(value.quarantineReasons, `${at}.quarantineReasons`, (reason) =>
      QUARANTINE_REASONS.some((known) => known === reason)
        ? undefined
        : `is not a quarantine reason (known: ${QUARANTINE_REASONS.join(', ')})`,
    ),
  );
  problems.push(
    ...countsProblems(value.externalRequests, `${at}.externalRequests`, (label) =>
      labels.has(label) ? undefined : 'names no message of this scenario',
    ),
  );
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

function countsProblems(value: unknown, at: string, badKey: (key: string) => string | undefined): string[] {
  if (!isObject(value)) return [`${at} must be an object of counts, e.g. {} (given ${show(value)})`];
  const problems: string[] = [];
  for (const [key, count] of Object.entries(value)) {
    const why = badKey(key);
    if (why) problems.push(`${at}.${key} ${why}`);
    problems.push(...integer(count, `${at}.${key}`, 0, 100_000));
  }
  return problems;
}

function messageLabels(value: unknown): ReadonlySet<string> {
  if (!Array.isArray(value)) return new Set();
  return new Set(
    value.flatMap((message) => (isObject(message) && typeof message.id === 'string' ? [message.id] : [])),
  );
}

function unknownFields(
  value: Record<string, unknown>,
  known: readonly string[],
  at: (field: string) => string,
) {
  return Object.keys(value)
    .filter((field) => !known.includes(field))
    .map((field) => `${at(field)} is not a known field (known: ${known.join(', ')})`);
}

function integer(value: unknown, at: string, min: number, max: number): string[] {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
    ? []
    : [`${at} must be a whole number from ${min} to ${max} (given ${show(value)})`];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}
