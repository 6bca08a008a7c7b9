/**
 * The seed's rehearsal (docs/behaviour.md, "The rehearsal"), exactly: five messages, one in
 * flight at a time, limit 3. The consumer timeout is scaled down to 5 s so a crashed message
 * comes back after 30 s (the visibility timeout is 6x), and the whole run takes about two minutes.
 * Then the operations around it: a shared dependency's outage (rule 7, acceptance 3), and the
 * variant answered by an operator (rule 8), with the breaker's timings scaled down to seconds.
 * Each is defined by counts, not by how fast the machine is: what happens waits for what the
 * consumer has seen, and no healthy invocation comes near its deadline, even on a loaded machine.
 */
import type { Scenario, ScenarioMessage } from './scenario';

const succeed = (id: string): ScenarioMessage => ({ id, behaviour: 'succeed' });

/**
 * The consumer timeout of every default scenario. A fresh environment's first invocation makes
 * the SDK's first requests, which took over 1 s on a busy 2-core machine running the four
 * pipelines at once, and invocations were killed at 2-3 s deadlines on a loaded one (issue 22):
 * twice the slowest seen (test/unit/default-scenarios.test.ts). The price is waiting: a crashed
 * message comes back one visibility timeout (6x) later.
 */
export const CONSUMER_TIMEOUT_SECONDS = 5;

const ONE_AT_A_TIME = {
  limit: 3,
  batchSize: 1,
  inFlight: 1,
  environments: 1,
} as const;

/**
 * M3 crashes the parser on every attempt: three attempts, each charged (one message in flight,
 * rule 5), then quarantined at the fourth delivery without a fourth attempt (rule 2).
 */
export const SEED: Scenario = {
  name: 'seed',
  messages: [
    succeed('M1'),
    succeed('M2'),
    { id: 'M3', behaviour: 'crash-in-parser' },
    succeed('M4'),
    succeed('M5'),
  ],
  ...ONE_AT_A_TIME,
  consumerTimeoutSeconds: CONSUMER_TIMEOUT_SECONDS,
  expected: {
    attemptsStarted: 7,
    completed: 4,
    quarantined: 1,
    leftInQueue: 0,
    quarantineReasons: { 'crash-limit': 1 },
    externalRequests: {},
    noHumanNeededFor: ['M4', 'M5'],
  },
};

/**
 * M3 sends its external request and dies before recording the answer: at its next delivery it
 * is quarantined as "outcome unknown" without a new attempt, and the request is never repeated
 * (rule 8).
 */
export const SEED_VARIANT: Scenario = {
  name: 'seed-variant',
  messages: [
    succeed('M1'),
    succeed('M2'),
    { id: 'M3', behaviour: 'crash-after-external' },
    succeed('M4'),
    succeed('M5'),
  ],
  ...ONE_AT_A_TIME,
  // The demo gives its external call the invocation's time less 1 s (at least 100 ms): 4 s for
  // the call, so a busy machine cannot turn the crash into a timeout.
  consumerTimeoutSeconds: CONSUMER_TIMEOUT_SECONDS,
  expected: {
    attemptsStarted: 5,
    completed: 4,
    quarantined: 1,
    leftInQueue: 0,
    quarantineReasons: { 'outcome-unknown': 1 },
    externalRequests: { M3: 1 },
    noHumanNeededFor: ['M4', 'M5'],
  },
};

/**
 * Rule 7, acceptance 3: five different messages call the outside system while it answers 503.
 * Failures of 3 distinct messages trip the breaker once; the pause disables the mapping, charging
 * and quarantining nothing. The outside system is back once the mapping is Disabled, however long
 * the three failures take on this machine (a fixed 5 s ended, on a quick run, after two), and
 * still before the probe: the 6 s cool-down, longer than the consumer's 5 s control cache, starts
 * at the trip. The half-open probe succeeds, the mapping gets its settings back and every message
 * completes. How many attempts and requests fail before the mapping is disabled depends on how
 * fast the pause lands, so those two figures are floors.
 */
export const OUTAGE: Scenario = {
  name: 'outage',
  messages: ['O1', 'O2', 'O3', 'O4', 'O5'].map((id) => ({ id, behaviour: 'succeed-with-external' })),
  limit: 3,
  batchSize: 1,
  inFlight: 1,
  // Two workers, Lambda's least: messages fail side by side, as in an outage.
  environments: 2,
  // Twice the others': its two workers start side by side into the failing dependency, trip the
  // breaker and start the pause, and beside a CPU-heavy process one of four runs had two first
  // invocations outlive 5 s (killed, they re-tripped the breaker when they came back). No message
  // here is meant to crash, so the longer visibility timeout (60 s) costs a passing run nothing.
  consumerTimeoutSeconds: 2 * CONSUMER_TIMEOUT_SECONDS,
  breakerCooldownSeconds: 6,
  breakerProbeWindowSeconds: 3,
  outage: { startAfterMs: 0, until: 'mapping-disabled' },
  notes: [
    'attempts started and requests per message are floors: 3 distinct messages must fail to trip the ' +
      'breaker (3 attempts) and each of the 5 completes once (5 attempts, 1 request each); how many more ' +
      'fail before the mapping is disabled depends on how fast the pause lands.',
  ],
  expected: {
    attemptsStarted: { atLeast: 8 },
    completed: 5,
    quarantined: 0,
    leftInQueue: 0,
    quarantineReasons: {},
    externalRequests: Object.fromEntries(['O1', 'O2', 'O3', 'O4', 'O5'].map((id) => [id, { atLeast: 1 }])),
    noHumanNeededFor: ['O1', 'O2', 'O3', 'O4', 'O5'],
    charged: 0,
    pauses: 1,
    executions: { SUCCEEDED: 1 },
  },
};

/**
 * The seed's variant, then the person (rule 8): M3 misbehaves on its first attempt only. Once it
 * is quarantined as "outcome unknown" and its execution waits with a task token, the operator
 * checks the outside system and answers `pq verify <id> --not-done`: the CLI replays M3 once and
 * the execution records the decision. The message key is the body's "id", so the replay (a new
 * SQS message) lands on M3's own ledger item with its fresh budget.
 */
export const SEED_VARIANT_VERIFIED: Scenario = {
  name: 'seed-variant-verified',
  messages: [
    succeed('M1'),
    succeed('M2'),
    { id: 'M3', behaviour: 'crash-after-external', times: 1 },
    succeed('M4'),
    succeed('M5'),
  ],
  ...ONE_AT_A_TIME,
  consumerTimeoutSeconds: CONSUMER_TIMEOUT_SECONDS,
  operator: [
    {
      verify: 'M3',
      decision: 'not-done',
      reason: 'checked the outside system: no order for M3 was booked',
    },
  ],
  notes: [
    'the replay is M3\'s attempt 2, past its "times": 1, so the demo worker plainly succeeds without ' +
      'calling the outside system (lambdas/demo/worker.ts): the outside system still saw exactly 1 ' +
      'request for M3 after the replay. A replay whose work calls it again would make that 2.',
    "the replay is a new SQS message carrying M3's key (pq-message-key), so it lands on M3's own " +
      'ledger item: one history, a fresh budget (generation 1).',
  ],
  expected: {
    // Before the operator's answer: exactly the variant.
    ...SEED_VARIANT.expected,
    quarantineStatuses: { 'awaiting-operator': 1 },
    executions: { RUNNING: 1 },
    afterOperator: {
      attemptsStarted: 6,
      completed: 5,
      quarantined: 1,
      leftInQueue: 0,
      quarantineReasons: { 'outcome-unknown': 1 },
      externalRequests: { M3: 1 },
      charged: 0,
      quarantineStatuses: { replayed: 1 },
      replays: { M3: 1 },
      executions: { SUCCEEDED: 1 },
    },
  },
};

export const DEFAULT_SCENARIOS: readonly Scenario[] = [SEED, SEED_VARIANT, OUTAGE, SEED_VARIANT_VERIFIED];
