/**
 * The operator CLI's decisions against the construct deployed into moto: cause before replay
 * (rule 12), replay with a fresh budget and the exact message (rule 4), frozen replay (rule 11c),
 * failure groups, and verification of outcome-unknown records through the state machine (rule 8).
 */

import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import type { Message } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { Operations } from '../../lambdas/adapters/operations';
import { groupId } from '../../lambdas/core/operator';
import { type CliHarness, eventually, MOTO_CALLER, withCliHarness } from './support/cli-harness';

let cli: CliHarness;

withCliHarness((started) => {
  cli = started;
});

const replayOf = (message: Message) => message.MessageAttributes?.['pq-replay-of']?.StringValue;

describe('cause, then replay', () => {
  it('sends the exact body with its attributes and pq-replay-of, resets the ledger, and audits every step', async () => {
    const body = '{"order": 7, "city": "Zürich"}';
    const seeded = await cli.quarantine({
      body,
      messageAttributes: {
        tenant: { dataType: 'String', stringValue: 'acme' },
        blob: { dataType: 'Binary', binaryValue: Buffer.from([1, 2, 255]).toString('base64') },
      },
    });

    const cause = await cli.run('cause', seeded.id, 'producer sent v3 schema before the consumer knew it');
    const replay = await cli.run('replay', seeded.id, '--reason', 'v3 support deployed');

    expect(cause).toMatchObject({ code: 0, stderr: '' });
    expect(replay).toMatchObject({ code: 0, stderr: '' });
    expect(replay.stdout).toMatch(
      new RegExp(`^Replayed ${seeded.id} as message \\S+ \\(ledger generation 1`),
    );
    const [message, ...others] = await cli.receive();
    expect(others).toStrictEqual([]);
    expect(message?.Body).toBe(body);
    expect(replayOf(message as Message)).toBe(seeded.id);
    // The consumer works on the replay under the original's key: its ledger item, reset.
    expect(message?.MessageAttributes?.['pq-message-key']?.StringValue).toBe(seeded.messageKey);
    expect(message?.MessageAttributes?.tenant).toMatchObject({ DataType: 'String', StringValue: 'acme' });
    expect(Buffer.from(message?.MessageAttributes?.blob?.BinaryValue ?? []).toJSON().data).toStrictEqual([
      1, 2, 255,
    ]);
    expect(await cli.ledger.get(seeded.messageKey)).toMatchObject({
      state: 'ready',
      generation: 1,
      charged: 0,
      attempts: 1,
    });
    const record = await cli.records.get(seeded.id);
    expect(record?.status).toBe('replayed');
    expect(record?.cause).toBe('producer sent v3 schema before the consumer knew it');
    expect(record?.audit.map(({ who, what, why }) => ({ who, what, why }))).toStrictEqual([
      {
        who: MOTO_CALLER,
        what: 'set-cause "producer sent v3 schema before the consumer knew it"',
        why: 'identified the cause',
      },
      { who: MOTO_CALLER, what: 'replay-started', why: 'v3 support deployed' },
      { who: MOTO_CALLER, what: 'replay', why: 'v3 support deployed' },
    ]);
  });

  it('refuses a replay without a cause (exit 2): nothing changes, nothing is sent', async () => {
    const seeded = await cli.quarantine();

    const replay = await cli.run('replay', seeded.id);

    expect(replay).toStrictEqual({
      code: 2,
      stdout: '',
      stderr: `pq replay: refused: record ${seeded.id}: no cause is recorded yet: run pq cause ${seeded.id} "what went wrong" first\n`,
    });
    expect((await cli.records.get(seeded.id))?.status).toBe('open');
    expect((await cli.ledger.get(seeded.messageKey))?.state).toBe('quarantined');
    expect(await cli.receive()).toStrictEqual([]);
  });

  it('refuses a second replay of the same record', async () => {
    const seeded = await cli.quarantine();
    await cli.run('cause', seeded.id, 'bad data from partner');
    await cli.run('replay', seeded.id);

    const again = await cli.run('replay', seeded.id);

    expect(again.code).toBe(2);
    expect(again.stderr).toContain('its status is replayed: only open records can be replayed');
    expect(await cli.receive()).toHaveLength(1);
  });

  it('refuses an empty or placeholder cause', async () => {
    const seeded = await cli.quarantine();

    expect((await cli.run('cause', seeded.id, ' ')).stderr).toBe(
      'pq cause: refused: the cause is empty: say what went wrong\n',
    );
    expect((await cli.run('cause', seeded.id, 'unidentified')).code).toBe(2);
  });
});

describe('freeze (rule 11c)', () => {
  it('refuses every replay while frozen, shows who froze it, and allows replay again after unfreeze', async () => {
    const seeded = await cli.quarantine();
    await cli.run('cause', seeded.id, 'known bug #42');

    const frozen = await cli.run('freeze', '--reason', 'fix for #42 not deployed yet');
    const status = await cli.run('status');
    const refused = await cli.run('replay', seeded.id);
    const thawed = await cli.run('unfreeze', '--reason', 'fix deployed');
    const replayed = await cli.run('replay', seeded.id);

    expect(frozen).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('Replay is FROZEN (by arn:aws:sts::'),
    });
    expect(status.stdout).toMatch(
      /^Replay: +FROZEN by arn:aws:sts::123456789012:user\/moto at \S+: fix for #42 not deployed yet$/m,
    );
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining('replay is frozen') });
    expect(thawed.code).toBe(0);
    expect(replayed.code).toBe(0);
  });

  it('requires a reason', async () => {
    expect(await cli.run('freeze')).toMatchObject({
      code: 2,
      stderr: 'pq freeze: refused: --reason "why" is required\n',
    });
  });
});

describe('failure groups', () => {
  const groupError = (where: string) =>
    ({
      class: 'permanent',
      name: 'ValidationError',
      message: 'field "sku" missing',
      stackHead: `at ${where} (v.js:1:1)`,
    }) as const;

  it('records a cause for a whole group, then replays it', async () => {
    const error = groupError('validateSku');
    const members = [await cli.quarantine({ lastError: error }), await cli.quarantine({ lastError: error })];
    const bystander = await cli.quarantine();
    const group = groupId('permanent | ValidationError | at validateSku (v.js) | field "#" missing');

    const cause = await cli.run('cause', '--group', group, 'catalog lost the sku field (INC-7)');
    const replay = await cli.run('replay', '--group', group);

    expect(cause.code).toBe(0);
    expect(replay).toMatchObject({ code: 0, stderr: '' });
    expect(replay.stdout).toMatch(new RegExp(`^${members[0]?.id} +replayed +as message`, 'm'));
    const sent = (await cli.receive()).map(replayOf).sort();
    expect(sent).toStrictEqual(members.map((member) => member.id).sort());
    expect((await cli.records.get(bystander.id))?.status).toBe('open');
  });

  it('replays the members with a cause and reports the others (exit 2)', async () => {
    const error = groupError('validatePrice');
    const withCause = await cli.quarantine({ lastError: error });
    const without = await cli.quarantine({ lastError: error });
    await cli.run('cause', withCause.id, 'price feed outage');

    const replay = await cli.run(
      'replay',
      '--group',
      groupId('permanent | ValidationError | at validatePrice (v.js) | field "#" missing'),
    );

    expect(replay.code).toBe(2);
    expect(replay.stderr).toBe('pq replay: refused: 1 of 2 records refused (see the table)\n');
    expect(replay.stdout).toMatch(new RegExp(`^${without.id} +REFUSED +no cause is recorded yet`, 'm'));
    expect((await cli.receive()).map(replayOf)).toStrictEqual([withCause.id]);
  });

  it('given --dry-run, then it lists what would be replayed and what refused, and changes nothing (exit 2)', async () => {
    // Prepare
    const error = groupError('validateTax');
    const withCause = [
      await cli.quarantine({ lastError: error }),
      await cli.quarantine({ lastError: error }),
    ];
    const without = await cli.quarantine({ lastError: error });
    for (const member of withCause) await cli.run('cause', member.id, 'tax table reloaded (INC-8)');
    const group = groupId('permanent | ValidationError | at validateTax (v.js) | field "#" missing');
    const before = await Promise.all([...withCause, without].map((member) => cli.records.get(member.id)));

    // Act
    const dryRun = await cli.run('replay', '--group', group, '--dry-run', '--rate', '0.5');
    const json = await cli.run('replay', '--group', group, '--dry-run', '--json');

    // Assess
    expect(dryRun).toMatchObject({
      code: 2,
      stderr: 'pq replay: refused: 1 of 3 records would be refused (see the table)\n',
    });
    for (const member of withCause) {
      expect(dryRun.stdout).toMatch(
        new RegExp(`^${member.id} +would replay +cause: tax table reloaded \\(INC-8\\)$`, 'm'),
      );
    }
    expect(dryRun.stdout).toMatch(new RegExp(`^${without.id} +REFUSED +no cause is recorded yet`, 'm'));
    expect(dryRun.stdout).toContain(
      'Dry run: 2 of 3 would be replayed, at 0.5 a second over about 2 s. Nothing was changed.\n',
    );
    expect(JSON.parse(json.stdout)).toMatchObject({ dryRun: true, wouldReplay: 2 });
    expect(await cli.receive()).toStrictEqual([]);
    const after = await Promise.all([...withCause, without].map((member) => cli.records.get(member.id)));
    expect(after).toStrictEqual(before);
    for (const member of [...withCause, without]) {
      expect((await cli.ledger.get(member.messageKey))?.state).toBe('quarantined');
    }
  });

  it('given --dry-run for one ID, then it says the record would be replayed and sends nothing (exit 0)', async () => {
    // Prepare
    const seeded = await cli.quarantine();
    await cli.run('cause', seeded.id, 'partner resent a fixed file');

    // Act
    const dryRun = await cli.run('replay', seeded.id, '--dry-run');

    // Assess
    expect(dryRun).toMatchObject({ code: 0, stderr: '' });
    expect(dryRun.stdout).toMatch(
      new RegExp(`^${seeded.id} +would replay +cause: partner resent a fixed file$`, 'm'),
    );
    expect(await cli.receive()).toStrictEqual([]);
    expect((await cli.records.get(seeded.id))?.status).toBe('open');
  });

  it('given --rate 2, then the sends start 500 ms apart on the clock, and every member is replayed', async () => {
    // Prepare: a clock that moves only when pq waits on it.
    const error = groupError('validateRate');
    const members = [];
    for (let member = 0; member < 3; member++) members.push(await cli.quarantine({ lastError: error }));
    const group = groupId('permanent | ValidationError | at validateRate (v.js) | field "#" missing');
    await cli.run('cause', '--group', group, 'rate card fixed');
    let now = Date.parse('2030-06-01T00:00:00Z');
    const waits: number[] = [];
    const clock = {
      now: () => new Date(now),
      sleep: async (ms: number) => {
        waits.push(ms);
        now += ms;
      },
    };

    // Act
    const replay = await cli.runOn(clock, 'replay', '--group', group, '--rate', '2');

    // Assess
    expect(replay).toMatchObject({ code: 0, stderr: '' });
    expect(waits).toStrictEqual([500, 500]);
    const sent = [];
    for (let read = await cli.receive(); read.length > 0; read = await cli.receive()) sent.push(...read);
    expect(sent.map(replayOf).sort()).toStrictEqual(members.map((member) => member.id).sort());
  });

  it('refuses a group that has no open records', async () => {
    expect(await cli.run('replay', '--group', 'g-0000000000')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('no open or awaiting-operator records in group g-0000000000'),
    });
  });
});

describe('verify (rule 8)', () => {
  const operations = () => new Operations(cli.pipeline.clients.sfn, cli.pipeline.names.stateMachines);

  async function waitingForOperator() {
    const seeded = await cli.quarantine({ reason: 'outcome-unknown', status: 'awaiting-operator' });
    const started = await operations().startOutcomeUnknown({
      quarantineId: seeded.id,
      messageKey: seeded.messageKey,
    });
    if (!started.started) throw new Error('the execution was not started');
    await eventually('a stored task token', () => cli.records.taskTokenOf(seeded.id));
    return { ...seeded, executionArn: started.executionArn };
  }
  const finished = (executionArn: string) =>
    eventually('the execution to finish', async () => {
      const { status } = await cli.pipeline.clients.sfn.send(new DescribeExecutionCommand({ executionArn }));
      return status === 'RUNNING' ? undefined : status;
    });

  it('a record whose execution never started: --done is applied to the record itself, and a plain replay is refused', async () => {
    const seeded = await cli.quarantine({ reason: 'outcome-unknown', status: 'awaiting-operator' });

    const replay = await cli.run('replay', seeded.id);
    const verify = await cli.run('verify', seeded.id, '--done', '--reason', 'charge found in Stripe');

    expect(replay.code).toBe(2);
    expect(replay.stderr).toContain('use verify --done|--not-done|--discard');
    expect(verify).toMatchObject({
      code: 0,
      stderr: '',
      stdout: expect.stringContaining('No execution waits'),
    });
    const record = await cli.records.get(seeded.id);
    expect(record?.status).toBe('resolved');
    expect(record?.audit.map(({ who, what, why }) => ({ who, what, why }))).toStrictEqual([
      { who: MOTO_CALLER, what: 'done', why: 'charge found in Stripe' },
    ]);
    expect(await cli.ledger.get(seeded.messageKey)).toMatchObject({
      state: 'completed',
      quarantineId: seeded.id,
    });
    expect(await cli.receive()).toStrictEqual([]);
  });

  it('an execution that failed while it waited (a dead token stored): --not-done replays once and marks the record replayed itself', async () => {
    const waiting = await waitingForOperator();
    const token = await cli.records.taskTokenOf(waiting.id);
    await operations().sendFailure(token as string, 'Test.WaitBroken', 'the wait failed');
    expect(await finished(waiting.executionArn)).toBe('FAILED');
    expect(await cli.records.taskTokenOf(waiting.id)).toBeDefined();

    const verify = await cli.run('verify', waiting.id, '--not-done', '--reason', 'no charge in Stripe');
    const again = await cli.run('verify', waiting.id, '--not-done', '--reason', 'no charge in Stripe');

    expect(verify).toMatchObject({ code: 0, stdout: expect.stringContaining('Replayed once as message') });
    expect(again).toMatchObject({ code: 2, stderr: expect.stringContaining('its status is replayed') });
    expect((await cli.receive()).map(replayOf)).toStrictEqual([waiting.id]);
    const record = await cli.records.get(waiting.id);
    expect(record?.status).toBe('replayed');
    expect(record?.audit.map((entry) => entry.what)).toStrictEqual([
      'set-cause "no charge in Stripe"',
      'replay',
      'not-done',
    ]);
    expect(await cli.records.taskTokenOf(waiting.id)).toBeUndefined();
    expect(await cli.ledger.get(waiting.messageKey)).toMatchObject({ state: 'ready', generation: 1 });
  });

  it('a record with no execution: --discard resolves it, nothing replayed, the ledger left quarantined', async () => {
    const seeded = await cli.quarantine({ reason: 'outcome-unknown', status: 'awaiting-operator' });

    const verify = await cli.run('verify', seeded.id, '--discard', '--reason', 'order cancelled');

    expect(verify).toMatchObject({ code: 0, stderr: '' });
    expect(await cli.records.get(seeded.id)).toMatchObject({ status: 'resolved' });
    expect(await cli.ledger.get(seeded.messageKey)).toMatchObject({ state: 'quarantined' });
    expect(await cli.receive()).toStrictEqual([]);
  });

  it('--done: the execution succeeds, the record is resolved and the ledger completed, nothing replayed', async () => {
    const waiting = await waitingForOperator();

    const verify = await cli.run('verify', waiting.id, '--done', '--reason', 'charge ch_1 found in Stripe');

    expect(verify).toMatchObject({ code: 0, stderr: '' });
    expect(await finished(waiting.executionArn)).toBe('SUCCEEDED');
    const record = await cli.records.get(waiting.id);
    expect(record?.status).toBe('resolved');
    expect(record?.audit.at(-1)).toMatchObject({
      who: MOTO_CALLER,
      what: 'done',
      why: 'charge ch_1 found in Stripe',
    });
    expect(await cli.records.taskTokenOf(waiting.id)).toBeUndefined();
    expect((await cli.ledger.get(waiting.messageKey))?.state).toBe('completed');
    expect(await cli.receive()).toStrictEqual([]);
  });

  it('--not-done: records the reason as the cause, replays once, and the execution marks it replayed', async () => {
    const waiting = await waitingForOperator();

    const verify = await cli.run('verify', waiting.id, '--not-done', '--reason', 'no charge in Stripe');

    expect(verify).toMatchObject({ code: 0, stdout: expect.stringContaining('Replayed once as message') });
    expect(await finished(waiting.executionArn)).toBe('SUCCEEDED');
    expect((await cli.receive()).map(replayOf)).toStrictEqual([waiting.id]);
    const record = await cli.records.get(waiting.id);
    expect(record?.status).toBe('replayed');
    expect(record?.cause).toBe('no charge in Stripe');
    expect(record?.audit.map((entry) => entry.what)).toStrictEqual([
      'set-cause "no charge in Stripe"',
      'replay',
      'not-done',
    ]);
    expect(await cli.ledger.get(waiting.messageKey)).toMatchObject({ state: 'ready', generation: 1 });
  });

  it('requires exactly one decision and a reason', async () => {
    expect((await cli.run('verify', 'q-x', '--done', '--discard', '--reason', 'r')).stderr).toBe(
      'pq verify: give exactly one of --done, --not-done, --discard (pq verify --help)\n',
    );
    expect((await cli.run('verify', 'q-x', '--done')).stderr).toBe(
      'pq verify: refused: --reason "why" is required\n',
    );
  });
});
