/**
 * Rule 11a's open-record count through `pq` against the construct deployed into moto: every
 * way an operator takes a record out of the open statuses lowers the count exactly once, and
 * `pq recount` repairs a count that drifted, audited on the counter item.
 */
import { GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { COUNTER_KEY } from '../../lambdas/adapters/open-records';
import { type CliHarness, MOTO_CALLER, withCliHarness } from './support/cli-harness';

let cli: CliHarness;

withCliHarness((started) => {
  cli = started;
});

async function counterItem() {
  const { Item } = await cli.pipeline.clients.dynamodb.send(
    new GetItemCommand({
      TableName: cli.pipeline.names.quarantineTable,
      Key: COUNTER_KEY,
      ConsistentRead: true,
    }),
  );
  return Item;
}

const openRecords = async () => Number((await counterItem())?.openRecords?.N);

/** What `pq list` shows as waiting for a decision: open and awaiting-operator. */
const listed = async () =>
  (await cli.records.list({ status: 'open' })).length +
  (await cli.records.list({ status: 'awaiting-operator' })).length;

describe('the open-record count through pq', () => {
  it('given discard, verify without an execution and replay, then each record is uncounted once', async () => {
    // Prepare
    const discarded = await cli.quarantine();
    const decided = await cli.quarantine({ reason: 'outcome-unknown', status: 'awaiting-operator' });
    const replayed = await cli.quarantine();
    await cli.run('cause', replayed.id, 'schema v2 before the consumer knew it');
    const before = await openRecords();

    // Act
    const runs = [
      await cli.run('discard', discarded.id, '--reason', 'order cancelled'),
      await cli.run('verify', decided.id, '--discard', '--reason', 'obsolete'),
      await cli.run('replay', replayed.id, '--reason', 'v2 deployed'),
      await cli.run('discard', discarded.id, '--reason', 'once more'),
    ];

    // Assess
    expect(runs.map((run) => run.code)).toStrictEqual([0, 0, 0, 2]);
    expect(await openRecords()).toBe(before - 3);
    expect(await openRecords()).toBe(await listed());
  });
});

describe('pq recount', () => {
  it('given a count that drifted, then it is set to the records, with who, when and why on the counter', async () => {
    // Prepare
    await cli.quarantine();
    const open = await listed();
    await cli.pipeline.clients.dynamodb.send(
      new UpdateItemCommand({
        TableName: cli.pipeline.names.quarantineTable,
        Key: COUNTER_KEY,
        UpdateExpression: 'ADD openRecords :drift',
        ExpressionAttributeValues: { ':drift': { N: '7' } },
      }),
    );

    // Act
    const recount = await cli.run('recount', '--reason', 'INC-12: records edited by hand');

    // Assess
    expect(recount).toStrictEqual({
      code: 0,
      stderr: '',
      stdout: `Open records: ${open} (the counter said ${open + 7}); the consumer stops at 10000.\n`,
    });
    expect(await counterItem()).toMatchObject({
      openRecords: { N: String(open) },
      lastRecount: {
        M: {
          who: { S: MOTO_CALLER },
          when: { S: expect.any(String) },
          why: { S: 'INC-12: records edited by hand' },
          was: { N: String(open + 7) },
          counted: { N: String(open) },
        },
      },
    });
  });

  it('given --json, then one document with both counts and the capacity', async () => {
    // Act
    const recount = await cli.run('recount', '--reason', 'check', '--json');

    // Assess
    const open = await listed();
    expect(recount.code).toBe(0);
    expect(JSON.parse(recount.stdout)).toMatchObject({
      was: open,
      counted: open,
      capacity: 10000,
      who: MOTO_CALLER,
      why: 'check',
    });
  });

  it('given no reason, then it is refused and nothing changes', async () => {
    // Prepare
    const before = await counterItem();

    // Act
    const recount = await cli.run('recount');

    // Assess
    expect(recount).toStrictEqual({
      code: 2,
      stdout: '',
      stderr: 'pq recount: refused: --reason "why" is required\n',
    });
    expect(await counterItem()).toStrictEqual(before);
  });
});
