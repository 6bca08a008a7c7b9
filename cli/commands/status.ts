/** `pq status`: is the consumer consuming, and what waits for a person. */

import { BREAKER_STATE } from '../../contract/control';
import { QUARANTINE_STATUS } from '../../contract/quarantine';
import type { Item } from '../../lambdas/adapters/attribute-values';
import { BREAKER_READ_ATTRIBUTES } from '../../lambdas/adapters/control-items';
import type { ControlView } from '../../lambdas/adapters/operator-control';
import {
  AGE_LOOKBACK_MINUTES,
  type OldestMessageAge,
  oldestMessageAge,
} from '../../lambdas/adapters/queue-age';
import type { QueueDepth } from '../../lambdas/adapters/source-queue';
import type { UnreadableBreaker } from '../../lambdas/core/breaker';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import type { Command, CommandContext } from '../command';
import type { Deployment } from '../deployment';
import { fields, section, table } from '../output';

/** Every status that still needs a person; `replaying` only lingers when a replay broke half-way. */
const UNRESOLVED = [
  QUARANTINE_STATUS.open,
  QUARANTINE_STATUS.awaitingOperator,
  QUARANTINE_STATUS.replaying,
] as const;

export const status: Command = {
  name: 'status',
  options: {},
  help: `pq status - the pipeline at a glance

Usage: pq status [--function NAME] [--output FORMAT]

Shows:
  Mapping     the event source mapping: Enabled = consuming; Disabled = paused (breaker or a person)
  Queue       messages visible (waiting), in flight (being worked on), delayed (backing off);
              Oldest message: its age, CloudWatch's latest 1-minute maximum of the last
              ${AGE_LOOKBACK_MINUTES} minutes (SQS reports it nowhere else; needs cloudwatch:GetMetricData)
  Breaker     closed = normal; open = paused after an outage or a stop condition (reason, epoch);
              half-open = probing. "waiting for operator" = run pq resume or pq hold. The pause
              execution driving it, or NO PAUSE EXECUTION RUNNING: then pq resume (or pq hold)
              starts one. UNREADABLE = the item holds what no reader knows (what is wrong and
              its stored attributes are shown): nothing runs until pq reset-breaker
              A Kafka consumer shows its topic and cluster instead (Source): Kafka has no queue
              depth, and the lag of the mapping's consumer group is the cluster's to tell
  Isolation   a trial that runs one message at a time after an unattributable crash
  Replay      allowed, or FROZEN (by whom, why): pq unfreeze --reason "..."
  Open records  rule 11a's count (open and awaiting-operator records), which stops the consumer at
              its capacity, beside the records listed; a difference that stays: pq recount
  Records     unresolved quarantine records by reason. awaiting-operator = outcome unknown:
              check the outside system, then pq verify. replaying = a replay broke half-way:
              pq replay ID --resume (pq list --status replaying shows the ids)

--output json prints the same as one document for scripts: breaker.state is closed, open,
half-open or unreadable (breaker.breaker holds the item as read; absent while it never opened);
queue.oldestMessageAgeSeconds is null when CloudWatch has no datapoint, and also when it could
not be read, which queue.oldestMessageAgeProblem then says. openRecords.counted is null before
the counter exists.

Next: pq list --group`,
  async run(context: CommandContext) {
    const deployment = await context.deployment();
    const { kafka } = deployment;
    const [queue, control, records, counted] = await Promise.all([
      kafka ? undefined : queueOf(deployment, context.now()),
      deployment.controlItems.read(),
      Promise.all(UNRESOLVED.map((state) => deployment.records.list({ status: state }))),
      deployment.records.openRecordsCounted(),
    ]);
    const byReason = countByReason(records.flat());
    const openRecords = {
      counted: counted ?? null,
      listed: byReason.reduce((sum, count) => sum + count.open + count.awaitingOperator, 0),
      capacity: deployment.config.quarantineCapacity,
    };
    const breaker = control.breaker.breaker;
    // An unreadable breaker has no episode whose runs could be asked for.
    const pauseRuns =
      breaker === undefined || breaker.state === BREAKER_STATE.closed || breaker.state === 'unreadable'
        ? []
        : await deployment.operations.pauseRuns(breaker.epoch);
    const json = {
      function: deployment.functionName,
      mapping: deployment.mapping ?? null,
      queue: queue ? { ...queue.depth, ...ageFields(queue.age) } : null,
      ...(kafka ? { kafka: { topic: kafka.topic, cluster: kafka.cluster } } : {}),
      // The state at the top, for scripts: a breaker that never opened has no item, and is closed.
      breaker: { state: breaker?.state ?? BREAKER_STATE.closed, ...control.breaker },
      pauseRuns,
      isolation: control.isolation ?? null,
      replay: control.freeze,
      unresolvedRecords: byReason,
      openRecords,
    };
    return { json, text: render(deployment, queue, control, pauseRuns, byReason, openRecords) };
  },
};

/** An SQS consumer's queue: its depth and the age of its oldest message. */
async function queueOf(deployment: Deployment, now: Date) {
  const [depth, age] = await Promise.all([
    deployment.queue.depth(),
    oldestMessageAge(deployment.clients.cloudwatch, deployment.config.sourceQueueArn, now),
  ]);
  return { depth, age };
}

interface ReasonCount {
  readonly reason: string;
  readonly open: number;
  readonly awaitingOperator: number;
  readonly replaying: number;
}

function countByReason(records: readonly QuarantineRecord[]): ReasonCount[] {
  const counts = new Map<string, ReasonCount>();
  for (const record of records) {
    const count = counts.get(record.reason) ?? {
      reason: record.reason,
      open: 0,
      awaitingOperator: 0,
      replaying: 0,
    };
    const key =
      record.status === QUARANTINE_STATUS.awaitingOperator
        ? 'awaitingOperator'
        : record.status === QUARANTINE_STATUS.replaying
          ? 'replaying'
          : 'open';
    counts.set(record.reason, { ...count, [key]: count[key] + 1 });
  }
  return [...counts.values()].sort((a, b) => a.reason.localeCompare(b.reason));
}

function ageFields(age: OldestMessageAge) {
  return {
    oldestMessageAgeSeconds: age.kind === 'reported' ? age.seconds : null,
    ...(age.kind === 'unreadable' ? { oldestMessageAgeProblem: age.problem } : {}),
  };
}

/** A Kafka consumer's source as a person reads it; the console shows the same words. */
export function describeKafkaSource({
  kafka,
}: {
  readonly kafka?: { readonly topic: string; readonly cluster: string } | undefined;
}): string {
  return kafka === undefined
    ? 'an SQS queue'
    : `Kafka topic ${kafka.topic} on ${kafka.cluster} (no queue depth: the cluster knows the mapping's lag)`;
}

/** The age as a person reads it; the console shows the same words. */
export function describeOldestMessageAge(age: OldestMessageAge): string {
  switch (age.kind) {
    case 'reported':
      return `${duration(age.seconds)} (CloudWatch, 1-minute maximum at ${age.at.slice(11, 16)} UTC)`;
    case 'not-reported':
      return `not reported in the last ${AGE_LOOKBACK_MINUTES} minutes: SQS publishes it to CloudWatch every minute while the queue holds a message; the local AWS publishes none`;
    case 'unreadable':
      return `not read from CloudWatch (pq reads it with cloudwatch:GetMetricData): ${age.problem}`;
  }
}

/** `42 s`, `4 min 12 s`, `3 h`, `2 d 7 h`: the two largest units, a zero second one left out. */
function duration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const parts = [
    [Math.floor(seconds / 86_400), 'd'],
    [Math.floor(seconds / 3_600) % 24, 'h'],
    [Math.floor(seconds / 60) % 60, 'min'],
    [seconds % 60, 's'],
  ] as const;
  const first = parts.findIndex(([value]) => value > 0);
  if (first === -1) return '0 s';
  return parts
    .slice(first, first + 2)
    .filter(([value], index) => index === 0 || value > 0)
    .map(([value, unit]) => `${value} ${unit}`)
    .join(' ');
}

function render(
  deployment: Deployment,
  queue: { readonly depth: QueueDepth; readonly age: OldestMessageAge } | undefined,
  control: ControlView,
  pauseRuns: readonly PauseRun[],
  byReason: readonly ReasonCount[],
  openRecords: OpenRecords,
): string {
  const { mapping } = deployment;
  const overview = fields([
    ['Consumer', deployment.functionName],
    [
      'Mapping',
      mapping
        ? `${mapping.state} (batch size ${mapping.batchSize ?? '-'}, max concurrency ${mapping.maximumConcurrency ?? '-'}, uuid ${mapping.uuid})`
        : 'no event source mapping found for this function',
    ],
    ...(queue === undefined
      ? [['Source', describeKafkaSource(deployment)] as const]
      : ([
          [
            'Queue',
            `${queue.depth.visible} visible, ${queue.depth.inFlight} in flight, ${queue.depth.delayed} delayed`,
          ],
          ['Oldest message', describeOldestMessageAge(queue.age)],
        ] as const)),
    ['Breaker', describeBreaker(control, pauseRuns)],
    ['Isolation', describeIsolation(control)],
    ['Replay', describeFreeze(control)],
    ['Open records', describeOpenRecords(openRecords)],
  ]);
  const rows = byReason.map((count) => [count.reason, count.open, count.awaitingOperator, count.replaying]);
  return (
    overview +
    section(
      'Unresolved quarantine records',
      table(['REASON', 'OPEN', 'AWAITING-OPERATOR', 'REPLAYING'], rows, '(none: nothing is quarantined)'),
    )
  );
}

/** Rule 11a: the counter the consumer stops at, and the records the index lists. */
interface OpenRecords {
  readonly counted: number | null;
  readonly listed: number;
  readonly capacity: number;
}

function describeOpenRecords({ counted, listed, capacity }: OpenRecords): string {
  const stops = `the consumer stops at ${capacity} (rule 11a)`;
  if (counted === null) return `${listed} listed, no counter yet (the next quarantine counts them); ${stops}`;
  if (counted === listed) return `${counted}, ${stops}`;
  // The index may lag its table by a second; a difference that stays is drift.
  return `${counted} counted, ${listed} listed (pq recount repairs a difference that stays); ${stops}`;
}

interface PauseRun {
  readonly name: string;
  readonly status: string;
}

function describeBreaker({ breaker: view }: ControlView, pauseRuns: readonly PauseRun[]): string {
  const { breaker } = view;
  // A stop request no resume lifted holds whatever the breaker item says (the consumer may write it).
  const requested = view.stopRequested
    ? `STOP REQUESTED (${view.stopRequested}): the pause enables nothing until pq resume`
    : undefined;
  if (breaker === undefined || breaker.state === BREAKER_STATE.closed)
    return requested ? `closed; ${requested}` : 'closed (consuming normally)';
  if (breaker.state === 'unreadable') return describeUnreadable(breaker, view.storedAttributes ?? {});
  const parts = [
    `${breaker.state.toUpperCase()} since ${new Date(breaker.openedAt).toISOString()}`,
    `reason ${breaker.reason}`,
    `epoch ${breaker.epoch}`,
    `cool-down ${breaker.cooldownSeconds} s`,
  ];
  const driven = pauseRuns.some((run) => run.status === 'RUNNING');
  if (breaker.stop) parts.push('STOP: no automatic resume');
  if (requested && !breaker.stop) parts.push(requested);
  else if (driven) parts.push('resumes by itself after a good probe');
  if (view.operatorAction) parts.push(`operator said ${view.operatorAction}`);
  if (view.operatorFieldsProblem)
    parts.push(
      `OPERATOR FIELDS UNREADABLE: ${view.operatorFieldsProblem} (pq resume or pq hold writes them afresh, keeping a garbled audit as garbledAudit)`,
    );
  if (view.waitingForOperator) parts.push('WAITING FOR OPERATOR: pq resume | pq hold');
  const runs = pauseRuns.map((run) => `${run.name} ${run.status}`).join(', ');
  parts.push(
    driven
      ? `driven by ${runs}`
      : `NO PAUSE EXECUTION RUNNING for epoch ${breaker.epoch}: nothing drives it back; pq resume --reason "..." (or pq hold) starts one${runs ? ` (runs: ${runs})` : ''}`,
  );
  return parts.join('; ');
}

/** What is wrong, and the attributes a reading depends on as stored (escaped by `fields`). */
function describeUnreadable(breaker: UnreadableBreaker, stored: Item): string {
  const attributes = BREAKER_READ_ATTRIBUTES.filter((name) => stored[name] !== undefined)
    .map((name) => `${name}=${JSON.stringify(stored[name])}`)
    .join(' ');
  return [
    `UNREADABLE: ${breaker.problem}`,
    `stored: ${attributes || '(none of its attributes)'}`,
    'nothing runs: the consumer holds every message until pq reset-breaker --reason "..."',
  ].join('; ');
}

function describeIsolation({ isolation }: ControlView): string {
  if (!isolation?.active) return 'off';
  return `ACTIVE: one message at a time, ${isolation.remaining} more without a crash to end it (since ${new Date(isolation.startedAt).toISOString()}, ${isolation.reason})`;
}

function describeFreeze({ freeze }: ControlView): string {
  if (!freeze.frozen) return 'allowed';
  return `FROZEN by ${freeze.who ?? '?'} at ${freeze.when ?? '?'}: ${freeze.why ?? ''}`;
}
