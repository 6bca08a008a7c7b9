/**
 * `pq discard` against the construct deployed into moto: an open record is closed as resolved
 * with a `discard` audit entry, its content kept; anything not open is refused and unchanged.
 */
import { describe, expect, it } from 'vitest';
import { groupId } from '../../lambdas/core/operator';
import { type CliHarness, MOTO_CALLER, withCliHarness } from './support/cli-harness';

let cli: CliHarness;

withCliHarness((started) => {
  cli = started;
});

describe('pq discard ID', () => {
  it('resolves an open record with an audited discard, keeps its content and sends nothing', async () => {
    const seeded = await cli.quarantine();

    const discard = await cli.run('discard', seeded.id, '--reason', 'obsolete order, customer cancelled');

    expect(discard).toStrictEqual({
      code: 0,
      stderr: '',
      stdout: `Discarded ${seeded.id}: resolved, nothing replayed. Its content stays in the quarantine bucket (pq show ${seeded.id}).\n`,
    });
    const record = await cli.records.get(seeded.id);
    expect(record?.status).toBe('resolved');
    expect(record?.audit.map(({ who, what, why }) => ({ who, what, why }))).toStrictEqual([
      { who: MOTO_CALLER, what: 'discard', why: 'obsolete order, customer cancelled' },
    ]);
    expect(Date.parse(record?.audit[0]?.when ?? '')).not.toBeNaN();
    expect(Buffer.compare(await cli.records.readBody(seeded.id), seeded.body)).toBe(0);
    expect((await cli.ledger.get(seeded.messageKey))?.state).toBe('quarantined');
    expect(await cli.receive()).toStrictEqual([]);
  });

  it('refuses (exit 2, nothing changes) a record awaiting an operator, and one already closed', async () => {
    const awaiting = await cli.quarantine({ reason: 'outcome-unknown', status: 'awaiting-operator' });
    const closed = await cli.quarantine();
    await cli.run('discard', closed.id, '--reason', 'first');

    const verifyFirst = await cli.run('discard', awaiting.id, '--reason', 'obsolete');
    const again = await cli.run('discard', closed.id, '--reason', 'second');

    expect(verifyFirst).toStrictEqual({
      code: 2,
      stdout: '',
      stderr: `pq discard: refused: record ${awaiting.id}: it waits for an operator to check the outside system (outcome unknown): use verify ID --discard (or --done | --not-done)\n`,
    });
    expect(again.stderr).toBe(
      `pq discard: refused: record ${closed.id}: its status is resolved: only open records can be discarded\n`,
    );
    expect((await cli.records.get(awaiting.id))?.status).toBe('awaiting-operator');
    expect((await cli.records.get(closed.id))?.audit).toHaveLength(1);
  });

  it('requires a reason and an existing record', async () => {
    const seeded = await cli.quarantine();

    expect(await cli.run('discard', seeded.id)).toStrictEqual({
      code: 2,
      stdout: '',
      stderr: 'pq discard: refused: --reason "why" is required\n',
    });
    expect((await cli.run('discard', 'q-nope', '--reason', 'x')).stderr).toBe(
      'pq discard: not found: no quarantine record q-nope (pq list shows the ids)\n',
    );
    expect((await cli.records.get(seeded.id))?.status).toBe('open');
  });

  it('is listed in the overall help', async () => {
    const { code, stdout } = await cli.run('--help');

    expect(code).toBe(0);
    expect(stdout).toMatch(/^ {2}discard +close open records without replaying them/m);
  });
});

describe('pq discard --group', () => {
  it('discards the open members, reports the awaiting ones (exit 2) and leaves other groups alone', async () => {
    const error = {
      class: 'permanent',
      name: 'ValidationError',
      message: 'field "coupon" missing',
      stackHead: 'at validateCoupon (v.js:1:1)',
    } as const;
    const members = [await cli.quarantine({ lastError: error }), await cli.quarantine({ lastError: error })];
    const awaiting = await cli.quarantine({
      lastError: error,
      reason: 'outcome-unknown',
      status: 'awaiting-operator',
    });
    const bystander = await cli.quarantine();
    const group = groupId('permanent | ValidationError | at validateCoupon (v.js) | field "#" missing');

    const discard = await cli.run('discard', '--group', group, '--reason', 'coupon campaign ended');

    expect(discard.code).toBe(2);
    expect(discard.stderr).toBe('pq discard: refused: 1 of 3 records refused (see the table)\n');
    for (const member of members) {
      expect(discard.stdout).toMatch(new RegExp(`^${member.id} +discarded +resolved, content kept$`, 'm'));
      expect((await cli.records.get(member.id))?.status).toBe('resolved');
    }
    expect(discard.stdout).toMatch(new RegExp(`^${awaiting.id} +REFUSED +it waits for an operator`, 'm'));
    expect((await cli.records.get(awaiting.id))?.status).toBe('awaiting-operator');
    expect((await cli.records.get(bystander.id))?.status).toBe('open');
    expect(await cli.receive()).toStrictEqual([]);
  });

  it('given stderr is a terminal, then a progress line counts the members there and is cleared before the result', async () => {
    const error = {
      class: 'permanent',
      name: 'QuotaError',
      message: 'over',
      stackHead: 'at q (q.js:1:1)',
    } as const;
    for (let count = 0; count < 3; count += 1) await cli.quarantine({ lastError: error });
    let at = Date.parse('2030-01-01T00:00:00Z');
    // Each look at the clock a second later: every step is past the ten-a-second limit.
    const tick = () => {
      at += 1000;
      return new Date(at);
    };
    const ticking = { now: tick, sleep: async () => {}, stderrIsTerminal: true };

    const onTerminal = await cli.runOn(
      ticking,
      'discard',
      '--group',
      groupId('permanent | QuotaError | at q (q.js) | over'),
      '--reason',
      'quota raised',
    );
    const other = { ...error, name: 'OtherError' };
    for (let count = 0; count < 2; count += 1) await cli.quarantine({ lastError: other });
    const piped = await cli.run(
      'discard',
      '--group',
      groupId('permanent | OtherError | at q (q.js) | over'),
      '--reason',
      'quota raised',
    );

    const clear = '\r\u001b[K';
    expect(onTerminal).toMatchObject({
      code: 0,
      stderr: [0, 1, 2].map((done) => `${clear}pq discard: discarded ${done} of 3`).join('') + clear,
    });
    expect(onTerminal.stdout).toMatch(/discarded +resolved/);
    // Not a terminal: nothing on stderr.
    expect(piped).toMatchObject({ code: 0, stdout: expect.stringMatching(/discarded/), stderr: '' });
  });
});
