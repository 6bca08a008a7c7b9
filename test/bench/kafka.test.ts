/**
 * The bench's kafka section, run small (issue 38 item 6): 20 records on each of 3 partitions
 * (written at 5 a second), the poison at offset 10 of partition 1, an outage from 2 s for 30 s
 * over 200 records a partition. Everything runs in virtual time, so its figures are exact:
 * each is derived in a comment from the scenario and the rules each side models.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { KafkaResult } from '../../bench/kafka/kafka';
import { DEFAULT_OPTIONS, runBench } from '../../bench/run-bench';

const SMALL = {
  recordsPerPartition: 20,
  recordsPerSecond: 5,
  batchSize: 10,
  horizonSeconds: 600,
  outage: { startSeconds: 2, seconds: 30, recordsPerPartition: 200 },
};

let kafka: KafkaResult;

beforeAll(async () => {
  const report = await runBench({ ...DEFAULT_OPTIONS, only: ['kafka'], kafka: SMALL });
  if (report.kafka === undefined) throw new Error('the kafka section reported nothing');
  kafka = report.kafka;
});

const notHeld = { heldInvocations: 0, longestHoldSeconds: 0 };

describe('npm run bench, kafka: one poison record', () => {
  it('given poison-quarantine, then the partition is held for the 3 crashed invocations alone, and the poison is quarantined', () => {
    // The 30 s timeout gives attempts a 7.5 s lease (a quarter). Each redelivery (1 s after the
    // crash) waits out the rest of the crashed attempt's lease within itself (6.5 s), then runs the
    // poison, which crashes again; the fourth delivery finds the limit used and quarantines:
    // 3 x (1 + 6.5) = 22.5 s, 3 failed invocations and the one that quarantines.
    expect(kafka.poison.poisonQuarantine).toStrictEqual({
      poisonedPartition: { seconds: 22.5, invocations: 4, failed: 3, countedSeconds: 22.5 },
      otherPartitions: notHeld,
      poisonEnd: { kind: 'quarantined', reason: 'crash-limit' },
      recordsLeft: 0,
      healthySentToDestination: 0,
    });
  });

  it("given the native mapping's defaults (retries -1), then the poison still blocks its partition at the horizon", () => {
    // Written at 2 s, delivered at once and again every second until the horizon 600 s later;
    // its batch (offsets 6 to 10: 4 healthy records before it) and the 9 behind it are still there.
    expect(kafka.poison.nativeDefaults).toStrictEqual({
      poisonedPartition: { seconds: null, invocations: 600, failed: 600, countedSeconds: 600 },
      otherPartitions: notHeld,
      poisonEnd: { kind: 'blocking' },
      recordsLeft: 14,
      healthySentToDestination: 0,
    });
  });

  it('given the native mapping with 2 retries and a destination, then 3 invocations, and its batch goes to the destination', () => {
    // Invoked at 2, 3 and 4 s. Its batch is what was written since the poll at 1 s: offsets 6 to 10,
    // so the 4 healthy records before it go with it (no bisection).
    expect(kafka.poison.nativeRetries2).toStrictEqual({
      poisonedPartition: { seconds: 2, invocations: 3, failed: 3, countedSeconds: 2 },
      otherPartitions: notHeld,
      poisonEnd: { kind: 'sent-to-destination' },
      recordsLeft: 0,
      healthySentToDestination: 4,
    });
  });
});

describe('npm run bench, kafka: an outage of the dependency', () => {
  it('given poison-quarantine, then nothing is sent anywhere, quarantined or charged, and the mapping pauses', () => {
    const ours = kafka.outage.poisonQuarantine;
    expect(ours).toMatchObject({ healthySentToDestination: 0, quarantined: 0, charged: 0, recordsLeft: 0 });
    // Tripped by the first three failures (one a partition, at 2 s) and disabled at the next poll;
    // the first probe after the 60 s cool-down finds the dependency back, and the 30 s probe window
    // ends in a restore, which the drive sees within the second: 90 s and a fraction.
    expect(ours.pausedSeconds).toBeGreaterThanOrEqual(90);
    expect(ours.pausedSeconds).toBeLessThan(91);
    expect(ours.invocationsDuringOutage).toBe(3);
  });

  it("given the native mapping's defaults, then nothing is sent and each partition is held for the outage", () => {
    // Each partition fails at 2 s and every second after; the poll at 32 s succeeds: 30 s, 30 x 3 invocations.
    expect(kafka.outage.nativeDefaults).toMatchObject({
      healthySentToDestination: 0,
      recordsLeft: 0,
      invocationsDuringOutage: 90,
      longestHoldSeconds: 30,
    });
  });

  it('given the native mapping with 2 retries and a destination, then every batch whose 3 invocations fell in the outage is sent', () => {
    // Per partition: the batch polled at 2 s (offsets 6 to 10, 5 records) fails at 2, 3, 4 s; then
    // full batches of 10 from 4.1 s, each 2.1 s (3 invocations 1 s apart, the next 100 ms later),
    // sent while the third invocation starts before 32 s: starts 4.1 ... 29.3, 13 batches.
    // (5 + 13 x 10) x 3 partitions = 405.
    expect(kafka.outage.nativeRetries2).toMatchObject({
      healthySentToDestination: 405,
      recordsLeft: 0,
      longestHoldSeconds: 2,
    });
  });
});

describe('npm run bench, kafka: AWS requests', () => {
  it("given the healthy topic, then each record costs ours 2 DynamoDB writes, as an SQS message's healthy path", () => {
    expect(kafka.requestsPerRecord.healthy).toStrictEqual({
      records: 60,
      calls: { dynamodbWrites: 2, dynamodbReads: 0, s3: 0, sqs: 0, sfn: 0 },
      units: { write: 2, read: 0 },
      usdPerMillion: 1.25,
    });
  });
});
