/** The Kafka section as readable tables (bench/report.ts puts it in its place). */
import type { RecordFate } from './figures';
import {
  KAFKA_SIDES,
  type KafkaResult,
  type KafkaSideName,
  type PerRecordCost,
  type PoisonFigures,
} from './kafka';

const SIDE_LABELS: Record<KafkaSideName, string> = {
  poisonQuarantine: 'poison-quarantine',
  nativeDefaults: 'native, defaults (retries -1)',
  nativeRetries2: 'native, retries 2 + destination',
};

type Table = (rows: readonly (readonly (string | number)[])[]) => string;

/** A count as people read it: 1,000. */
const count = (value: number) => value.toLocaleString('en-US');

export function formatKafka(kafka: KafkaResult, table: Table): string {
  return [
    scenarioLine(kafka),
    poisonTable(kafka, table),
    outageTable(kafka, table),
    requestsTable(kafka, table),
  ].join('\n');
}

function scenarioLine({ scenario }: KafkaResult): string {
  const { pace, breaker } = scenario;
  return (
    `Kafka, side by side in virtual time (${scenario.partitions} partitions, records written at ` +
    `${scenario.recordsPerSecond}/s on each, batch size ${scenario.batchSize}; a failed or idle partition is polled again ` +
    `${pace.repollMs / 1000} s after its last poll began, a busy one ${pace.roundTripMs} ms after it ended; ` +
    `consumer timeout ${scenario.consumerTimeoutSeconds} s, cool-down ${breaker.cooldownSeconds} s doubling up to ` +
    `${breaker.maxCooldownSeconds} s, probe window ${breaker.probeSeconds} s):`
  );
}

function poisonTable({ scenario, poison }: KafkaResult, table: Table): string {
  const rows = KAFKA_SIDES.map((side) => {
    const figures = poison[side];
    const held = figures.poisonedPartition;
    return [
      SIDE_LABELS[side],
      held.seconds === null ? `until retention (> ${count(held.countedSeconds)} s)` : `${held.seconds} s`,
      held.seconds === null
        ? `${count(held.invocations)} in ${count(held.countedSeconds)} s, ${count(held.failed)} failed`
        : `${held.invocations} (${held.failed} failed)`,
      `${figures.otherPartitions.heldInvocations} invocations, ${figures.otherPartitions.longestHoldSeconds} s`,
      fate(figures.poisonEnd, figures),
    ];
  });
  return [
    `  Poison: ${count(scenario.recordsPerPartition)} records on each partition, the one at offset ${scenario.poison.offset} ` +
      `of partition ${scenario.poison.partition} kills its worker on every attempt; held from its first delivery:`,
    indent(
      table([
        ['consumer', 'poisoned partition held', 'invocations', 'other partitions held', 'the poison'],
        ...rows,
      ]),
    ),
  ].join('\n');
}

function fate(end: RecordFate, figures: PoisonFigures): string {
  switch (end.kind) {
    case 'quarantined':
      return `quarantined (${end.reason})`;
    case 'sent-to-destination':
      return `sent to the failure destination, ${figures.healthySentToDestination} healthy records with it`;
    case 'completed':
      return 'completed';
    case 'blocking':
      return `still blocking at the horizon, ${count(figures.recordsLeft)} records waiting`;
  }
}

function outageTable({ scenario, outage }: KafkaResult, table: Table): string {
  const dash = (value: number | null, unit = '') => (value === null ? '-' : `${value}${unit}`);
  const rows = KAFKA_SIDES.map((side) => {
    const figures = outage[side];
    return [
      SIDE_LABELS[side],
      count(figures.healthySentToDestination),
      dash(figures.quarantined),
      dash(figures.charged),
      count(figures.invocationsDuringOutage),
      `${figures.longestHoldSeconds} s`,
      dash(figures.pausedSeconds, ' s'),
      dash(figures.caughtUpSeconds, ' s'),
      count(figures.recordsLeft),
    ];
  });
  const { outage: span } = scenario;
  return [
    `  Outage: ${count(span.recordsPerPartition)} records on each partition; the dependency every record calls answers 503 ` +
      `from ${span.startSeconds} s for ${span.seconds} s:`,
    indent(
      table([
        [
          'consumer',
          'to the destination',
          'quarantined',
          'charged',
          'invocations in it',
          'longest hold',
          'paused (off or probing)',
          'caught up after it',
          'left',
        ],
        ...rows,
      ]),
    ),
  ].join('\n');
}

function requestsTable({ requestsPerRecord }: KafkaResult, table: Table): string {
  const row = (name: string, cost: PerRecordCost) => [
    name,
    cost.calls.dynamodbWrites,
    cost.calls.dynamodbReads,
    cost.units.write,
    cost.units.read,
    cost.calls.s3,
    cost.calls.sqs,
    cost.calls.sfn,
    cost.usdPerMillion,
  ];
  return [
    "  AWS requests per healthy record (the consumer's, from its call meter) and USD per million records:",
    indent(
      table([
        ['run', 'ddb writes', 'ddb reads', 'write units', 'read units', 's3', 'sqs', 'sfn', 'USD/1M'],
        row('poison-quarantine, healthy topic', requestsPerRecord.healthy),
        row('poison-quarantine, with the poison', requestsPerRecord.withPoison),
        row('poison-quarantine, through the outage', requestsPerRecord.throughOutage),
        ['native mapping', 0, 0, 0, 0, 0, 0, 0, 0],
      ]),
    ),
    '  - the native mapping makes no requests of its own; on both sides the broker, the pollers (provisioned ' +
      "mode's event poller units: native retries and destination need it), invocations and GB-s are left out, " +
      'and so are the destination’s requests (one per failed batch)',
  ].join('\n');
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
