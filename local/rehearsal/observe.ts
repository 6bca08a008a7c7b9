/**
 * A settled scenario's figures, read from the AWS state itself: attempts and completions from
 * the ledger, quarantines from the quarantine table (the operator's read path), what is left
 * and what reached the backstop from the queues' attributes, and external requests from the
 * outside system's own counts. Only the cost per healthy message comes from the consumer (its
 * call meter, logged per record), and the receives per message from the runner.
 */
import type { LedgerEntry } from '../../lambdas/ports/ledger';
import type { ConsumerLog, MeasuredCalls } from '../consumer-log';
import type { IsolationTrialView } from './isolation-watch';
import { renewedItsLease } from './lease-renewals';
import type { OperatorRun } from './operator';
import type { OutageTimeline } from './outage';
import type { PipelineProbe } from './pipeline-probe';
import type { ExpectedTotals, Scenario, ScenarioMessage } from './scenario';

/** The calls a healthy message made, as the consumer's call meter counts them. */
export type HealthyCalls = MeasuredCalls;

export interface MessageState {
  readonly id: string;
  readonly messageId: string;
  readonly state: string;
  readonly attempts: number;
  readonly charged: number;
  /** Invocations the runner handed it to (the SQS message it was last sent as). */
  readonly receives: number;
}

export interface QuarantineLabel {
  readonly id: string;
  readonly quarantineId: string;
  readonly reason: string;
  readonly status: string;
  readonly attemptsStarted: number;
  readonly attemptsCharged: number;
}

export interface Observed {
  readonly attemptsStarted: number;
  readonly completed: number;
  readonly quarantined: number;
  readonly leftInQueue: number;
  /** Messages in the backstop (the source queue's dead-letter queue): visible, in flight or delayed. */
  readonly backstop: number;
  readonly quarantineReasons: Record<string, number>;
  readonly externalRequests: Record<string, number>;
  /** The most any healthy message cost (so the floor holds for each); null when none was healthy. */
  readonly callsPerHealthyMessage: HealthyCalls | null;
  /**
   * DynamoDB round trips a healthy message's work waited on before it started. Derived, not
   * timed: the consumer logs its calls per record, not when the work starts. A healthy message
   * runs the demo's plain `succeed` work (no AWS call) and then exactly one write (the
   * completion, record-lifecycle.ts), so everything else it called came before the work.
   */
  readonly roundTripsBeforeWork: number | null;
  /** Labels of the messages measured for the two figures above. */
  readonly healthyMessages: readonly string[];
  /**
   * Healthy messages left out of those figures: their record ran longer than a third of its
   * attempt's lease (Kafka), so it renewed it, a write a quick record never makes (lease-renewals.ts).
   */
  readonly slowHealthyMessages: readonly string[];
  /** Labels that completed with no quarantine record: nobody had to look at them. */
  readonly completedWithoutPerson: readonly string[];
  readonly quarantine: readonly QuarantineLabel[];
  readonly messages: readonly MessageState[];
  /**
   * The operations figures, read only for a scenario that expects one of them (or plays an
   * outage or an operator), so the seed's figures stay exactly what they were.
   */
  readonly operations?: OperationsFigures;
  /** Rule 6: each isolation trial seen, from its start to its end (only where one started). */
  readonly isolation?: readonly IsolationTrialView[];
  /** Rule 7: when each step of the pause and the resume happened (a scenario with an outage). */
  readonly timeline?: OutageTimeline;
  /** What the operator ran and what the CLI printed (a scenario with operator steps). */
  readonly operator?: readonly OperatorRun[];
  /** The figures once the operator's answers settled (a scenario with operator steps). */
  readonly afterOperator?: Observed;
  /**
   * A Kafka source: the invocations that committed nothing of their partition, by
   * `topic-partition` (partition-holds.ts); partitions never held are left out.
   */
  readonly partitionsHeld?: Readonly<Record<string, number>>;
  /**
   * Of those, the invocations that had no time left to wait out a crashed attempt's lease (a
   * machine too slow for the bound), by `topic-partition`; partitions without any are left out.
   */
  readonly partitionsHeldWithoutTime?: Readonly<Record<string, number>>;
}

export interface OperationsFigures {
  /** Charged attempts summed over every message. */
  readonly charged: number;
  /** Executions named `pause-<epoch>`. */
  readonly pauses: number;
  readonly quarantineStatuses: Record<string, number>;
  /** Per label, the ledger's generation (operator replays), where above 0. */
  readonly replays: Record<string, number>;
  /** Executions of both state machines per status. */
  readonly executions: Record<string, number>;
}

export interface ObserveInput {
  readonly scenario: Scenario;
  readonly probe: PipelineProbe;
  readonly log: ConsumerLog;
  /** Ledger key -> label (the key is the SQS messageId, or the label itself with `messageKey: 'id'`). */
  readonly labels: ReadonlyMap<string, string>;
  /** Label -> the SQS messageId it was sent as (the consumer logs records by it). */
  readonly sent: ReadonlyMap<string, string>;
  /** The outside system's requests per message label. */
  readonly outside: Readonly<Record<string, number>>;
  /** When the first isolation trial began (epoch ms); absent: none did. */
  readonly firstTrialAt?: number;
}

export async function observe(input: ObserveInput): Promise<Observed> {
  const { probe, labels } = input;
  const keys = [...labels.keys()];
  const [items, records, queue, backstop] = await Promise.all([
    probe.ledgerItems(keys),
    probe.quarantineRecords(),
    probe.queueDepth(),
    probe.backstopDepth(),
  ]);
  const entries = keys.flatMap((key) => {
    const item = items.get(key);
    return item ? [{ key, id: labels.get(key) as string, item }] : [];
  });
  const quarantinedKeys = new Set(records.map((record) => record.messageKey));
  const plain = healthyMessages(input, items);
  const slow = (key: string) => renewedItsLease(items.get(key), input.scenario.consumerTimeoutSeconds);
  const healthy = plain.filter((message) => !slow(message.key));
  const calls = maxCalls(healthy.map((message) => message.calls));
  const operations = wantsOperations(input.scenario)
    ? await operationsFigures(input.probe, entries, records)
    : undefined;
  return {
    attemptsStarted: sum(entries.map(({ item }) => item.attempts)),
    completed: entries.filter(({ item }) => item.state === 'completed').length,
    quarantined: records.length,
    leftInQueue: queue.total,
    backstop: backstop.total,
    quarantineReasons: countBy(records.map((record) => record.reason)),
    externalRequests: Object.fromEntries(Object.entries(input.outside).filter(([, count]) => count > 0)),
    callsPerHealthyMessage: calls,
    roundTripsBeforeWork: calls === null ? null : calls.dynamodbWrites + calls.dynamodbReads - 1,
    healthyMessages: healthy.map((message) => message.id),
    slowHealthyMessages: plain.filter((message) => slow(message.key)).map((message) => message.id),
    completedWithoutPerson: entries
      .filter(({ key, item }) => item.state === 'completed' && !quarantinedKeys.has(key))
      .map(({ id }) => id),
    quarantine: records.map((record) => ({
      id: labels.get(record.messageKey) ?? record.messageKey,
      quarantineId: record.id,
      reason: record.reason,
      status: record.status,
      attemptsStarted: record.attemptsStarted,
      attemptsCharged: record.attemptsCharged,
    })),
    messages: keys.map((key) => {
      const item = items.get(key);
      const id = labels.get(key) as string;
      const messageId = input.sent.get(id) ?? key;
      return {
        id,
        messageId,
        state: item?.state ?? 'never started',
        attempts: item?.attempts ?? 0,
        charged: item?.charged ?? 0,
        receives: input.log.receivesOf(messageId),
      };
    }),
    ...(operations === undefined ? {} : { operations }),
  };
}

const OPERATIONS_FIGURES = ['charged', 'pauses', 'quarantineStatuses', 'replays', 'executions'] as const;

function wantsOperations(scenario: Scenario): boolean {
  const { expected } = scenario;
  const names = (totals: ExpectedTotals | undefined) =>
    OPERATIONS_FIGURES.some((figure) => totals?.[figure] !== undefined);
  return (
    scenario.outage !== undefined ||
    scenario.operator !== undefined ||
    names(expected) ||
    names(expected.afterOperator)
  );
}

async function operationsFigures(
  probe: PipelineProbe,
  entries: readonly { readonly id: string; readonly item: LedgerEntry }[],
  records: readonly { readonly status: string }[],
): Promise<OperationsFigures> {
  const executions = await probe.executions();
  return {
    charged: sum(entries.map(({ item }) => item.charged)),
    pauses: executions.filter((execution) => execution.name.startsWith('pause-')).length,
    quarantineStatuses: countBy(records.map((record) => record.status)),
    replays: Object.fromEntries(
      entries.filter(({ item }) => item.generation > 0).map(({ id, item }) => [id, item.generation]),
    ),
    executions: countBy(executions.map((execution) => execution.status)),
  };
}

/**
 * Messages whose first attempt does plain work (`succeed`) and whose only outcome was
 * `completed` on that first attempt. A message declaring an external call costs its two extra
 * writes by design (rule 8), so it is not a measure of the wrapper's own floor; nor is one an
 * injected fault may have hit (a retried write costs a write), so a fault without a `message`
 * leaves none to measure; nor is one logged once an isolation trial had begun: a message that
 * passes a trial counts it down (rule 6), a write by design, and the consumer's cached control
 * state may still see a trial that has ended, so only what completed before the first is measured.
 */
function healthyMessages(input: ObserveInput, items: ReadonlyMap<string, LedgerEntry | undefined>) {
  const byLabel = new Map(input.scenario.messages.map((message) => [message.id, message]));
  const faults = input.scenario.faults ?? [];
  const faulted = (id: string) => faults.some((fault) => fault.message === undefined || fault.message === id);
  return [...input.labels].flatMap(([key, id]) => {
    const message = byLabel.get(id);
    const lines = input.log.recordsOf(input.sent.get(id) ?? key);
    const healthy =
      message !== undefined &&
      plainFirstAttempt(message) &&
      !faulted(id) &&
      items.get(key)?.attempts === 1 &&
      lines.length === 1 &&
      lines[0].outcome.kind === 'completed' &&
      lines[0].at < (input.firstTrialAt ?? Number.POSITIVE_INFINITY);
    return healthy ? [{ key, id, calls: lines[0].calls }] : [];
  });
}

function plainFirstAttempt(message: ScenarioMessage): boolean {
  return (
    message.behaviour === 'succeed' || (message.behaviour !== 'succeed-with-external' && message.times === 0)
  );
}

function maxCalls(all: readonly MeasuredCalls[]): HealthyCalls | null {
  if (all.length === 0) return null;
  const max = (pick: (calls: MeasuredCalls) => number) => Math.max(...all.map(pick));
  return {
    dynamodbWrites: max((calls) => calls.dynamodbWrites),
    dynamodbReads: max((calls) => calls.dynamodbReads),
    s3: max((calls) => calls.s3),
    sqs: max((calls) => calls.sqs),
    sfn: max((calls) => calls.sfn),
  };
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
