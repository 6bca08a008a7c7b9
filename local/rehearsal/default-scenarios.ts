/**
 * The seed's rehearsal (docs/behaviour.md, "The rehearsal"), exactly: five messages, one in
 * flight at a time, limit 3. The consumer timeout is scaled down to 1-2 s so a crashed message
 * comes back after 6-12 s (the visibility timeout is 6x), and the whole run takes well under a minute.
 */
import type { Scenario, ScenarioMessage } from './scenario';

const succeed = (id: string): ScenarioMessage => ({ id, behaviour: 'succeed' });

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
  consumerTimeoutSeconds: 1,
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
  // The demo gives its external call the invocation's time less 1 s (at least 100 ms): 2 s
  // leaves the call a whole second, so a busy machine cannot turn the crash into a timeout.
  consumerTimeoutSeconds: 2,
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

export const DEFAULT_SCENARIOS: readonly Scenario[] = [SEED, SEED_VARIANT];
