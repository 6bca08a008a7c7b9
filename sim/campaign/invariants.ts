/**
 * What must hold after every schedule, named once here. Each check returns the problems it
 * found as text (empty: it held) and whether it applied to this schedule at all; the explorer
 * counts both. The outage-related checks and their preconditions live in outage-invariants.ts,
 * those of a Kafka source in kafka-invariants.ts.
 */

import type { CheckResult } from './check-result';
import {
  commitsOnlyEndedRecords,
  otherPartitionsNotHeld,
  partitionOrderKept,
  partitionsDrain,
  quarantineKeepsTheRecord,
} from './kafka-invariants';
import { recordsLeaveByAnOperator, replayedOnlyWithACause } from './operator-invariants';
import {
  backstopOnlyWhenNothingCouldTell,
  chargesMatchTheRules,
  crashAloneEndsAtTheLimit,
  everyMessageCompletedOrKept,
  quarantineReasonByTheRules,
} from './oracle-invariants';
import { backstopFromOwnFailures, chargedOrQuarantinedForOutage } from './outage-invariants';
import type { Observation } from './run-schedule';
import { poisonsToldApart, settlesWithinBound, stormStopsQuarantine } from './scale-invariants';
import { deployedLimits, isKafka } from './schedule';
import { atTheSource, heldBehindItsPartition, sentBytes, waitingAtTheSource } from './source-state';
import { keyGeneration } from './trace';

export const INVARIANTS = [
  /** (a) Every message sent ends completed, quarantined with its exact bytes, or queued/backstopped with a ledger record saying why. */
  'no-message-lost',
  /** (a) The backstop (SQS redrive) receives no message because our own tables failed once an outage was evident. */
  'no-backstop-from-own-failures',
  /** (b) A keyless external call reaches the outside system at most once per generation (only `not-done` or a replay starts a new one). */
  'no-keyless-call-repeated',
  /** (c) An outage charges nothing and quarantines nothing once a working breaker could have tripped. */
  'nothing-charged-or-quarantined-for-an-outage',
  /** (d) No attempt starts once the charges reached the limit the starting environment runs with. */
  'charged-within-limit',
  /** (e) Finished work is redone only after its completion write was lost, and a caught loss charges nothing. */
  'completed-work-not-redone',
  /** (f) Every quarantine record can reach a terminal state: open ones hold what a replay or discard needs, waiting ones can be answered. */
  'quarantine-can-reach-an-end',
  /** (f) One quarantine, one record: a quarantine interrupted half-way is finished, not written again under another id. */
  'one-record-per-quarantine',
  /** (g) A tripped breaker always has a way back: after the drain (and one new message, the next batch that finds it) a running pause drives it, or it is closed. */
  'tripped-breaker-has-a-way-back',
  /** Rule 6: one crash starts (or restarts) the isolation trial at most once; on a Kafka source, never (its records run one at a time already). */
  'one-trial-start-per-crash',
  /** Oracle: every message that left the queue had its own work run to its end, or its own bytes kept in a record naming it (or is the same message as one that did, rule 13). */
  'oracle-every-message-completed-or-kept',
  /** Oracle: a message reaches the backstop only if its last receive crashed (its first crash) or our own tables failed it. */
  'oracle-backstop-only-when-nothing-could-tell',
  /** Oracle: each attempt added the charges the rules give it: 1 for a crash alone in flight, a permanent or an unknown error; 0 otherwise. */
  'oracle-charges-match-the-rules',
  /** Oracle: every quarantine record's reason is one that what happened to its key allows. */
  'oracle-quarantine-reason-by-the-rules',
  /** Oracle: a key whose every attempt crashed alone ends `crash-limit` within its limit (or `receive-limit`). */
  'oracle-crash-alone-ends-at-the-limit',
  /** Rule 4: a record leaves open or awaiting-operator only by an operator's decision. */
  'records-leave-quarantine-by-an-operator',
  /** Rule 12: a replayed record had its cause recorded first. */
  'replayed-only-with-a-cause',
  /** Rule 11b: a storm of failing messages stops automatic quarantine at least once. */
  'storm-stops-automatic-quarantine',
  /** Scale (rules 5, 6): poisons never crash together twice, each ends crash-limit (or receive-limit), the rest completes uncharged. */
  'scale-poisons-told-apart',
  /** Scale: the queue settles within its bound (docs/behaviour.md), and rule 7 pauses at most C - threshold + 1 times for C crashing messages (a message's first crash alone is its only event). */
  'scale-settles-within-its-bound',
  /** Kafka (nothing lost): a partition is committed past a record only once it completed or was quarantined (or is the same message as one that did). */
  'kafka-commits-only-ended-records',
  /** Kafka (order): an attempt starts only once every record before it in its partition completed or was quarantined. */
  'kafka-partition-order',
  /** Kafka: in a payload of several partitions, a record that stays holds the rest of its own partition only; the others go on. */
  'kafka-other-partitions-not-held',
  /** Kafka (no backstop): once the faults are cleared and an operator answers and resumes, every partition is committed to its end; none is held for good. */
  'kafka-no-partition-held-for-good',
  /** Kafka (rule 3): a quarantined record keeps the value's exact bytes, key, headers, topic, partition and offset, and names its partition as the group whose order was broken. */
  'kafka-quarantine-keeps-the-record',
] as const;

export type InvariantName = (typeof INVARIANTS)[number];

/**
 * Invariants the current consumer still breaks, each with a kept case (cases/) whose note says
 * what was reported: the campaign test expects them to fail, and the planted-bugs test takes no
 * failure of theirs for a planted break's catch. Remove a name once its fix lands, and the tests
 * guard it.
 */
export const OPEN_INVARIANTS: ReadonlySet<InvariantName> = new Set<InvariantName>([]);

export interface Verdict extends CheckResult {
  readonly invariant: InvariantName;
}

type Check = (observation: Observation) => CheckResult;

const CHECKS: Record<InvariantName, Check> = {
  'no-message-lost': noMessageLost,
  'no-backstop-from-own-failures': backstopFromOwnFailures,
  'no-keyless-call-repeated': noKeylessCallRepeated,
  'nothing-charged-or-quarantined-for-an-outage': chargedOrQuarantinedForOutage,
  'charged-within-limit': chargedWithinLimit,
  'completed-work-not-redone': completedWorkNotRedone,
  'quarantine-can-reach-an-end': quarantineCanReachAnEnd,
  'one-record-per-quarantine': oneRecordPerQuarantine,
  'tripped-breaker-has-a-way-back': (observation) =>
    held(observation.trace.breakerWithoutWayBack.slice(0, 1)),
  'one-trial-start-per-crash': oneTrialStartPerCrash,
  'oracle-every-message-completed-or-kept': everyMessageCompletedOrKept,
  'oracle-backstop-only-when-nothing-could-tell': backstopOnlyWhenNothingCouldTell,
  'oracle-charges-match-the-rules': chargesMatchTheRules,
  'oracle-quarantine-reason-by-the-rules': quarantineReasonByTheRules,
  'oracle-crash-alone-ends-at-the-limit': crashAloneEndsAtTheLimit,
  'records-leave-quarantine-by-an-operator': recordsLeaveByAnOperator,
  'replayed-only-with-a-cause': replayedOnlyWithACause,
  'storm-stops-automatic-quarantine': stormStopsQuarantine,
  'scale-poisons-told-apart': poisonsToldApart,
  'scale-settles-within-its-bound': settlesWithinBound,
  'kafka-commits-only-ended-records': commitsOnlyEndedRecords,
  'kafka-partition-order': partitionOrderKept,
  'kafka-other-partitions-not-held': otherPartitionsNotHeld,
  'kafka-no-partition-held-for-good': partitionsDrain,
  'kafka-quarantine-keeps-the-record': quarantineKeepsTheRecord,
};

export function checkInvariants(observation: Observation): Verdict[] {
  return INVARIANTS.map((invariant) => ({ invariant, ...CHECKS[invariant](observation) }));
}

function held(problems: readonly string[]): CheckResult {
  return { applicable: true, problems };
}

function noMessageLost(observation: Observation): CheckResult {
  const { world, sent, trace } = observation;
  const problems: string[] = [];
  const queued = waitingAtTheSource(observation);
  const waitingKeys = new Set(
    [...queued, ...world.queue.backstop].map((message) => sent.get(message.messageId)?.key),
  );
  const paused = world.control.breaker !== undefined && world.control.breaker.record.state !== 'closed';
  for (const message of sent.values()) {
    const item = world.ledger.get(message.key);
    const where = `message ${message.messageId} (key ${message.key})`;
    if (atTheSource(observation, message.messageId)) {
      if (item === undefined && !paused && !heldBehindItsPartition(observation, message.messageId))
        problems.push(`${where} is still queued and the ledger says nothing why`);
    } else if (world.queue.backstop.some((backstopped) => backstopped.messageId === message.messageId)) {
      const wasted = trace.receives.some((r) => r.messageId === message.messageId && r.wastedByOwn);
      // A backstop reached through our own failures is its own invariant.
      if (item === undefined && !wasted) problems.push(`${where} is in the backstop with no ledger record`);
    } else if (
      item?.state !== 'completed' &&
      item?.state !== 'quarantined' &&
      !waitingKeys.has(message.key)
    ) {
      problems.push(`${where} left the queue while its ledger item is ${item?.state ?? 'absent'}`);
    }
  }
  for (const record of world.quarantine.records.values()) {
    const original = sent.get(record.messageId);
    const body = world.quarantine.body(record.id);
    if (original === undefined || body === undefined || !body.equals(sentBytes(original))) {
      problems.push(`quarantine record ${record.id} does not hold the exact body of ${record.messageId}`);
    }
  }
  for (const item of world.ledger.all()) {
    if (item.state === 'quarantined' && !world.quarantine.records.has(item.quarantineId ?? '')) {
      problems.push(
        `ledger item ${item.key} is quarantined as ${item.quarantineId} but no such record exists`,
      );
    }
  }
  return held(problems);
}

function noKeylessCallRepeated({ trace }: Observation): CheckResult {
  const counts = new Map<string, number>();
  for (const call of trace.outsideCalls) {
    if (!call.keyless) continue;
    const id = `call "${call.name}" of key ${call.key} in generation ${call.generation}`;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return held(
    [...counts]
      .filter(([, count]) => count > 1)
      .map(([id, count]) => `${id} reached the outside system ${count} times`),
  );
}

function chargedWithinLimit({ trace, world, schedule }: Observation): CheckResult {
  const problems = trace.starts
    .filter((start) => start.charged >= start.limit)
    .map(
      (start) =>
        `an attempt of key ${start.key} started in ${start.envId} with ${start.charged} charged, limit ${start.limit}`,
    );
  const highest = Math.max(...deployedLimits(schedule));
  for (const item of world.ledger.all()) {
    if (item.charged > highest)
      problems.push(`key ${item.key} has ${item.charged} charged, above every limit (${highest})`);
  }
  return held(problems);
}

function completedWorkNotRedone({ trace }: Observation): CheckResult {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const redo of trace.redos) {
    const what = `key ${redo.key} (generation ${redo.generation})`;
    // Only the first redo's charge is the finished attempt's: a later start is charged for the
    // redo's own crash, which is a crash like any other.
    const first = !seen.has(keyGeneration(redo.key, redo.generation));
    seen.add(keyGeneration(redo.key, redo.generation));
    if (redo.completionLanded) problems.push(`${what} was completed, and its work started again`);
    else if (first && redo.lostBy === 'thrown' && redo.chargedAtRedo > redo.chargedAtFinish) {
      problems.push(
        `${what} finished its work, its completion write failed, and the redo was charged (${redo.chargedAtFinish} -> ${redo.chargedAtRedo})`,
      );
    }
  }
  return held(problems);
}

function quarantineCanReachAnEnd({ world, trace }: Observation): CheckResult {
  const problems = trace.unanswerable.map(
    (id) => `record ${id} waits for a person, but no running execution can take an answer`,
  );
  // An open record ends by a replay or by `pq discard`; either needs its content to be there.
  for (const record of world.quarantine.records.values()) {
    const stored =
      world.quarantine.objects.has(record.bodyKey) && world.quarantine.objects.has(record.envelopeKey);
    if (record.status === 'open' && !stored) problems.push(`record ${record.id} is open without its content`);
  }
  return held(problems);
}

/**
 * Within a generation a key is quarantined once: after that the ledger admits no attempt until a
 * replay. A key collision is another message's own record, kept apart.
 */
function oneRecordPerQuarantine({ world }: Observation): CheckResult {
  const ids = new Map<string, string[]>();
  for (const record of world.quarantine.records.values()) {
    if (record.reason === 'key-collision') continue;
    const quarantine = keyGeneration(record.messageKey, record.generation);
    ids.set(quarantine, [...(ids.get(quarantine) ?? []), record.id]);
  }
  return held(
    [...ids.values()]
      .filter((records) => records.length > 1)
      .map((records) => `one quarantine has ${records.length} records: ${records.join(', ')}`),
  );
}

/**
 * A crash, as the consumer can know it, is an environment whose attempts a later delivery found
 * in flight (dead, or alive but gone: the two look the same); each may (re)start the trial once.
 */
function oneTrialStartPerCrash({ trace, world, schedule }: Observation): CheckResult {
  const crashes = trace.crashedEnvironments.size;
  // Counted where the trial is written: comparing the item around a call is fooled by a
  // message passing the trial meanwhile (found with the case trial-started-twice-around-…).
  const starts = world.control.trialsStarted;
  // docs/behaviour.md, "Kafka sources": a partition's records run one at a time, so rule 6's
  // trial would change nothing there.
  if (isKafka(schedule) && starts > 0)
    return held([`the isolation trial started ${starts} time(s) on a Kafka source`]);
  return held(
    starts > crashes
      ? [`the isolation trial started ${starts} times for ${crashes} crashed environment(s)`]
      : [],
  );
}
