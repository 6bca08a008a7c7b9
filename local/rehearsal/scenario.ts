/**
 * A rehearsal scenario is data: which messages to send (each says in its body what the demo
 * worker does with it, see lambdas/demo/worker.ts, or carries a raw body), how the pipeline is
 * set up, what happens around it (an outage of the outside system, faults injected into the
 * consumer's own AWS calls, an operator answering through `pq`), and what must be observed in
 * the local AWS afterwards. scenario-schema.ts describes it once; `parseScenarios` checks a
 * scenario file against it and names every bad field at once, with its path in the file and the
 * value given, so a typo in a scenario is loud.
 */
import type { z } from 'zod';
import { DEFAULTS } from '../../contract/defaults';
import { messageKey } from '../../lambdas/core/message-key';
import { messageBody, type ScenarioMessage } from './scenario-message';
import { referenceProblems } from './scenario-references';
import { type Scenario, scenario as scenarioSchema } from './scenario-schema';

export type { ScenarioFault } from './scenario-faults';
export type { Count } from './scenario-fields';
export { messageBody, type ScenarioMessage } from './scenario-message';
export {
  DECISIONS,
  type Expected,
  type ExpectedTotals,
  MESSAGE_KEYS,
  type MessageKey,
  type OperatorStep,
  type Outage,
  type Scenario,
} from './scenario-schema';

export class ScenarioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScenarioError';
  }
}

/**
 * A parsed scenario file: one scenario object or an array of them. Throws one ScenarioError
 * naming the file and every problem, each with its path in the file (`[1].messages[0].id`).
 */
export function parseScenarios(input: unknown, source: string): Scenario[] {
  const list: unknown[] = Array.isArray(input) ? input : [input];
  const problems: string[] = [];
  if (list.length === 0) problems.push('the file holds an empty array: give at least one scenario');
  const scenarios = list.flatMap((item, index) => {
    const prefix = Array.isArray(input) ? [index] : [];
    const parsed = scenarioSchema.safeParse(item);
    // Read from the file itself: zod skips further checks of a value once part of it is no object.
    const references = isObject(item) ? referenceProblems(item) : [];
    problems.push(
      ...(parsed.error?.issues ?? []).flatMap((issue) => describeIssue(issue, prefix)),
      ...references.map(({ path, message }) => `${showPath([...prefix, ...path])} ${message}`),
    );
    return parsed.success && references.length === 0 ? [parsed.data] : [];
  });
  const names = list
    .map((item) => (item as { name?: unknown } | null)?.name)
    .filter((name) => typeof name === 'string');
  for (const name of new Set(names)) {
    if (names.filter((other) => other === name).length > 1) problems.push(`name "${name}" is used twice`);
  }
  if (problems.length > 0) {
    throw new ScenarioError(
      `${source}: invalid scenario:\n${problems.map((line) => `  - ${line}`).join('\n')}`,
    );
  }
  return scenarios;
}

/** One line per problem (per unknown field, for an object with several): its path, then what is wrong. */
function describeIssue(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[]): string[] {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((key) => `${showPath([...path, key])} ${issue.message}`);
  return [`${showPath(path) || 'the scenario'} ${issue.message}`];
}

/** `messages[2].id`, `[1].expected.replays.M3`: how a person finds the place in the file. */
function showPath(path: readonly PropertyKey[]): string {
  return path
    .map((part, index) =>
      typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`,
    )
    .join('');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The ledger key the consumer gives the message, computed as it does (lambdas/core/message-key.ts). */
export function ledgerKeyOf(scenario: Scenario, message: ScenarioMessage, messageId: string): string {
  const key = messageKey(
    { messageId, body: messageBody(message) },
    scenario.messageKey === 'id' ? 'id' : undefined,
  );
  return key.ok ? key.key : messageId;
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
  // An outage that ends on an event adds nothing: the budget covers the attempts that cause it.
  const duration = outage.durationMs ?? 0;
  return budget + Math.ceil((outage.startAfterMs + duration) / 1000) + 2 * (cooldown + probe);
}

/** The rehearsal's option that gives a slow machine more time: `--timeout-scale N`. */
export const TIMEOUT_SCALE_OPTION = 'timeout-scale';

/**
 * The scenario with its consumer timeout (so its visibility timeout and settle budget) and any
 * settle timeout it gives multiplied by `factor`, rounded up to whole seconds: the same counts on a
 * machine too slow for the scenario's deadlines. The breaker's timings stay: they count from
 * events, not from invocations.
 */
export function scaleTimeouts(scenario: Scenario, factor: number): Scenario {
  const scaled = (seconds: number) => Math.ceil(seconds * factor);
  return {
    ...scenario,
    consumerTimeoutSeconds: scaled(scenario.consumerTimeoutSeconds),
    ...(scenario.timeoutSeconds === undefined ? {} : { timeoutSeconds: scaled(scenario.timeoutSeconds) }),
  };
}
