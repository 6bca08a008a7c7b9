/**
 * The one description of a scenario file: a zod schema from which the TypeScript types are
 * derived, scenario files are checked (scenario.ts) and the JSON Schema editors use is generated
 * (scenario.schema.json, kept current by test/unit/scenario-schema.test.ts). What it cannot say
 * field by field, that one field names what another defines (a label, an operator step and the
 * figures after it), scenario-references.ts checks; `parseScenarios` (scenario.ts) runs both.
 */
import * as path from 'node:path';
import { z } from 'zod';
import { VERIFY_DECISION } from '../../contract/quarantine';
import { QUARANTINE_REASONS } from '../../lambdas/core/types';
import { scenarioFaults } from './scenario-faults';
import {
  count,
  countsBy,
  countsByLabel,
  nonEmptyArray,
  oneOf,
  show,
  strictObject,
  text,
  wholeNumber,
} from './scenario-fields';
import { scenarioMessage } from './scenario-message';

export const DECISIONS = [VERIFY_DECISION.done, VERIFY_DECISION.notDone, VERIFY_DECISION.discard] as const;
export const MESSAGE_KEYS = ['messageId', 'id'] as const;
const QUARANTINE_STATUSES = ['open', 'awaiting-operator', 'resolved', 'replayed'] as const;
const EXECUTION_STATUSES = [
  'RUNNING',
  'SUCCEEDED',
  'FAILED',
  'TIMED_OUT',
  'ABORTED',
  'PENDING_REDRIVE',
] as const;

const labels = (what: string) =>
  z
    .array(z.string(), { error: (issue) => `must be an array of message ids (given ${show(issue.input)})` })
    .meta({
      description: what,
    });

const totalsShape = {
  attemptsStarted: count.meta({ description: 'Attempts started, summed over every message (the ledger).' }),
  completed: count.meta({ description: 'Messages completed.' }),
  quarantined: count.meta({
    description: 'Quarantine records, whatever their status (a replayed record is kept).',
  }),
  leftInQueue: count.meta({
    description: 'Messages left in the source queue: visible, in flight or delayed.',
  }),
  backstop: count.optional().meta({
    description:
      "Messages in the backstop, the source queue's dead-letter queue (visible, in flight or delayed): " +
      'SQS moved them there at their last receive, past every rule of ours.',
  }),
  quarantineReasons: countsBy(QUARANTINE_REASONS, 'a quarantine reason').meta({
    description: 'Quarantine records per reason.',
  }),
  externalRequests: countsByLabel.meta({
    description: 'Requests the outside system received per message label; a label not named must see none.',
  }),
  noHumanNeededFor: labels(
    'Labels that must complete on their own: completed, no quarantine record, nobody asked.',
  ).optional(),
  charged: count.optional().meta({
    description: 'Charged attempts summed over every message (rules 2, 5); an outage charges none (rule 7).',
  }),
  pauses: count.optional().meta({
    description: 'Pause executions (`pause-<epoch>`) the consumer started: one per outage (rule 7).',
  }),
  quarantineStatuses: countsBy(QUARANTINE_STATUSES, 'a quarantine status')
    .optional()
    .meta({ description: 'Quarantine records per status.' }),
  replays: countsByLabel
    .optional()
    .meta({ description: "Operator replays per message label (the ledger's generation: +1 per replay)." }),
  executions: countsBy(EXECUTION_STATUSES, 'an execution status')
    .optional()
    .meta({ description: 'Executions of both state machines per status.' }),
};

export const expectedTotals = strictObject(totalsShape).meta({ id: 'totals' });

const expected = strictObject({
  ...totalsShape,
  afterOperator: expectedTotals
    .optional()
    .meta({ description: 'The figures once every operator step was taken and what it set off has settled.' }),
});

/** How an outage may end besides a fixed duration: once the pause has disabled the event source mapping. */
const OUTAGE_ENDS = ['mapping-disabled'] as const;

const outage = strictObject({
  startAfterMs: wholeNumber(0, 600_000).meta({ description: 'From the first send (0: before it).' }),
  durationMs: wholeNumber(1, 600_000).optional().meta({ description: 'A fixed outage: this long.' }),
  until: oneOf(OUTAGE_ENDS)
    .optional()
    .meta({
      description:
        'An outage defined by what the consumer has seen, not by how fast the machine is: "mapping-disabled" ' +
        'lasts until the pause has disabled the event source mapping (the breaker saw the failures it needs), ' +
        'however long that takes.',
    }),
})
  .refine((given) => (given.durationMs === undefined) !== (given.until === undefined), {
    error:
      'must give exactly one of `durationMs` (a fixed outage) and `until` (an outage that ends on an event)',
  })
  .meta({
    description:
      'A shared dependency going down (rule 7): the outside system answers every request with HTTP 503 for ' +
      '`durationMs` or `until` the event named, then 200 again.',
  });

const operatorStep = strictObject({
  verify: text(64).meta({ description: 'The label of a message quarantined as "outcome unknown".' }),
  decision: oneOf(DECISIONS),
  reason: text(500).meta({
    description: "What the operator checked; it becomes the record's cause and goes into the audit.",
  }),
}).meta({
  description:
    'An operator\'s answer to an "outcome unknown" record (rule 8): once the scenario settled, `pq verify ' +
    '<record id> --<decision> --reason <reason>` through the CLI in-process.',
});

const seconds = (min: number, max: number, description: string) =>
  wholeNumber(min, max).optional().meta({ description });

const scenarioShape = {
  $schema: z
    .string({ error: (issue) => `must be a string (given ${show(issue.input)})` })
    .optional()
    .meta({ description: 'The JSON Schema of this file, for editors; the rehearsal ignores it.' }),
  name: z
    .string({
      error: (issue) => `must be 1-40 letters, digits, "_", "." or "-" (given ${show(issue.input)})`,
    })
    .regex(/^[A-Za-z0-9_.-]{1,40}$/, {
      error: (issue) => `must be 1-40 letters, digits, "_", "." or "-" (given ${show(issue.input)})`,
    }),
  messages: nonEmptyArray(
    scenarioMessage,
    '{id, behaviour, times?, idempotencyKey?} or {id, body} or {id, bodyBase64}',
  ).meta({ description: 'Sent in this order, one by one, once the pipeline is up.' }),
  limit: wholeNumber(1, 100).meta({ description: 'Charged attempts before quarantine (rule 2).' }),
  batchSize: wholeNumber(1, 100).meta({ description: 'Records per invocation.' }),
  inFlight: wholeNumber(1, 100).meta({ description: 'Records processed at once inside one invocation.' }),
  environments: wholeNumber(1, 10).meta({
    description: "Execution environments the runner keeps (the mapping's concurrency).",
  }),
  consumerTimeoutSeconds: wholeNumber(1, 60).meta({
    description: "The consumer's timeout; the queue's visibility timeout is 6x this.",
  }),
  timeoutSeconds: seconds(
    5,
    3600,
    'How long the scenario may take to settle (default: long enough for every budget).',
  ),
  messageKey: oneOf(MESSAGE_KEYS)
    .optional()
    .meta({
      description:
        'What identifies a message in the ledger: the SQS `messageId` (default), or the body\'s `"id"` (the ' +
        "construct's `messageKeyPath: 'id'`).",
    }),
  isolationTrialMessages: wholeNumber(1, 10_000).optional().meta({
    description: 'Messages without a crash that end an isolation trial (rule 6; construct default 20).',
  }),
  outageFailureThreshold: wholeNumber(2, 1000).optional().meta({
    description:
      'Failures of this many distinct messages within the outage window pause consumption (default 3).',
  }),
  outageWindowSeconds: seconds(1, 3600, 'The window of `outageFailureThreshold` (default 60).'),
  breakerCooldownSeconds: seconds(
    1,
    3600,
    "The breaker's first cool-down (construct prop `breakerCooldown`, default 60).",
  ),
  breakerMaxCooldownSeconds: seconds(
    1,
    86_400,
    'The cap of the cool-down, which doubles after every failed probe (`breakerMaxCooldown`, default 3600).',
  ),
  breakerProbeWindowSeconds: seconds(
    1,
    3600,
    'How long a half-open probe runs (`breakerProbeWindow`, default 30).',
  ),
  outage: outage.optional(),
  faults: scenarioFaults.optional(),
  operator: nonEmptyArray(operatorStep, '{verify, decision, reason}').optional().meta({
    description:
      'Operator answers, taken in order once the scenario has settled; needs `expected.afterOperator`.',
  }),
  notes: z
    .array(
      z
        .string({ error: (issue) => `must be a non-empty string (given ${show(issue.input)})` })
        .regex(/\S/, { error: (issue) => `must be a non-empty string (given ${show(issue.input)})` }),
      { error: (issue) => `must be an array of sentences (given ${show(issue.input)})` },
    )
    .optional()
    .meta({
      description: "Sentences printed under the scenario's figures: what a reader should know to judge them.",
    }),
  expected: expected.meta({
    description: 'What must be observed in the local AWS once the scenario settled.',
  }),
};

export const scenario = strictObject(scenarioShape).meta({
  id: 'scenario',
  title: 'poison-quarantine rehearsal scenario',
  description:
    'Messages to send (each says in its body what the demo worker does with it, lambdas/demo/worker.ts), the ' +
    "pipeline's settings, what happens around it, and what must be observed afterwards.",
});

/** A scenario file: one scenario, or an array of them. */
export const scenarioFile = z.union([scenario, z.array(scenario).min(1)]);

export type Scenario = z.output<typeof scenario>;
export type ExpectedTotals = z.output<typeof expectedTotals>;
export type Expected = Scenario['expected'];
export type Outage = z.output<typeof outage>;
export type OperatorStep = z.output<typeof operatorStep>;
export type MessageKey = (typeof MESSAGE_KEYS)[number];

/** The JSON Schema for editors, committed beside this file; test/unit/scenario-schema.test.ts keeps it current. */
export const SCENARIO_JSON_SCHEMA_FILE = path.join(__dirname, 'scenario.schema.json');

/**
 * The JSON Schema of a scenario file, as the file holds it. Draft-07, which editors understand
 * best. It gives every field, its type, range and choices; what it cannot say (a label named
 * elsewhere, one body of three) `parseScenarios` checks when the rehearsal reads the file.
 */
export function scenarioJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(scenarioFile, { target: 'draft-07', io: 'input' });
}
