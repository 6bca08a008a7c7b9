/**
 * What a Kafka schedule must end with, where docs/behaviour.md ("Kafka sources: what each rule
 * means there") says the rules mean something else for a topic than for a queue. The Kafka log
 * (kafka-log.ts) saw each commit, each start and each invocation as it happened; the world's end
 * state could no longer tell a commit past an unfinished record from one that came after it.
 */
import { kafkaPartitionKey } from '../../contract/sources';
import { timeMarginMs } from '../../lambdas/core/time-guard';
import type { Step } from '../world/scripted-processor';
import { WORLD_TIMEOUT_SECONDS } from '../world/world';
import type { CheckResult } from './check-result';
import type { KafkaInvocationLog, ProducedRecord } from './kafka-log';
import type { Observation } from './run-schedule';
import type { MessageSpec, Schedule } from './schedule';
import type { KafkaObservation } from './schedule-source';

const NOT_APPLICABLE: CheckResult = { applicable: false, problems: [] };

/**
 * Nothing lost ("What stays"): a partition's offset is committed past a record only once it has
 * completed or been quarantined (or is the same message as one that did, rule 13); a record that
 * stays fails the batch, and the mapping delivers it again.
 */
export function commitsOnlyEndedRecords({ kafka }: Observation): CheckResult {
  if (kafka === undefined) return NOT_APPLICABLE;
  const problems = kafka.log.commits
    .filter((commit) => commit.notEnded.length > 0)
    .map(
      (commit) =>
        `${commit.envId} committed partition ${commit.partition} from ${commit.from} to ${commit.to}, past ${commit.notEnded.join(', ')}, which had neither completed nor been quarantined`,
    );
  return { applicable: kafka.log.commits.length > 0, problems };
}

/**
 * Order: the records of a partition run one at a time, in offset order. An attempt starts only
 * once every record before it in its partition has completed or been quarantined (a quarantined
 * record is the partition moving on); so they complete in offset order but for those quarantined.
 */
export function partitionOrderKept({ kafka }: Observation): CheckResult {
  if (kafka === undefined) return NOT_APPLICABLE;
  const partitions = new Set([...kafka.log.records.values()].map((record) => record.partition));
  const ordered = [...partitions].some(
    (partition) =>
      [...kafka.log.records.values()].filter((record) => record.partition === partition).length > 1,
  );
  return { applicable: ordered, problems: kafka.log.outOfOrder.slice(0, 3) };
}

/**
 * "A record that stays holds the rest of its partition, and the others go on": in a payload of
 * several partitions, a record left untouched (no start write for it) had a record before it in
 * its own partition that stayed (one the consumer's answer left at the source). Judged where nothing else may hold records untouched: the
 * invocation lived and took up some record (a batch held whole is a pause, for every partition:
 * the environment's control state, cached, may still show one), the breaker stood closed as the
 * poll found it, no pause or stop was decided during it, no fault hit the environment's calls
 * (a retried write sleeps), and its records' work cannot have used up the time the time guard
 * keeps for one more (it hands back what the invocation has no time left for).
 * The work goes on; in on-demand mode the commits cannot: Lambda commits a payload only when the
 * invocation returns normally, so the other partitions of a payload wait for the record that
 * stays (and a crash stops the records after it, whatever their partition). That is Lambda's
 * mapping, not judged here. In provisioned mode (partial batch responses) they need not wait: the
 * consumer must answer where the held partition resumes, never fail the payload for it.
 */
export function otherPartitionsNotHeld(observation: Observation): CheckResult {
  const { kafka } = observation;
  if (kafka === undefined) return NOT_APPLICABLE;
  const judged = kafka.log.invocations
    .map((invocation) => ({ invocation, looked: lookedAt(kafka, invocation) }))
    .filter(({ invocation, looked }) => looked.size > 0 && judgeable(observation, invocation));
  const partial = observation.schedule.kafka?.partialBatchResponse === true;
  const problems = judged.flatMap(({ invocation, looked }) => [
    ...heldByAnother(invocation, looked),
    ...(partial ? failedForAHeldRecord(invocation) : []),
  ]);
  return { applicable: judged.length > 0, problems: problems.slice(0, 3) };
}

/** Provisioned mode: a payload failed whole for records that stay holds its other partitions too. */
function failedForAHeldRecord(invocation: KafkaInvocationLog): string[] {
  return invocation.result === 'function-error' && invocation.held !== undefined
    ? [
        `${invocation.envId} failed its payload for ${[...invocation.held].join(', ')} though the mapping reads partial batch responses: every partition of it was held`,
      ]
    : [];
}

function judgeable({ trace, schedule }: Observation, invocation: KafkaInvocationLog): boolean {
  const partitions = new Set(invocation.records.map((record) => record.partition));
  const within = (seq: number) => seq > invocation.seq && seq < invocation.endSeq;
  return (
    partitions.size > 1 &&
    invocation.result !== undefined &&
    invocation.result !== 'crashed' &&
    invocation.breakerClosed &&
    !trace.attempts.pauses.some(within) &&
    !trace.fired.some((fault) => fault.envId === invocation.envId && within(fault.seq)) &&
    timeToSpare(schedule, invocation)
  );
}

/**
 * The time guard cannot have cut the payload: the longest its records' work can take, plus the
 * longest record the environment can have seen (any script of the schedule) and the guard's margin,
 * is within the function timeout.
 */
function timeToSpare(schedule: Schedule, invocation: KafkaInvocationLog): boolean {
  const timeoutSeconds = schedule.config.consumerTimeoutSeconds ?? WORLD_TIMEOUT_SECONDS;
  const workMs = (script: readonly Step[]) =>
    script.reduce((sum, step) => sum + (step.do === 'work' ? step.ms : 0), 0);
  const longestMs = (message: MessageSpec) => Math.max(0, ...message.scripts.map(workMs));
  const payloadMs = invocation.records.reduce((sum, record) => sum + longestMs(record.spec), 0);
  const seenMs = Math.max(0, ...schedule.messages.map(longestMs));
  return payloadMs + seenMs + timeMarginMs(timeoutSeconds) < timeoutSeconds * 1000;
}

/** The records the invocation took up: a start write of its environment while it ran. */
function lookedAt(kafka: KafkaObservation, invocation: KafkaInvocationLog): ReadonlySet<string> {
  return new Set(
    kafka.log.looks
      .filter(
        (look) =>
          look.envId === invocation.envId && look.seq > invocation.seq && look.seq < invocation.endSeq,
      )
      .map((look) => look.messageId),
  );
}

function heldByAnother(invocation: KafkaInvocationLog, looked: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  for (const partition of new Set(invocation.records.map((record) => record.partition))) {
    for (const record of invocation.records.filter((each) => each.partition === partition)) {
      if (!looked.has(record.messageId)) {
        problems.push(
          `${invocation.envId} handed ${record.messageId} back untouched though no record before it in partition ${partition} stayed: held by another partition's record`,
        );
        break;
      }
      // It stayed (the consumer's answer holds it): it holds the rest of its partition, and only that.
      if (invocation.held?.has(record.messageId) !== false) break;
    }
  }
  return problems;
}

/**
 * No partition held for good: a Kafka mapping keeps no receive count and moves no record aside
 * (no backstop), so a record that stays holds its partition until it ends. Once the faults are
 * cleared, the outages over, and an operator answers what waits for a person and resumes what
 * stopped (the drain), every record must end and its partition be committed past it.
 */
export function partitionsDrain({ kafka }: Observation): CheckResult {
  if (kafka === undefined) return NOT_APPLICABLE;
  const problems: string[] = [];
  for (let partition = 0; partition < kafka.topic.partitionCount; partition++) {
    const lag = kafka.topic.lag(partition);
    const at = kafka.topic.committedOffset(partition);
    if (lag > 0)
      problems.push(
        `partition ${partition} is held at offset ${at} after the drain: ${lag} record(s) never committed`,
      );
  }
  return { applicable: true, problems };
}

/**
 * Rule 3 for a Kafka record: its quarantine keeps the value's exact bytes, its key, every header
 * in order, its topic, partition and offset, and names the partition as its group whose order was
 * broken (the partition moved on past it).
 */
export function quarantineKeepsTheRecord({ kafka, world }: Observation): CheckResult {
  if (kafka === undefined) return NOT_APPLICABLE;
  const problems: string[] = [];
  let judged = 0;
  for (const stored of world.quarantine.records.values()) {
    const record = kafka.log.records.get(stored.messageId);
    if (record === undefined) continue;
    judged += 1;
    const what = `record ${stored.id} of ${record.messageId}`;
    if (!world.quarantine.body(stored.id)?.equals(record.bytes))
      problems.push(`${what} does not hold the value's exact bytes`);
    const envelope = JSON.parse(world.quarantine.objects.get(stored.envelopeKey)?.toString('utf8') ?? '{}');
    const kept = envelope.kafka ?? {};
    const expected = evidenceOf(kafka, record);
    for (const field of Object.keys(expected) as (keyof typeof expected)[]) {
      if (JSON.stringify(kept[field]) !== JSON.stringify(expected[field]))
        problems.push(
          `${what} keeps ${field} ${JSON.stringify(kept[field])}, it was ${JSON.stringify(expected[field])}`,
        );
    }
    const group = kafkaPartitionKey(kafka.topic.name, record.partition);
    if (stored.messageGroupId !== group || stored.orderBroken !== true)
      problems.push(`${what} does not name partition ${group} as its group whose order was broken`);
  }
  return { applicable: judged > 0, problems: problems.slice(0, 3) };
}

function evidenceOf(kafka: KafkaObservation, record: ProducedRecord) {
  return {
    topic: kafka.topic.name,
    partition: record.partition,
    offset: record.offset,
    key: record.recordKey,
    headers: record.headers,
  };
}
