/**
 * `pq replay ID --resume` against the construct deployed into moto: a replay killed half-way
 * (cli/replay-flow.ts, step by step) leaves the record `replaying`; resume finishes it when the
 * ledger shows the consumer picked the replay up, and otherwise releases it without sending.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ReplayClaims } from '../../lambdas/adapters/replay-claims';
import { SourceQueue } from '../../lambdas/adapters/source-queue';
import { bodyDigest } from '../../lambdas/core/ids';
import { type CliHarness, MOTO_CALLER, type Seeded, withCliHarness } from './support/cli-harness';

let cli: CliHarness;

withCliHarness((started) => {
  cli = started;
});

type Step = 'claimed' | 'reset' | 'sent' | 'picked-up';

/** What a `pq replay` killed right after `step` leaves behind, its steps in replay-flow's order. */
async function deadReplay(step: Step, startedAt = new Date(Date.now() - 60 * 60_000)): Promise<Seeded> {
  const seeded = await cli.quarantine();
  await cli.run('cause', seeded.id, 'v2 parser deployed');
  const { clients, names } = cli.pipeline;
  await new ReplayClaims(clients.dynamodb, names.quarantineTable).claim(seeded.id, {
    who: 'arn:aws:sts::123456789012:assumed-role/oncall/ann',
    when: startedAt.toISOString(),
    what: 'replay-started',
    why: 'v2 parser deployed',
  });
  if (step === 'claimed') return seeded;
  await cli.ledger.resetForReplay(seeded.messageKey, {
    expectedState: 'quarantined',
    quarantineId: seeded.id,
    now: startedAt,
  });
  if (step === 'reset') return seeded;
  await new SourceQueue(clients.sqs, names.sourceQueueUrl).replay({
    body: seeded.body.toString('utf8'),
    messageAttributes: {},
    replayOf: seeded.id,
    messageKey: seeded.messageKey,
  });
  if (step === 'sent') return seeded;
  await cli.consumerLedger.start({
    key: seeded.messageKey,
    attemptId: randomUUID(),
    envId: 'env-2',
    messageId: 'm-replayed',
    bodyDigest: bodyDigest(seeded.body.toString('utf8')),
    attemptLimit: 3,
    replayOf: seeded.id,
    now: new Date(),
    expiresAt: 1_900_000_000,
  });
  return seeded;
}

const lastAudit = async (id: string) => {
  const entry = (await cli.records.get(id))?.audit.at(-1);
  return entry && { who: entry.who, what: entry.what, why: entry.why };
};

describe('pq replay ID --resume', () => {
  it('releases a claim whose replay died before resetting the ledger: nothing was sent', async () => {
    const seeded = await deadReplay('claimed');

    const resume = await cli.run('replay', seeded.id, '--resume', '--reason', 'laptop died mid-replay');

    expect(resume).toMatchObject({ code: 0, stderr: '' });
    expect(resume.stdout).toBe(
      `Released ${seeded.id}: the ledger still holds this quarantine (generation 0): the replay never reset it, or undid its reset, so a copy it may have sent is acknowledged as a duplicate. Status: open (pq replay ${seeded.id} sends it again).\n`,
    );
    expect((await cli.records.get(seeded.id))?.status).toBe('open');
    expect(await lastAudit(seeded.id)).toStrictEqual({
      who: MOTO_CALLER,
      what: 'replay-released',
      why: expect.stringMatching(/^laptop died mid-replay: the ledger still holds this quarantine/),
    });
    expect(await cli.ledger.get(seeded.messageKey)).toMatchObject({ state: 'quarantined', generation: 0 });
    expect(await cli.receive()).toStrictEqual([]);
    expect((await cli.run('replay', seeded.id)).code).toBe(0);
    expect(await cli.receive()).toHaveLength(1);
  });

  it.each<Step>(['reset', 'sent'])(
    'after the %s step, not picked up yet: puts the ledger back and releases, sending nothing',
    async (step) => {
      const seeded = await deadReplay(step);

      const resume = await cli.run('replay', seeded.id, '--resume', '--reason', 'pq replay was killed');

      expect(resume).toMatchObject({ code: 0, stderr: '' });
      expect(resume.stdout).toMatch(
        new RegExp(
          `^Released ${seeded.id}: the ledger was reset \\(generation 1\\) but shows no attempt since`,
        ),
      );
      // A copy the dead replay sent meets a quarantined item: acknowledged as a duplicate, no work.
      expect(await cli.ledger.get(seeded.messageKey)).toMatchObject({
        state: 'quarantined',
        quarantineId: seeded.id,
        generation: 1,
      });
      expect((await cli.records.get(seeded.id))?.status).toBe('open');
      expect((await lastAudit(seeded.id))?.what).toBe('replay-released');
      expect(await cli.receive()).toHaveLength(step === 'sent' ? 1 : 0);
    },
  );

  it('records the replay as done when the consumer picked it up, sending nothing', async () => {
    const seeded = await deadReplay('picked-up');

    const resume = await cli.run(
      'replay',
      seeded.id,
      '--resume',
      '--reason',
      'pq replay timed out',
      '--json',
    );

    expect(resume.code).toBe(0);
    expect(JSON.parse(resume.stdout)).toStrictEqual({
      id: seeded.id,
      resumed: 'finish',
      evidence: 'the consumer picked the replay up (ledger: state in-flight, generation 1)',
    });
    expect((await cli.records.get(seeded.id))?.status).toBe('replayed');
    expect(await lastAudit(seeded.id)).toStrictEqual({
      who: MOTO_CALLER,
      what: 'replay-confirmed',
      why: 'pq replay timed out: the consumer picked the replay up (ledger: state in-flight, generation 1)',
    });
    expect((await cli.ledger.get(seeded.messageKey))?.state).toBe('in-flight');
    expect(await cli.receive()).toHaveLength(1);
  });

  it('refuses (exit 2, nothing changes) a claim young enough to belong to a replay still running', async () => {
    const seeded = await deadReplay('reset', new Date());

    const resume = await cli.run('replay', seeded.id, '--resume', '--reason', 'impatient');

    expect(resume.code).toBe(2);
    expect(resume.stderr).toMatch(
      new RegExp(
        `^pq replay: refused: record ${seeded.id}: its replay started at \\S+ and may still be running`,
      ),
    );
    expect((await cli.records.get(seeded.id))?.status).toBe('replaying');
    expect((await cli.ledger.get(seeded.messageKey))?.state).toBe('ready');
  });

  it('refuses a record that is not replaying, and needs a reason and one ID', async () => {
    const seeded = await cli.quarantine();

    expect((await cli.run('replay', seeded.id, '--resume', '--reason', 'x')).stderr).toBe(
      `pq replay: refused: record ${seeded.id}: its status is open: only a replay that broke half-way (status replaying) can be resumed\n`,
    );
    expect((await cli.run('replay', seeded.id, '--resume')).stderr).toBe(
      'pq replay: refused: --reason "why" is required\n',
    );
    expect(await cli.run('replay', '--group', 'g-0000000000', '--resume', '--reason', 'x')).toStrictEqual({
      code: 252,
      stdout: '',
      stderr: 'pq replay: --resume takes one ID, not --group (pq replay --help)\n',
    });
  });
});
