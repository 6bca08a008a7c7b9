/**
 * `kafka`: poison-quarantine on a Kafka topic side by side with Lambda's native Kafka mapping, on
 * the same records, in virtual time (deterministic: no wall clock is read). Three runs per side:
 * the topic healthy (ours only: its requests per record), with one poison record in the middle of
 * partition 1, and through an outage of the dependency every record calls.
 * Sides: ours (ours.ts), the native mapping with Lambda's defaults (MaximumRetryAttempts -1), and
 * in provisioned mode with 2 retries and an on-failure destination (native-mapping.ts).
 */
import type { CallCounts } from '../../lambdas/consumer/call-meter';
import type { MemoryTopic } from '../../sim/world/memory-topic';
import type { World } from '../../sim/world/world';
import type { DynamodbUnits, PathCalls } from '../calls/port-requests';
import { costPerMillionUsd } from '../cost/cost';
import { round } from '../stats';
import { type DriveLog, driveTopic } from './drive';
import {
  holdOf,
  type OutageFlow,
  outageFlow,
  type PartitionHold,
  type PoisonHold,
  poisonHold,
  type RecordFate,
} from './figures';
import { NativeKafkaMapping } from './native-mapping';
import { OurConsumer } from './ours';
import { type KafkaScenario, PACE } from './scenario';

export const KAFKA_SIDES = ['poisonQuarantine', 'nativeDefaults', 'nativeRetries2'] as const;
export type KafkaSideName = (typeof KAFKA_SIDES)[number];

export interface KafkaOptions {
  readonly recordsPerPartition: number;
  readonly recordsPerSecond: number;
  readonly batchSize: number;
  /** The poison run lasts this long after the poison is written (the native default never moves). */
  readonly horizonSeconds: number;
  readonly outage: {
    readonly startSeconds: number;
    readonly seconds: number;
    /** Records written on each partition in the outage run, at the same rate. */
    readonly recordsPerPartition: number;
  };
}

export const KAFKA_DEFAULTS: KafkaOptions = {
  recordsPerPartition: 1_000,
  recordsPerSecond: 5,
  batchSize: 10,
  horizonSeconds: 3_600,
  // 15 minutes of records; the dependency down from the first minute's end for 10 minutes.
  outage: { startSeconds: 60, seconds: 600, recordsPerPartition: 4_500 },
};

const PARTITIONS = 3;
const POISONED_PARTITION = 1;

export interface PoisonFigures {
  readonly poisonedPartition: PoisonHold;
  readonly otherPartitions: PartitionHold;
  readonly poisonEnd: RecordFate;
  /** Records not committed when the run ended (every record committed, or the horizon). */
  readonly recordsLeft: number;
  /** Healthy records the mapping sent to its failure destination with the poison's batch. */
  readonly healthySentToDestination: number;
}

export interface OutageFigures extends OutageFlow {
  readonly healthySentToDestination: number;
  /** Records not committed when the run ended. */
  readonly recordsLeft: number;
  /** Ours only (null on the native sides, which have neither). */
  readonly quarantined: number | null;
  readonly charged: number | null;
  /** Ours only: seconds the mapping was disabled or at the probe's footprint. */
  readonly pausedSeconds: number | null;
}

/** One record's AWS requests on average over a run, and what they cost per million records. */
export interface PerRecordCost {
  readonly records: number;
  readonly calls: CallCounts;
  readonly units: DynamodbUnits;
  readonly usdPerMillion: number;
}

export interface KafkaResult {
  readonly scenario: {
    readonly partitions: number;
    readonly recordsPerPartition: number;
    readonly recordsPerSecond: number;
    readonly batchSize: number;
    readonly poison: { readonly partition: number; readonly offset: number };
    readonly horizonSeconds: number;
    readonly outage: KafkaOptions['outage'];
    readonly pace: typeof PACE;
    readonly consumerTimeoutSeconds: number;
    readonly breaker: {
      readonly cooldownSeconds: number;
      readonly maxCooldownSeconds: number;
      readonly probeSeconds: number;
    };
  };
  readonly poison: Record<KafkaSideName, PoisonFigures>;
  readonly outage: Record<KafkaSideName, OutageFigures>;
  /** Ours: the consumer's requests per record (the native mapping makes none of its own). */
  readonly requestsPerRecord: {
    readonly healthy: PerRecordCost;
    readonly withPoison: PerRecordCost;
    readonly throughOutage: PerRecordCost;
  };
}

export async function measureKafka(options: KafkaOptions = KAFKA_DEFAULTS): Promise<KafkaResult> {
  const { healthy, poisoned, outage, poison } = scenarios(options);
  const ours = {
    healthy: await runOurs(healthy),
    poison: await runOurs(poisoned),
    outage: await runOurs(outage),
  };
  const nativeDefaults = { poison: await runNative(-1, poisoned), outage: await runNative(-1, outage) };
  const nativeRetries2 = { poison: await runNative(2, poisoned), outage: await runNative(2, outage) };
  const nativePoison = (run: { side: NativeKafkaMapping; log: DriveLog }) =>
    poisonFigures(run.side, run.log, poison, run.side.sentToDestination(poison));
  return {
    scenario: stated(options, poison, ours.healthy.side.world),
    poison: {
      poisonQuarantine: poisonFigures(ours.poison.side, ours.poison.log, poison, 0),
      nativeDefaults: nativePoison(nativeDefaults.poison),
      nativeRetries2: nativePoison(nativeRetries2.poison),
    },
    outage: {
      poisonQuarantine: {
        ...outageFlow(ours.outage.log, PARTITIONS, outageWindow(ours.outage.log, outage)),
        healthySentToDestination: 0,
        recordsLeft: ours.outage.side.topic.lag(),
        ...ours.outage.side.tally(),
        pausedSeconds: ours.outage.side.pausedSeconds(ours.outage.log.end),
      },
      nativeDefaults: nativeOutage(nativeDefaults.outage, outage),
      nativeRetries2: nativeOutage(nativeRetries2.outage, outage),
    },
    requestsPerRecord: {
      healthy: perRecord(ours.healthy.requests, PARTITIONS * healthy.recordsPerPartition),
      withPoison: perRecord(ours.poison.requests, PARTITIONS * poisoned.recordsPerPartition - 1),
      throughOutage: perRecord(ours.outage.requests, PARTITIONS * outage.recordsPerPartition),
    },
  };
}

/** The three runs' topics: healthy, with the poison in the middle of partition 1, through the outage. */
function scenarios(options: KafkaOptions) {
  const writtenIn = (records: number) => records / options.recordsPerSecond;
  const healthy: KafkaScenario = {
    partitions: PARTITIONS,
    recordsPerPartition: options.recordsPerPartition,
    recordsPerSecond: options.recordsPerSecond,
    batchSize: options.batchSize,
    horizonSeconds: writtenIn(options.recordsPerPartition) + options.horizonSeconds,
  };
  const poison = { partition: POISONED_PARTITION, offset: Math.floor(options.recordsPerPartition / 2) };
  return {
    healthy,
    poison,
    // The horizon is counted from the poison's writing: the native default's hold is seen that long.
    poisoned: { ...healthy, poison, horizonSeconds: writtenIn(poison.offset) + options.horizonSeconds },
    outage: {
      ...healthy,
      recordsPerPartition: options.outage.recordsPerPartition,
      outage: options.outage,
      horizonSeconds: writtenIn(options.outage.recordsPerPartition) + options.horizonSeconds,
    },
  };
}

/** What the figures were measured under, printed with them. */
function stated(
  options: KafkaOptions,
  poison: { readonly partition: number; readonly offset: number },
  world: World,
): KafkaResult['scenario'] {
  const { breakerTimings } = world.config;
  return {
    partitions: PARTITIONS,
    recordsPerPartition: options.recordsPerPartition,
    recordsPerSecond: options.recordsPerSecond,
    batchSize: options.batchSize,
    poison,
    horizonSeconds: options.horizonSeconds,
    outage: options.outage,
    pace: PACE,
    consumerTimeoutSeconds: world.config.policy.attemptTimeoutSeconds,
    breaker: {
      cooldownSeconds: breakerTimings.cooldownSeconds,
      maxCooldownSeconds: breakerTimings.maxCooldownSeconds,
      probeSeconds: breakerTimings.probeSeconds,
    },
  };
}

async function runOurs(scenario: KafkaScenario) {
  const side = new OurConsumer(scenario);
  let log: DriveLog | undefined;
  const requests = await side.measure(async () => {
    log = await driveTopic(side, scenario);
  });
  if (log === undefined) throw new Error('the drive ended without a log');
  return { side, log, requests };
}

async function runNative(maximumRetryAttempts: number, scenario: KafkaScenario) {
  const side = new NativeKafkaMapping({ maximumRetryAttempts }, scenario);
  return { side, log: await driveTopic(side, scenario) };
}

function poisonFigures(
  side: { readonly topic: MemoryTopic; fate(partition: number, offset: number): RecordFate },
  log: DriveLog,
  poison: { readonly partition: number; readonly offset: number },
  healthySentToDestination: number,
): PoisonFigures {
  const others = Array.from({ length: PARTITIONS }, (_, partition) => partition).filter(
    (partition) => partition !== poison.partition,
  );
  return {
    poisonedPartition: poisonHold(log, poison),
    otherPartitions: holdOf(log, others),
    poisonEnd: side.fate(poison.partition, poison.offset),
    recordsLeft: side.topic.lag(),
    healthySentToDestination,
  };
}

function outageWindow(log: DriveLog, scenario: KafkaScenario) {
  const from = log.start + (scenario.outage?.startSeconds ?? 0) * 1000;
  return { from, until: from + (scenario.outage?.seconds ?? 0) * 1000 };
}

function nativeOutage(
  run: { side: NativeKafkaMapping; log: DriveLog },
  scenario: KafkaScenario,
): OutageFigures {
  return {
    ...outageFlow(run.log, PARTITIONS, outageWindow(run.log, scenario)),
    healthySentToDestination: run.side.sentToDestination(),
    recordsLeft: run.side.topic.lag(),
    quarantined: null,
    charged: null,
    pausedSeconds: null,
  };
}

function perRecord({ calls, units }: PathCalls, records: number): PerRecordCost {
  const each = (count: number) => round(count / records, 3);
  const average: PathCalls = {
    calls: {
      dynamodbWrites: each(calls.dynamodbWrites),
      dynamodbReads: each(calls.dynamodbReads),
      s3: each(calls.s3),
      sqs: each(calls.sqs),
      sfn: each(calls.sfn),
    },
    units: { write: each(units.write), read: each(units.read) },
  };
  // Priced from the totals, not the rounded averages.
  const usdPerMillion = round(costPerMillionUsd({ calls, units }) / records, 2);
  return { records, ...average, usdPerMillion };
}
