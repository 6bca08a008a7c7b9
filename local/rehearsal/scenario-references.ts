/**
 * What the scenario schema cannot say field by field: that a label named in one place is a
 * message of the scenario, that operator steps come with the figures after them, that two
 * messages do not share one ledger item, and that the breaker's cool-down cap is not below its
 * first cool-down. Run on the whole scenario even when some of it is malformed (every problem is
 * reported at once), so every value is read as unknown.
 */
import { DEFAULTS } from '../../contract/defaults';
import { messageKey } from '../../lambdas/core/message-key';
import { faultReferenceProblems } from './scenario-faults';
import { show } from './scenario-fields';
import { messageBody, type ScenarioMessage } from './scenario-message';

export interface ReferenceProblem {
  readonly path: (string | number)[];
  readonly message: string;
}

type Loose = Partial<Record<string, unknown>>;

const NO_MESSAGE = 'names no message of this scenario';

export function referenceProblems(scenario: Loose): ReferenceProblem[] {
  const messages = Array.isArray(scenario.messages) ? (scenario.messages as Loose[]) : [];
  const labels = new Set(
    messages.flatMap((message) => (typeof message?.id === 'string' ? [message.id] : [])),
  );
  const expected = isObject(scenario.expected) ? scenario.expected : {};
  return [
    ...labelProblems(messages),
    ...(scenario.messageKey === 'id' ? sharedKeyProblems(messages) : []),
    ...totalsProblems(expected, ['expected'], labels),
    ...(isObject(expected.afterOperator)
      ? totalsProblems(expected.afterOperator, ['expected', 'afterOperator'], labels)
      : []),
    ...operatorProblems(scenario.operator, expected.afterOperator, labels),
    ...faultReferenceProblems(scenario.faults, labels).map(({ path, message }) => ({
      path: ['faults', ...path],
      message,
    })),
    ...cooldownProblems(scenario),
  ];
}

function labelProblems(messages: readonly Loose[]): ReferenceProblem[] {
  const seen = new Set<string>();
  return messages.flatMap((message, index) => {
    const id = message?.id;
    if (typeof id !== 'string') return [];
    if (!seen.has(id)) {
      seen.add(id);
      return [];
    }
    return [{ path: ['messages', index, 'id'], message: `"${id}" is used twice: labels must be unique` }];
  });
}

/**
 * With the body's "id" as the message key, a raw body may name another message's key (or none,
 * when the consumer falls back to the messageId): two messages on one ledger item would be
 * judged as one.
 */
function sharedKeyProblems(messages: readonly Loose[]): ReferenceProblem[] {
  const first = new Map<string, number>();
  return messages.flatMap((message, index) => {
    if (typeof message?.id !== 'string') return [];
    let body: string;
    try {
      body = messageBody(message as ScenarioMessage);
    } catch {
      return []; // a malformed body is the schema's to name
    }
    const key = messageKey({ messageId: `the messageId of ${message.id}`, body }, 'id');
    if (!key.ok) return [];
    const other = first.get(key.key);
    if (other === undefined) {
      first.set(key.key, index);
      return [];
    }
    return [
      {
        path: ['messages', index],
        message: `has the message key of messages[${other}] (${show(key.key)}): one ledger item cannot be judged as two messages`,
      },
    ];
  });
}

function totalsProblems(
  totals: Loose,
  at: readonly string[],
  labels: ReadonlySet<string>,
): ReferenceProblem[] {
  const problems: ReferenceProblem[] = [];
  for (const figure of ['externalRequests', 'replays']) {
    const counts = totals[figure];
    if (!isObject(counts)) continue;
    for (const label of Object.keys(counts)) {
      if (!labels.has(label)) problems.push({ path: [...at, figure, label], message: NO_MESSAGE });
    }
  }
  const noHuman = totals.noHumanNeededFor;
  if (Array.isArray(noHuman)) {
    noHuman.forEach((label: unknown, index) => {
      if (typeof label !== 'string' || !labels.has(label)) {
        problems.push({
          path: [...at, 'noHumanNeededFor', index],
          message: `${NO_MESSAGE} (given ${show(label)})`,
        });
      }
    });
  }
  return problems;
}

/** Operator steps need the figures after them, and the other way round; each names a message. */
function operatorProblems(steps: unknown, after: unknown, labels: ReadonlySet<string>): ReferenceProblem[] {
  if (steps === undefined) {
    return after === undefined
      ? []
      : [{ path: ['expected', 'afterOperator'], message: 'needs operator steps: give operator or drop it' }];
  }
  const problems: ReferenceProblem[] =
    after === undefined
      ? [
          {
            path: ['operator'],
            message: 'needs expected.afterOperator: the figures once the steps were taken',
          },
        ]
      : [];
  if (!Array.isArray(steps)) return problems;
  steps.forEach((step: Loose, index) => {
    if (typeof step?.verify === 'string' && !labels.has(step.verify)) {
      problems.push({
        path: ['operator', index, 'verify'],
        message: `${NO_MESSAGE} (given ${show(step.verify)})`,
      });
    }
  });
  return problems;
}

function cooldownProblems(scenario: Loose): ReferenceProblem[] {
  const cooldown = scenario.breakerCooldownSeconds ?? DEFAULTS.breakerCooldownSeconds;
  const cap = scenario.breakerMaxCooldownSeconds;
  if (typeof cap !== 'number' || typeof cooldown !== 'number' || cap >= cooldown) return [];
  return [
    {
      path: ['breakerMaxCooldownSeconds'],
      message: `must be at least breakerCooldownSeconds (given ${cap}, breakerCooldownSeconds ${cooldown})`,
    },
  ];
}

function isObject(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
