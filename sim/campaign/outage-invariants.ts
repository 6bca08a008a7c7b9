/**
 * The two invariants about outages (rule 7), and their preconditions, stated precisely:
 *
 * nothing-charged-or-quarantined-for-an-outage (c) applies to an "outage-only" schedule: every
 * script step is a stage or an external call answered `ok`, and the only trouble is staged
 * outages (the outside system refusing or hanging, our attempts table throttled); no SDK
 * faults, crashes, redeploys or operator actions. Then no ledger item may end with a charge,
 * and no quarantine record may come from a delivery received after the outage was evident
 * (outage-evidence.ts: the breaker's threshold was reachable and reached). Before that moment a
 * working breaker cannot have tripped, so what happened then is not held against the consumer.
 * Three exceptions: a probe (breaker half-open) whose keyless call hung may be quarantined as
 * outcome unknown, since the call may have happened (rule 8 outranks rule 7); a `receive-limit`
 * record is where the message would otherwise have gone to the backstop, so it is judged as a
 * backstop arrival, by the next invariant; and a `key-collision` record is decided by the ledger
 * alone (another message under a finished key), so no outage decided it.
 *
 * no-backstop-from-own-failures (a) holds when no message reaches the backstop (or its last
 * receive, quarantined as `receive-limit` instead) that would not have without the receives our
 * own AWS calls wasted while the breaker stood closed after such an outage was evident; probes
 * and sporadic faults before the evidence are the design's cost. A message whose last script
 * fails (it repeats for every later attempt; work past the function's timeout fails too) never
 * completes: alone in the queue it fails every
 * probe, like an outage, and reaches its last receive however few receives were wasted; it must
 * still never reach the backstop itself. Receives an operator's resume let through while the
 * outage lasted, before the consumer saw a failure again, are the operator's choice.
 */
import { DEFAULTS } from '../../contract/defaults';
import { WORLD_TIMEOUT_SECONDS } from '../world/world';
import type { CheckResult } from './check-result';
import { outageEvident } from './outage-evidence';
import type { Observation } from './run-schedule';
import type { CampaignEvent, MessageSpec, Schedule } from './schedule';
import type { Trace } from './trace';

const OUTAGE_ONLY_EVENTS: ReadonlySet<CampaignEvent['do']> = new Set([
  'poll',
  'poll-pair',
  'poll-many',
  'pollers',
  'advance',
  'expire',
  'duplicate',
  'outside-outage',
  'table-outage',
  'poll-partitions',
  'rebalance',
]);

export function isOutageOnly(schedule: Schedule): boolean {
  const outage = schedule.events.some(
    (event) => event.do === 'outside-outage' || event.do === 'table-outage',
  );
  const quietEvents = schedule.events.every((event) => OUTAGE_ONLY_EVENTS.has(event.do));
  const healthyWork = schedule.messages.every((message) =>
    message.scripts.every((script) =>
      script.every((step) => step.do === 'stage' || (step.do === 'external' && step.result === 'ok')),
    ),
  );
  return outage && quietEvents && healthyWork;
}

export function chargedOrQuarantinedForOutage({ schedule, world, trace }: Observation): CheckResult {
  if (!isOutageOnly(schedule)) return { applicable: false, problems: [] };
  const problems = world.ledger
    .all()
    .filter((item) => item.charged > 0)
    .map((item) => `key ${item.key} was charged ${item.charged} during an outage`);
  const rule = { threshold: schedule.config.outageThreshold, by: new Set(['own', 'outside'] as const) };
  for (const record of world.quarantine.records.values()) {
    const decisive = decisiveReceive(trace, record);
    if (decisive === undefined || !outageEvident(trace, decisive, rule)) continue;
    if (decisive.breaker === 'half-open' && record.reason === 'outcome-unknown') continue;
    if (record.reason === 'receive-limit') continue;
    // Another message under a finished key is kept apart by the ledger alone, outage or not: it
    // calls no dependency, so no outage decided it.
    if (record.reason === 'key-collision') continue;
    problems.push(
      `record ${record.id} (${record.reason}) was quarantined from a delivery received after ${schedule.config.outageThreshold} keys had failed in the outage (breaker ${decisive.breaker})`,
    );
  }
  return { applicable: true, problems };
}

export function backstopFromOwnFailures({ schedule, world, trace, sent }: Observation): CheckResult {
  const rule = { threshold: schedule.config.outageThreshold, by: new Set(['own'] as const) };
  const problems: string[] = [];
  // By key: an operator's replay is another message with the same work.
  const failsForever = new Set(
    schedule.messages.filter(lastScriptFails).map((spec) => sent.get(spec.id)?.key),
  );
  const lastReceives = [...world.quarantine.records.values()]
    .filter((record) => record.reason === 'receive-limit' && !failsForever.has(record.messageKey))
    .map((record) => ({ messageId: record.messageId, receiveCount: DEFAULTS.backstopMaxReceiveCount }));
  for (const message of [...world.queue.backstop, ...lastReceives]) {
    const wasted = trace.receives.filter(
      (r) =>
        r.messageId === message.messageId &&
        r.wastedByOwn &&
        r.breaker === 'closed' &&
        !closedByOperator(trace, r) &&
        outageEvident(trace, r, rule),
    ).length;
    if (wasted > 0 && message.receiveCount - wasted < DEFAULTS.backstopMaxReceiveCount) {
      problems.push(
        `message ${message.messageId} reached the backstop (or its last receive) after ${message.receiveCount} receives, ${wasted} of them wasted by our own failing tables while the breaker stayed closed`,
      );
    }
  }
  return { applicable: true, problems };
}

/**
 * The delivery a quarantine record came from: the last one of its key before the record. For
 * "outcome unknown", the one whose call hung, when the outage made it hang: a message paused
 * after its call is only quarantined at a later delivery, but the outage decided it earlier.
 */
function decisiveReceive(
  trace: Trace,
  record: { readonly id: string; readonly messageKey: string; readonly reason: string },
) {
  const created = trace.recordCreated.get(record.id) ?? Number.POSITIVE_INFINITY;
  const hung =
    record.reason === 'outcome-unknown'
      ? trace.failures
          .filter((f) => f.by === 'outside' && f.key === record.messageKey && f.seq < created)
          .at(-1)
      : undefined;
  const before = hung?.seq ?? created;
  return trace.receives.filter((r) => r.key === record.messageKey && r.seq < before).at(-1);
}

/** A throw, a crash, a call not answered `ok`, or work that outlasts the function's timeout. */
function lastScriptFails(spec: MessageSpec): boolean {
  return (spec.scripts.at(-1) ?? []).some(
    (step) =>
      step.do === 'throw' ||
      step.do === 'crash' ||
      (step.do === 'external' && step.result !== 'ok') ||
      (step.do === 'work' && step.ms >= WORLD_TIMEOUT_SECONDS * 1000),
  );
}

/**
 * The breaker stood closed at this receive because an operator resumed during the outage, and
 * the consumer has seen no failure since: the receives of that first batch are the operator's
 * choice, spent before the consumer could notice the outage again (it trips at the first one).
 */
function closedByOperator(trace: Trace, receive: { readonly seq: number }): boolean {
  const closing = trace.closings.filter((candidate) => candidate.seq < receive.seq).at(-1);
  if (closing === undefined || !closing.byOperator) return false;
  return !trace.failures.some(
    (failure) => failure.by === 'own' && failure.seq > closing.seq && failure.seq < receive.seq,
  );
}
