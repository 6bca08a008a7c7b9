/**
 * What the pages show, read through the same adapters `pq status`, `pq list` and `pq show` use
 * (cli/deployment.ts builds them). Nothing here reads a task token: the quarantine reader and
 * the control reader project them away; only the actions' CLI commands ever read one.
 */

import { type BackstopRow, backstopRow } from '../cli/commands/backstop';
import { type Deployment, mappingSource } from '../cli/deployment';
import { type KafkaRecordView, kafkaView } from '../cli/kafka-view';
import { QUARANTINE_STATUS, type QuarantineStatus } from '../contract/quarantine';
import type { BackstopLocation } from '../lambdas/adapters/backstop-queue';
import { sourceQueueMapping } from '../lambdas/adapters/deployment-lookup';
import type { ControlView } from '../lambdas/adapters/operator-control';
import { type OldestMessageAge, oldestMessageAge } from '../lambdas/adapters/queue-age';
import type { QueueDepth } from '../lambdas/adapters/source-queue';
import { type FailureGroup, groupBySignature, matchesGroup } from '../lambdas/core/operator';
import type { QuarantineRecord } from '../lambdas/core/quarantine-record';
import { absentAs } from '../lambdas/ports/errors';
import type { LedgerEntry } from '../lambdas/ports/ledger';

/** What still needs a person: `pq list`'s default, and what groups are made of. */
export const UNRESOLVED: readonly QuarantineStatus[] = [
  QUARANTINE_STATUS.open,
  QUARANTINE_STATUS.awaitingOperator,
  QUARANTINE_STATUS.replaying,
];

export const ALL_STATUSES: readonly QuarantineStatus[] = Object.values(QUARANTINE_STATUS);

export interface Overview {
  readonly functionName: string;
  readonly mapping: Awaited<ReturnType<typeof sourceQueueMapping>>;
  /** SQS only; a Kafka consumer has a topic (`kafka`), no queue. */
  readonly queue?: QueueDepth;
  /** SQS only: from CloudWatch, where SQS reports it; never fails the page (queue-age.ts). */
  readonly oldestMessage?: OldestMessageAge;
  /** Kafka only: the topic the consumer reads and its cluster. */
  readonly kafka?: { readonly topic: string; readonly cluster: string };
  readonly control: ControlView;
  readonly pauseRuns: readonly { readonly name: string; readonly status: string }[];
  /** Every unresolved record, whatever its age. */
  readonly unresolved: readonly QuarantineRecord[];
  /** Every record quarantined within the chart's span, whatever its status. */
  readonly recent: readonly QuarantineRecord[];
}

/** The pipeline at a glance, as `pq status` reads it; the mapping is read afresh. */
export async function readOverview(deployment: Deployment, since: Date, now: Date): Promise<Overview> {
  const { config, functionName, kafka } = deployment;
  const [mapping, queue, oldestMessage, control, unresolved, recent] = await Promise.all([
    sourceQueueMapping(deployment.clients.lambda, functionName, mappingSource(config)),
    kafka ? undefined : deployment.queue.depth(),
    kafka ? undefined : oldestMessageAge(deployment.clients.cloudwatch, config.sourceQueueArn, now),
    deployment.controlItems.read(),
    listRecords(deployment, { statuses: UNRESOLVED }),
    listRecords(deployment, { statuses: ALL_STATUSES, since }),
  ]);
  const breaker = control.breaker.breaker;
  // An unreadable breaker has no episode whose runs could be asked for (as in pq status).
  const pauseRuns =
    breaker === undefined || breaker.state === 'closed' || breaker.state === 'unreadable'
      ? []
      : await deployment.operations.pauseRuns(breaker.epoch);
  return {
    functionName,
    mapping,
    ...(queue && oldestMessage ? { queue, oldestMessage } : {}),
    ...(kafka ? { kafka: { topic: kafka.topic, cluster: kafka.cluster } } : {}),
    control,
    pauseRuns,
    unresolved,
    recent,
  };
}

export interface RecordFilter {
  readonly statuses: readonly QuarantineStatus[];
  readonly reason?: string;
  readonly since?: Date;
  /** A group id (list --group) or a full error signature. */
  readonly group?: string;
}

/** Records of the given statuses, filtered, newest first (as `pq list`). */
export async function listRecords(deployment: Deployment, filter: RecordFilter): Promise<QuarantineRecord[]> {
  const pages = await Promise.all(
    filter.statuses.map((status) =>
      deployment.records.list({ status, ...(filter.since ? { since: filter.since } : {}) }),
    ),
  );
  return pages
    .flat()
    .filter((record) => filter.reason === undefined || record.reason === filter.reason)
    .filter((record) => filter.group === undefined || matchesGroup(record.errorSignature, filter.group))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** Failure groups of what still needs a person (as `pq list --group`). */
export async function readGroups(deployment: Deployment): Promise<FailureGroup[]> {
  return groupBySignature(await listRecords(deployment, { statuses: UNRESOLVED }));
}

export interface RecordDetail {
  readonly record: QuarantineRecord;
  readonly ledger: LedgerEntry | undefined;
  /** The message and system attributes as delivered; undefined when the envelope is missing. */
  readonly envelope: Record<string, unknown> | undefined;
  readonly body: Buffer;
  /** The status of the record's verification execution (outcome unknown only). */
  readonly verification: string | undefined;
  /** A Kafka consumer's record: topic, partition, offset, key and headers (as `pq show`). */
  readonly kafka?: KafkaRecordView;
}

/** Everything `pq show` shows; undefined when there is no such record. */
export async function readRecord(deployment: Deployment, id: string): Promise<RecordDetail | undefined> {
  const record = await deployment.records.get(id);
  if (record === undefined) return undefined;
  const [ledger, envelope, body, verification] = await Promise.all([
    deployment.ledger.get(record.messageKey),
    deployment.records.readEnvelope(id).catch(absentAs(undefined)),
    deployment.records.readBody(id),
    record.reason === 'outcome-unknown' ? deployment.operations.outcomeUnknownStatus(id) : undefined,
  ]);
  const kafka = deployment.kafka === undefined ? undefined : kafkaView(record, envelope);
  return { record, ledger, envelope, body, verification, ...(kafka === undefined ? {} : { kafka }) };
}

/** The exact body, for download. */
export async function readBody(deployment: Deployment, id: string): Promise<Buffer | undefined> {
  return deployment.records.readBody(id).catch(absentAs(undefined));
}

/** The backstop page: where it is, its depth and what it holds, as `pq backstop list` reads them. */
export interface BackstopView {
  /** Undefined when the source queue has no redrive policy. */
  readonly queue?: BackstopLocation;
  readonly depth?: QueueDepth;
  readonly rows: readonly BackstopRow[];
}

/** At most this many messages are shown (each is a receive: SQS has no listing). */
export const BACKSTOP_SHOWN = 100;

export async function readBackstop(deployment: Deployment): Promise<BackstopView> {
  const queue = await deployment.backstop();
  if (queue === undefined) return { rows: [] };
  // The depth first: a look hides what it saw for a moment.
  const depth = await queue.depth();
  const messages = await queue.peek(BACKSTOP_SHOWN);
  const rows = await Promise.all(messages.map((message) => backstopRow(deployment, message)));
  return { queue: queue.location, depth, rows };
}
