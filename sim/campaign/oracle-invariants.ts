/**
 * The real consumer checked against the reference (oracle.ts), per message and per attempt:
 * what the world ended with must be one of the outcomes the rules allow.
 */
import { DEFAULTS } from '../../contract/defaults';
import { LEDGER_STATE } from '../../contract/ledger';
import type { StoredRecord } from '../world/memory-quarantine';
import type { AttemptFacts } from './attempt-log';
import type { CheckResult } from './check-result';
import {
  crashedAlone,
  expectedCharges,
  generationKey,
  generations,
  mayReachTheBackstop,
  type OracleInput,
  type OracleMessage,
  possibleReasons,
  twinsOf,
} from './oracle';
import type { Observation } from './run-schedule';
import { deployedLimits, isKafka } from './schedule';
import { atTheSource } from './source-state';

type Check = (observation: Observation) => CheckResult;

/** One schedule's facts for the oracle, gathered once for its five checks. */
const inputs = new WeakMap<Observation, OracleInput>();

function oracleInput(observation: Observation): OracleInput {
  let input = inputs.get(observation);
  if (input === undefined) {
    input = gather(observation);
    inputs.set(observation, input);
  }
  return input;
}

function gather({ trace, sent, schedule, world }: Observation): OracleInput {
  // A Kafka mapping keeps no receive count and moves no record aside: no last receive, no backstop;
  // a record's last failed probe stands in for its last receive.
  return {
    attempts: trace.attempts.attempts,
    pauses: trace.attempts.pauses,
    unsettled: new Set(
      world.ledger
        .all()
        .filter((item) => item.state === LEDGER_STATE.inFlight)
        .map((item) => item.attemptId),
    ),
    sent: [...sent.values()],
    receives: trace.receives,
    deaths: trace.attempts.deaths,
    transientRetries: schedule.config.transientRetries,
    limits: deployedLimits(schedule),
    backstopMaxReceiveCount: isKafka(schedule) ? Number.POSITIVE_INFINITY : DEFAULTS.backstopMaxReceiveCount,
    maxFailedProbes: isKafka(schedule) ? DEFAULTS.kafkaMaxFailedProbes : Number.POSITIVE_INFINITY,
  };
}

/** Rules 3, 10, 13: a message that left the queue had its own work run, or its own bytes kept. */
export const everyMessageCompletedOrKept: Check = (observation) => {
  const { world, trace } = observation;
  const input = oracleInput(observation);
  const keeps = (twin: OracleMessage) =>
    trace.attempts.workFinished.has(twin.messageId) ||
    [...world.quarantine.records.values()].some(
      (record) => record.messageId === twin.messageId && keptBytes(world.quarantine.body(record.id), twin),
    );
  const problems = input.sent
    .filter((message) => !stillWaiting(observation, message.messageId))
    .filter((message) => !twinsOf(input, message).some(keeps))
    .map(
      (message) =>
        `message ${message.messageId} (key ${message.key}) left the queue, but its own work never ran to its end and no quarantine record holds its bytes`,
    );
  return { applicable: true, problems };
};

/** "The last receive quarantines": only a message whose last receive crashed or found our tables down reaches the backstop. */
export const backstopOnlyWhenNothingCouldTell: Check = (observation) => {
  const input = oracleInput(observation);
  const problems = observation.world.queue.backstop
    .filter((message) => !mayReachTheBackstop(input, message))
    .map(
      (message) =>
        `message ${message.messageId} reached the backstop, though its last receive neither crashed nor found our own tables failing`,
    );
  return { applicable: true, problems };
};

/** Rules 2, 5, 6, 8, 9: each attempt added exactly the charges the rules give it. */
export const chargesMatchTheRules: Check = (observation) => {
  const input = oracleInput(observation);
  const expected = expectedCharges(input);
  const problems: string[] = [];
  for (const group of generations(input.attempts).values()) {
    const last = group.at(-1);
    const finalCharged = last && chargedAtTheEnd(observation, last.key, last.generation);
    group.forEach((attempt, index) => {
      const after = group[index + 1]?.chargedAtStart ?? finalCharged;
      const allowed = expected.get(attempt.attemptId);
      if (after === undefined || allowed === undefined || allowed.has(after - attempt.chargedAtStart)) return;
      problems.push(
        `attempt ${index + 1} of key ${attempt.key} (generation ${attempt.generation}, ${describeAttempt(attempt)}) was charged ${after - attempt.chargedAtStart}, the rules say ${[...allowed].join(' or ')}`,
      );
    });
  }
  return { applicable: input.attempts.length > 0, problems };
};

/** Rule 3 and the reasons of "where the contract is silent": a record's reason fits what happened. */
export const quarantineReasonByTheRules: Check = (observation) => {
  const input = oracleInput(observation);
  const problems: string[] = [];
  for (const record of observation.world.quarantine.records.values()) {
    const message = observation.sent.get(record.messageId);
    if (message === undefined) continue;
    const reasons = possibleReasons(
      input,
      workedUnder(input, message, record.messageKey),
      record.generation,
      record.attemptsCharged,
    );
    if (!reasons.has(record.reason)) {
      problems.push(
        `record ${record.id} of message ${record.messageId} says ${record.reason}; what happened allows ${[...reasons].join(', ') || 'no quarantine'}`,
      );
    }
  }
  return { applicable: observation.world.quarantine.records.size > 0, problems };
};

/**
 * The message under the key of the record, when its own attempts ran under that key: a replay
 * whose reset another replay superseded is a producer's message, worked under its messageId
 * (docs/behaviour.md), not under the key it was sent with, and one message may have run under
 * both. Otherwise (no attempt of its own there) the key it was sent with.
 */
function workedUnder(input: OracleInput, message: OracleMessage, recordKey: string): OracleMessage {
  const ranThere = input.attempts.some(
    (attempt) => attempt.messageId === message.messageId && attempt.key === recordKey,
  );
  return ranThere ? { ...message, key: recordKey } : message;
}

/** Rules 2 and 5: a message whose every attempt crashed alone ends at its limit. */
export const crashAloneEndsAtTheLimit: Check = (observation) => {
  const { world, sent } = observation;
  const alone = crashedAlone(oracleInput(observation));
  const problems: string[] = [];
  for (const crashed of alone) {
    const what = `key ${crashed.key} (generation ${crashed.generation}), whose ${crashed.attempts} attempt(s) all crashed alone`;
    if (crashed.attempts > crashed.limit)
      problems.push(`${what}, started more than its limit ${crashed.limit}`);
    const record = recordOf(observation, crashed.key, crashed.generation);
    if (record !== undefined) {
      if (record.reason !== 'crash-limit' && record.reason !== 'receive-limit')
        problems.push(`${what}, was quarantined as ${record.reason}`);
      continue;
    }
    const waiting = [...sent.values()].some(
      (message) => message.key === crashed.key && stillWaiting(observation, message.messageId),
    );
    if (!waiting)
      problems.push(`${what}, is ${world.ledger.get(crashed.key)?.state ?? 'absent'}, not quarantined`);
  }
  return { applicable: alone.length > 0, problems };
};

/** In the queue, not committed, or in the backstop: the message has not left (no-message-lost judges those). */
function stillWaiting(observation: Observation, messageId: string): boolean {
  return (
    atTheSource(observation, messageId) ||
    observation.world.queue.backstop.some((message) => message.messageId === messageId)
  );
}

/**
 * A record's body holds the message's bytes: compared as text for a message sent as text (as the
 * campaign always compared them), byte for byte for one sent as bytes (a Kafka value).
 */
function keptBytes(body: Buffer | undefined, message: OracleMessage): boolean {
  if (body === undefined) return false;
  return message.bytes === undefined ? body.toString('utf8') === message.body : body.equals(message.bytes);
}

/** The key's charges once a generation ended: the item's, or its quarantine record's. */
function chargedAtTheEnd(observation: Observation, key: string, generation: number): number | undefined {
  const item = observation.world.ledger.get(key);
  if (item?.generation === generation) return item.charged;
  return recordOf(observation, key, generation)?.attemptsCharged;
}

/** The quarantine of a key's generation (a key collision is another message's, kept apart). */
function recordOf({ world }: Observation, key: string, generation: number): StoredRecord | undefined {
  return [...world.quarantine.records.values()].find(
    (record) =>
      record.reason !== 'key-collision' &&
      generationKey(record.messageKey, record.generation) === generationKey(key, generation),
  );
}

function describeAttempt(attempt: AttemptFacts): string {
  const crash = attempt.crash && `crashed with ${attempt.crash.inFlight} in flight`;
  const end = attempt.ended && `ended ${attempt.ended}`;
  const thrown = attempt.thrown && `threw ${attempt.thrown}`;
  return [crash, thrown, end, attempt.mayHaveCalled.size > 0 ? 'keyless call made' : undefined]
    .filter(Boolean)
    .join(', ');
}
