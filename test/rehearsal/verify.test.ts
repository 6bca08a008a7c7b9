/**
 * Rule 8, the person's side, end to end: a message whose call to the outside system may have
 * happened is quarantined as "outcome unknown" and its execution `ou-<id>` waits with a task
 * token on the record. The operator answers through the CLI (runCli, as `pq verify`):
 * - M3, the seed's variant (`crash-after-external`, misbehaving on attempt 1 only): `--not-done`
 *   replays it once and it completes. The demo's replayed attempt (attempt 2, past "times") plainly
 *   succeeds WITHOUT calling the outside system (lambdas/demo/worker.ts), so the outside system
 *   saw exactly one request for M3, and no more later.
 * - M5 (`succeed-with-external` whose answer is too slow: the call times out after sending):
 *   `--not-done` replays it once and the replay calls the outside system again, which now
 *   answers: exactly 2 requests, the original and the one replay the person asked for.
 * - M4 (`crash-after-external`, like M3): `--done` is never replayed: completed, resolved, one
 *   request.
 * Task tokens never appear in the CLI's output.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuarantineRecord } from '../../lambdas/core/quarantine-record';
import { demoBody, type E2e, holdsFor, startE2e, str } from './e2e-support';
import { waitFor } from './support';

const CONSUMER_TIMEOUT_SECONDS = 2;
/** The construct's default: 6x the consumer timeout. */
const VISIBILITY_MS = CONSUMER_TIMEOUT_SECONDS * 6 * 1000;
const KEYS = ['M3', 'M4', 'M5'] as const;

let e2e: E2e;
const ids: Record<string, string> = {};
const tokens: string[] = [];

beforeAll(async () => {
  e2e = await startE2e({
    consumerTimeoutSeconds: CONSUMER_TIMEOUT_SECONDS,
    // One record per invocation, two environments: the three messages are worked on at once.
    // Three calls left unknown close together would look like an outside system hanging (rule 7,
    // docs/behaviour.md); this test is about the operator's answers, so the threshold is higher.
    pipeline: { messageKeyPath: 'id', batchSize: 1, maxConcurrency: 2, outageFailureThreshold: 10 },
  });
});
afterAll(async () => {
  await e2e?.stop();
});

const recordOf = async (key: string): Promise<QuarantineRecord | undefined> =>
  (await e2e.quarantineRecords()).find((record) => record.messageKey === key);

describe('outcome unknown: the operator checks the outside system and answers', () => {
  it(
    'quarantines each as "outcome unknown" and waits with a task token on the record',
    async () => {
      // M5's answer comes after the worker gave up waiting (about 1 s): sent, outcome unknown.
      e2e.outside.answerFor('M5', { delayMs: 3_000 });
      await e2e.send(
        demoBody('M3', 'crash-after-external', 1),
        demoBody('M4', 'crash-after-external', 1),
        demoBody('M5', 'succeed-with-external'),
      );

      // M3 and M4 come back after the crash, a visibility timeout later.
      const records = await waitFor(
        'three records awaiting an operator with a stored task token',
        async () => {
          const found = await Promise.all(KEYS.map(recordOf));
          if (found.some((record) => record === undefined)) return undefined;
          const raw = await Promise.all(
            found.map((record) => e2e.rawRecord((record as QuarantineRecord).id)),
          );
          // Read again once every token is stored: the first read may predate the wait's write.
          return raw.every((item) => str(item, 'taskToken') !== undefined)
            ? ((await Promise.all(KEYS.map(recordOf))) as QuarantineRecord[])
            : undefined;
        },
        // Generous: a loaded machine is slow to start the executions, and nothing here is timed.
        VISIBILITY_MS + 40_000,
      );
      for (const record of records) {
        ids[record.messageKey] = record.id;
        const raw = await e2e.rawRecord(record.id);
        tokens.push(str(raw, 'taskToken') as string);
        expect(record).toMatchObject({
          status: 'awaiting-operator',
          reason: 'outcome-unknown',
          cause: 'unidentified',
        });
        expect(record.external).toMatchObject({ name: 'outside-system', status: 'pending' });
        expect(record.waitingSince).toBeDefined();
        expect(await e2e.executionStatus(`ou-${record.id}`)).toBe('RUNNING');
      }
      // The seed's variant: quarantined at the first delivery after the crash, no new attempt.
      const m3 = records.find((record) => record.messageKey === 'M3') as QuarantineRecord;
      expect(m3).toMatchObject({ attemptsStarted: 1, stage: 'parsed' });
      expect((await e2e.ledger.get('M3'))?.attempts).toBe(1);
      expect(e2e.outside.counts()).toStrictEqual({ M3: 1, M4: 1, M5: 1 });
      // The token can be stored before the runner deletes the message it came from.
      await waitFor('the queue empty', async () => (await e2e.queueDepth()).total === 0);
    },
    VISIBILITY_MS + 30_000,
  );

  it('shows the records to the operator without their task tokens', async () => {
    const list = await e2e.cli('list');
    expect(list.code).toBe(0);
    for (const key of KEYS) expect(list.stdout).toContain(ids[key]);
    const show = await e2e.cli('show', ids.M3);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(ids.M3);
    // Nothing is replayed without an explicit action, and a plain replay is refused.
    const replay = await e2e.cli('replay', ids.M3, '--reason', 'trying');
    expect(replay.code).toBe(2);
    expect(replay.stderr).toMatch(/verify/);
  });

  it('M3 --not-done: replayed once, completes; the outside system saw one request and no more', async () => {
    const run = await e2e.cli(
      'verify',
      ids.M3,
      '--not-done',
      '--reason',
      'checked the outside system: no order for M3 was booked',
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(
      new RegExp(`Answered ${ids.M3}: not-done\\. Replayed once as message \\S+\\.`),
    );

    const item = await waitFor('M3 completed after its replay', async () => {
      const entry = await e2e.ledger.get('M3');
      return entry?.state === 'completed' ? entry : undefined;
    });
    // A fresh budget (generation 1), one more attempt, nothing charged.
    expect(item).toMatchObject({ generation: 1, attempts: 2, charged: 0 });
    await waitFor('ou-M3 succeeded', async () => (await e2e.executionStatus(`ou-${ids.M3}`)) === 'SUCCEEDED');
    const record = await e2e.records.get(ids.M3);
    expect(record?.status).toBe('replayed');
    expect(record?.cause).toBe('checked the outside system: no order for M3 was booked');
    expect(record?.audit.map((entry) => entry.what)).toEqual(expect.arrayContaining(['replay', 'not-done']));
    expect(str(await e2e.rawRecord(ids.M3), 'taskToken')).toBeUndefined();

    // Asked again: refused, nothing replayed a second time.
    const again = await e2e.cli('verify', ids.M3, '--not-done', '--reason', 'again');
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/status is replayed/);
  }, 40_000);

  it('M5 --not-done: the one replay calls the outside system again: exactly 2 requests', async () => {
    e2e.outside.answerFor('M5', undefined); // the outside system answers at once again
    const run = await e2e.cli(
      'verify',
      ids.M5,
      '--not-done',
      '--reason',
      'the outside system has no record of M5',
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });

    await waitFor(
      'M5 completed after its replay',
      async () => (await e2e.ledger.get('M5'))?.state === 'completed',
    );
    await waitFor('ou-M5 succeeded', async () => (await e2e.executionStatus(`ou-${ids.M5}`)) === 'SUCCEEDED');
    expect((await e2e.records.get(ids.M5))?.status).toBe('replayed');
    expect(e2e.outside.counts().M5).toBe(2);
  }, 40_000);

  it('M4 --done: never replayed; completed, resolved, one request', async () => {
    const run = await e2e.cli(
      'verify',
      ids.M4,
      '--done',
      '--reason',
      'the outside system shows order M4 booked',
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).not.toMatch(/Replayed/);

    await waitFor('ou-M4 succeeded', async () => (await e2e.executionStatus(`ou-${ids.M4}`)) === 'SUCCEEDED');
    const record = await e2e.records.get(ids.M4);
    expect(record?.status).toBe('resolved');
    expect(record?.audit.map((entry) => entry.what)).toContain('done');
    expect(record?.audit.map((entry) => entry.what)).not.toContain('replay');
    expect(str(await e2e.rawRecord(ids.M4), 'taskToken')).toBeUndefined();
    // Completed by the state machine, in the generation it was quarantined in: no replay.
    expect(await e2e.ledger.get('M4')).toMatchObject({ state: 'completed', generation: 0, attempts: 1 });
  }, 30_000);

  it(
    'no further request or delivery after three visibility timeouts, and no token was ever printed',
    async () => {
      const expected: Record<string, number> = { M3: 1, M4: 1, M5: 2 };
      // The ledger says completed before the runner deletes the replayed message.
      await waitFor('the queue empty', async () => (await e2e.queueDepth()).total === 0);
      const settled = await holdsFor(
        'the outside counts, the empty queue and the completed ledger',
        3 * VISIBILITY_MS,
        async () => ({
          counts: e2e.outside.counts(),
          depth: (await e2e.queueDepth()).total,
          states: [...(await e2e.ledgerItems(KEYS)).values()].map((item) => item?.state),
        }),
        (value) =>
          KEYS.every((key) => value.counts[key] === expected[key]) &&
          Object.keys(value.counts).length === KEYS.length &&
          value.depth === 0 &&
          value.states.every((state) => state === 'completed'),
        1_000,
      );
      expect(settled.counts).toStrictEqual(expected);
      expect(await e2e.ledger.get('M4')).toMatchObject({ generation: 0, attempts: 1 });
      expect((await e2e.executions()).map((execution) => execution.status)).toStrictEqual(
        Array(3).fill('SUCCEEDED'),
      );

      expect(tokens).toHaveLength(3);
      const printed = e2e.cliRuns.map((run) => run.stdout + run.stderr).join('\n');
      for (const token of tokens) {
        expect(token.length).toBeGreaterThan(8);
        expect(printed).not.toContain(token);
      }
      console.log(transcript());
    },
    3 * VISIBILITY_MS + 15_000,
  );
});

function transcript(): string {
  const lines = e2e.cliRuns.map((run) => {
    const out = [run.stdout.trimEnd(), run.stderr.trimEnd()].filter((text) => text !== '').join('\n');
    return `$ pq ${run.argv.map((arg) => (/\s/.test(arg) ? JSON.stringify(arg) : arg)).join(' ')}\n${out}\n[exit ${run.code}]`;
  });
  return `verify transcript:\n${lines.join('\n\n')}`;
}
