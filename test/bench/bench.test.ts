/**
 * A short run of `npm run bench` (issue 10): the AWS calls per message on each path, exactly,
 * from the real consumer over the in-memory world, and the scale model's shape. Times are never
 * asserted here: they belong to the bench's side-by-side ratios.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_OPTIONS, runBench } from '../../bench/run-bench';
import { HEADROOM_PERCENT } from '../../bench/scale/item-load';

describe('npm run bench, calls and cost per message', () => {
  it('given each path of one message, then its AWS calls are exactly the measured floor', async () => {
    // Act
    const report = await runBench({ ...DEFAULT_OPTIONS, only: ['calls'] });

    // Assess
    const calls = (dynamodbWrites: number, dynamodbReads: number, s3: number, sqs: number, sfn: number) => ({
      dynamodbWrites,
      dynamodbReads,
      s3,
      sqs,
      sfn,
    });
    expect(report.callsPerMessage).toStrictEqual({
      healthy: calls(2, 0, 0, 0, 0),
      // Before a failure event (a transient error, a crash found), a fresh read of the control
      // items (issue 24: one BatchGetItem, 3 read units).
      transientRetry: calls(5, 2, 0, 2, 0),
      // A crash alone (re)starts the isolation trial since issue 37: the trial item, the crash's
      // record that it started it, and the retry's pass of the trial are three writes more.
      chargedCrash: calls(9, 4, 0, 1, 0),
      // Rule 11a reads one counter item per quarantine (issue 10 item 3), not the byStatus index.
      quarantine: calls(4, 1, 2, 0, 0),
      outcomeUnknown: calls(8, 5, 2, 1, 1),
      duplicate: calls(1, 0, 0, 0, 0),
    });
    // Billed units: a quarantine's record and open-record counter go in one TransactWriteItems,
    // 2 write units per item (4 for one request); the control items' BatchGetItem reads 3 items,
    // 3 units; every other request is 1 unit of its kind.
    const units = (write: number, read: number) => ({ write, read });
    expect(report.dynamodbUnitsPerMessage).toStrictEqual({
      healthy: units(2, 0),
      transientRetry: units(5, 4),
      chargedCrash: units(9, 6),
      quarantine: units(7, 1),
      outcomeUnknown: units(11, 7),
      duplicate: units(1, 0),
    });
    // $0.625 per million write units, $0.125 per million read units, $5 per million S3 PUTs,
    // $0.40 per million SQS requests: e.g. quarantine 7 x 0.625 + 0.125 + 2 x 5 = 14.50.
    expect(report.costPerMillionUsd).toStrictEqual({
      healthy: 1.25,
      transientRetry: 4.43,
      chargedCrash: 6.78,
      quarantine: 14.5,
      outcomeUnknown: 18.15,
      duplicate: 0.63,
    });
  });
});

describe('npm run bench, scale model', () => {
  it('given the issue scenario, then it reports a peak for every hot item', async () => {
    // Act
    const report = await runBench({ ...DEFAULT_OPTIONS, only: ['scale'] });

    // Assess
    expect(Object.keys(report.scale?.items ?? {})).toEqual([
      'breaker',
      'isolation',
      'failureWindow',
      'openRecordsCounter',
    ]);
    expect(report.scale?.peakItemWritesPerSecond).toBeGreaterThan(0);
    // Rule 11a: 10 quarantines a second (1 in 1,000 of 10,000 msg/s), each one read of the
    // counter and its ADD in a transaction (2 units), all on one item: 2% of 1,000 write units.
    expect(report.scale?.items.openRecordsCounter).toStrictEqual({
      peakWritesPerSecond: 20,
      peakReadsPerSecond: 10,
      percentOfLimits: 2,
    });
  });

  it('given the issue scenario, then every hot item keeps half its partition free (issue 24)', async () => {
    // Act
    const report = await runBench({ ...DEFAULT_OPTIONS, only: ['scale'] });

    // Assess: at most 500 write and 1,500 read units a second on any one item or partition.
    const items = Object.entries(report.scale?.items ?? {});
    expect(items.filter(([, peak]) => peak.percentOfLimits > HEADROOM_PERCENT)).toStrictEqual([]);
    expect(items.filter(([, peak]) => peak.peakWritesPerSecond > 500)).toStrictEqual([]);
    expect(items.filter(([, peak]) => peak.peakReadsPerSecond > 1_500)).toStrictEqual([]);
  });
});

describe('npm run bench, progress', () => {
  it('given some sections, then each says on stderr which of them it is before it runs, and how long it took', async () => {
    const lines: string[] = [];

    await runBench({ ...DEFAULT_OPTIONS, only: ['scale', 'calls'], progress: (line) => lines.push(line) });

    // In the bench's own order, whatever the order asked.
    expect(lines).toStrictEqual([
      'calls (1 of 2): measuring...',
      expect.stringMatching(/^calls: measured in \d+ s$/),
      'scale (2 of 2): measuring...',
      expect.stringMatching(/^scale: measured in \d+ s$/),
    ]);
  });
});
