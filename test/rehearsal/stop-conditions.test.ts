/**
 * Rule 11, end to end: the stop conditions disable the mapping and wait for an operator.
 * (a) The quarantine cannot be written (its bucket is gone): the poison message stays in the
 *     queue, the breaker trips with `stop` (quarantine-unwritable), the mapping is disabled and
 *     stays so past any cool-down, until `pq resume`.
 * (b) More than the stated share of recent messages is being quarantined (here 20% of the last
 *     10, the minimum sample): automatic quarantine stops, the consumer pauses (quarantine-share,
 *     stop) and the remaining poison messages stay in the queue, unquarantined.
 * One execution environment, so the share window (kept per environment) sees every message.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, DeleteBucketCommand } from '@aws-sdk/client-s3';
import { Duration } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerSortKey, OPERATOR_PARTITION } from '../../contract/control';
import { ENV } from '../../contract/env';
import { bool, demoBody, type E2e, holdsFor, num, startE2e, str } from './e2e-support';
import { waitFor } from './support';

// 3 s: a batch of two quarantines (S3, DynamoDB, the share verdict) must never time out on a busy
// machine: a timeout kills the environment, and its share window with it.
const CONSUMER_TIMEOUT_SECONDS = 3;
const VISIBILITY_MS = CONSUMER_TIMEOUT_SECONDS * 6 * 1000;
const COOLDOWN_SECONDS = 3;
const ORIGINAL = { batchSize: 2, maxConcurrency: 1 };

let e2e: E2e;
let bucket: string;

beforeAll(async () => {
  e2e = await startE2e({
    consumerTimeoutSeconds: CONSUMER_TIMEOUT_SECONDS,
    environments: ORIGINAL.maxConcurrency,
    pipeline: {
      messageKeyPath: 'id',
      batchSize: ORIGINAL.batchSize,
      breakerCooldown: Duration.seconds(COOLDOWN_SECONDS),
      breakerProbeWindow: Duration.seconds(3),
      quarantineShareThreshold: 0.2,
      // The verdict waits for min(10, window) outcomes (lambdas/core/config.ts): 10 here.
      quarantineShareWindow: 10,
    },
  });
  bucket = e2e.pipeline.env(ENV.quarantineBucket);
});
afterAll(async () => {
  await e2e?.stop();
});

/** The breaker, and whether the pause waits: a token on its episode's answer item (contract/control.ts). */
const breakerState = async () => {
  const item = await e2e.breaker();
  const epoch = num(item, 'epoch');
  const { Item: answer } = await e2e.pipeline.clients.dynamodb.send(
    new GetItemCommand({
      TableName: e2e.pipeline.env(ENV.controlTable),
      Key: { pk: { S: OPERATOR_PARTITION }, sk: { S: answerSortKey(epoch ?? 0) } },
      ConsistentRead: true,
    }),
  );
  const token = str(item, 'state') === 'closed' ? undefined : str(answer, 'taskToken');
  return {
    state: str(item, 'state'),
    reason: str(item, 'reason'),
    stop: bool(item, 'stop'),
    epoch,
    waiting: token !== undefined,
    token,
  };
};

describe('(a) the quarantine cannot be written', () => {
  it('stops: the message stays in the queue, the mapping is disabled with stop=true', async () => {
    expect(await e2e.mapping()).toStrictEqual({ state: 'Enabled', ...ORIGINAL });
    // Empty (nothing quarantined yet), so S3 lets it go; every put of the consumer now fails.
    await e2e.pipeline.clients.s3.send(new DeleteBucketCommand({ Bucket: bucket }));

    await e2e.send(demoBody('P1', 'throw-permanent'));

    const breaker = await waitFor(
      'the pause waiting for an operator',
      async () => {
        const state = await breakerState();
        return state.waiting ? state : undefined;
      },
      20_000,
    );
    expect(breaker).toMatchObject({ state: 'open', reason: 'quarantine-unwritable', stop: true, epoch: 1 });
    expect(await e2e.mapping()).toMatchObject({ state: 'Disabled' });
    expect(e2e.controlLines.map((line) => line.event)).toContain('quarantine-unwritable');
    expect(e2e.controlLines.find((line) => line.event === 'paused')?.fields).toMatchObject({
      reason: 'quarantine-unwritable',
      stop: true,
      epoch: 1,
    });
    expect(await e2e.executions()).toMatchObject([{ name: 'pause-1', status: 'RUNNING' }]);
    // Never acknowledged, never quarantined.
    expect((await e2e.queueDepth()).total).toBe(1);
    expect(await e2e.quarantineRecords()).toStrictEqual([]);
    expect((await e2e.ledger.get('P1'))?.state).not.toBe('quarantined');
  }, 30_000);

  it(
    'stays disabled past the cool-down while the message becomes visible again: no automatic resume',
    async () => {
      // A visibility timeout is six cool-downs here: long enough to see no automatic resume.
      await waitFor(
        'P1 visible again in the queue',
        async () => {
          const [mapping, depth] = await Promise.all([e2e.mapping(), e2e.queueDepth()]);
          if (mapping.state !== 'Disabled')
            throw new Error(`the mapping resumed by itself: ${mapping.state}`);
          return depth.visible === 1 ? depth : undefined;
        },
        VISIBILITY_MS + 10_000,
        500,
      );
      await holdsFor(
        'the stop',
        COOLDOWN_SECONDS * 1000 + 1_000,
        async () => ({ mapping: (await e2e.mapping()).state, breaker: await breakerState() }),
        (value) => value.mapping === 'Disabled' && value.breaker.state === 'open' && value.breaker.waiting,
      );
      expect(await e2e.executionStatus('pause-1')).toBe('RUNNING');
      expect(await e2e.quarantineRecords()).toStrictEqual([]);

      const status = await e2e.cli('status');
      expect(status.code).toBe(0);
      expect(status.stdout).toMatch(/Mapping:\s+Disabled/);
      expect(status.stdout).toMatch(/OPEN since .*reason quarantine-unwritable.*STOP: no automatic resume/);
      expect(status.stdout).toMatch(/WAITING FOR OPERATOR/);
      const { token } = await breakerState();
      expect(status.stdout + status.stderr).not.toContain(token as string);
    },
    VISIBILITY_MS + 20_000,
  );

  it('resumes only through the operator; the message is then quarantined and the queue empties', async () => {
    await e2e.pipeline.clients.s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const { token } = await breakerState();
    const resume = await e2e.cli('resume', '--reason', 'the quarantine bucket is back');
    expect(resume).toMatchObject({ code: 0, stderr: '' });
    expect(resume.stdout).toMatch(/The waiting pause execution has been answered/);
    expect(resume.stdout).not.toContain(token as string);

    await waitFor('pause-1 succeeded', async () => (await e2e.executionStatus('pause-1')) === 'SUCCEEDED');
    expect(await e2e.mapping()).toStrictEqual({ state: 'Enabled', ...ORIGINAL });
    expect(await breakerState()).toMatchObject({ state: 'closed', epoch: 1, waiting: false });

    const [record] = await waitFor(
      'P1 quarantined and the queue empty',
      async () => {
        const [records, depth] = await Promise.all([e2e.quarantineRecords(), e2e.queueDepth()]);
        return records.length === 1 && depth.total === 0 ? records : undefined;
      },
      20_000,
    );
    // The stopped quarantine was begun on the ledger: the resumed delivery finished it under
    // its id, without running P1 again, and only its own permanent error was charged.
    expect(record).toMatchObject({
      messageKey: 'P1',
      reason: 'permanent-error',
      status: 'open',
      attemptsStarted: 1,
      attemptsCharged: 1,
    });
    console.log(
      `(a) P1 after the resume: quarantined with ${record.attemptsStarted} attempts started, ` +
        `${record.attemptsCharged} charged; ledger ${JSON.stringify(await e2e.ledger.get('P1'))}`,
    );
  }, 40_000);
});

describe('(b) too many of the recent messages are being quarantined', () => {
  const HEALTHY = Array.from({ length: 10 }, (_, index) => `H${index + 1}`);
  const POISON = ['Q1', 'Q2', 'Q3', 'Q4', 'Q5'];

  it('stops quarantining above 20% of the last 10 and pauses with stop=true', async () => {
    await e2e.send(...HEALTHY.map((id) => demoBody(id, 'succeed')));
    await waitFor(
      'the ten healthy messages completed',
      async () => [...(await e2e.ledgerItems(HEALTHY)).values()].every((item) => item?.state === 'completed'),
      20_000,
    );
    const before = (await e2e.quarantineRecords()).length;

    await e2e.send(...POISON.map((id) => demoBody(id, 'throw-permanent')));
    const breaker = await waitFor(
      'the share stop waiting for an operator',
      async () => {
        const state = await breakerState();
        return state.epoch === 2 && state.waiting ? state : undefined;
      },
      20_000,
    );
    expect(breaker).toMatchObject({ state: 'open', reason: 'quarantine-share', stop: true });
    expect(await e2e.mapping()).toMatchObject({ state: 'Disabled' });
    expect(e2e.controlLines.map((line) => line.event)).toContain('quarantine-share-exceeded');
    expect((await e2e.executions()).map((execution) => [execution.name, execution.status])).toStrictEqual([
      ['pause-1', 'SUCCEEDED'],
      ['pause-2', 'RUNNING'],
    ]);

    // With 10 healthy outcomes in the window: 1/10 and 2/10 are not above 20%, 3/10 is.
    const quarantined = (await e2e.quarantineRecords()).filter((record) =>
      POISON.includes(record.messageKey),
    );
    expect(quarantined).toHaveLength(2);
    expect((await e2e.quarantineRecords()).length).toBe(before + 2);

    // Nothing more is quarantined while it waits, past the cool-down; the rest stay in the queue.
    const after = await holdsFor(
      'the share stop',
      COOLDOWN_SECONDS * 1000 + 2_000,
      async () => ({
        records: (await e2e.quarantineRecords()).length,
        mapping: (await e2e.mapping()).state,
        depth: (await e2e.queueDepth()).total,
      }),
      (value) => value.records === before + 2 && value.mapping === 'Disabled',
    );
    expect(after.depth).toBe(POISON.length - 2);
    const left = [...(await e2e.ledgerItems(POISON)).values()].filter(
      (item) => item?.state !== 'quarantined',
    );
    expect(left).toHaveLength(POISON.length - 2);
    expect(await breakerState()).toMatchObject({ state: 'open', reason: 'quarantine-share', waiting: true });
  }, 60_000);
});
