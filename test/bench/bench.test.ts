/**
 * A short run of `npm run bench` (issue 10): the AWS calls per message on each path, exactly,
 * from the real consumer over the in-memory world, and the scale model's shape. Times are never
 * asserted here: they belong to the bench's side-by-side ratios.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_OPTIONS, runBench } from '../../bench/run-bench';

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
      transientRetry: calls(5, 1, 0, 2, 0),
      chargedCrash: calls(6, 3, 0, 1, 0),
      // Rule 11a reads one counter item per quarantine (issue 10 item 3), not the byStatus index.
      quarantine: calls(4, 1, 2, 0, 0),
      outcomeUnknown: calls(8, 4, 2, 1, 1),
      duplicate: calls(1, 0, 0, 0, 0),
    });
    // Billed units: a quarantine's record and open-record counter go in one TransactWriteItems,
    // 2 write units per item (4 for one request); every other request is 1 unit of its kind.
    const units = (write: number, read: number) => ({ write, read });
    expect(report.dynamodbUnitsPerMessage).toStrictEqual({
      healthy: units(2, 0),
      transientRetry: units(5, 1),
      chargedCrash: units(6, 3),
      quarantine: units(7, 1),
      outcomeUnknown: units(11, 4),
      duplicate: units(1, 0),
    });
    // $0.625 per million write units, $0.125 per million read units, $5 per million S3 PUTs,
    // $0.40 per million SQS requests: e.g. quarantine 7 x 0.625 + 0.125 + 2 x 5 = 14.50.
    expect(report.costPerMillionUsd).toStrictEqual({
      healthy: 1.25,
      transientRetry: 4.05,
      chargedCrash: 4.53,
      quarantine: 14.5,
      outcomeUnknown: 17.78,
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
    // No single item above DynamoDB's per-partition limits (1,000 write, 3,000 read units a second).
    expect(Object.entries(report.scale?.items ?? {}).filter(([, peak]) => peak.overLimit)).toStrictEqual([]);
    // Rule 11a: 10 quarantines a second (1 in 1,000 of 10,000 msg/s), each one read of the
    // counter and its ADD in a transaction (2 units), all on one item.
    expect(report.scale?.items.openRecordsCounter).toStrictEqual({
      peakWritesPerSecond: 20,
      peakReadsPerSecond: 10,
      overLimit: false,
    });
  });
});
