/**
 * Issue 8, defect 1, end to end: Step Functions refuses every StartExecution the consumer makes
 * (the real consumer bundle with a fault injector, in a Node process against moto). An outage of
 * the outside system trips the breaker, but no pause execution ever starts: the mapping stays
 * enabled and nothing would drive the breaker back. What must hold: a paused consumer hands its
 * records back for the cool-down, not at once, so they do not walk to the backstop; `pq status`
 * names the stuck pause; `pq resume` starts the run the consumer could not, which restores
 * consumption; every message then completes, uncharged and never quarantined.
 */
import { Duration } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoBody, type E2e, holdsFor, startE2e, str } from './e2e-support';
import { waitFor } from './support';

const KEYS = ['S1', 'S2', 'S3', 'S4', 'S5'];
/** The construct's defaults, stated: the records come back once the cool-down is over. */
const COOLDOWN_SECONDS = 60;

let e2e: E2e;

beforeAll(async () => {
  e2e = await startE2e({
    consumerTimeoutSeconds: 3,
    environments: 1,
    pipeline: {
      messageKeyPath: 'id',
      batchSize: 5,
      maxBatchingWindow: Duration.seconds(1),
      outageFailureThreshold: 3,
      breakerCooldown: Duration.seconds(COOLDOWN_SECONDS),
    },
    // More refusals than the test can use up: the consumer never starts a pause itself.
    faults: [{ at: 'operations.startPause', error: 'server-error', times: 1000 }],
  });
});
afterAll(async () => {
  await e2e?.stop();
});

describe('given Step Functions refuses every pause the consumer starts', () => {
  it('when an outage trips the breaker, then no execution runs, the mapping stays enabled and the records wait out the cool-down', async () => {
    e2e.outside.setStatus(503);
    await e2e.send(...KEYS.map((id) => demoBody(id, 'succeed-with-external')));
    await waitFor('the breaker open', async () => str(await e2e.breaker(), 'state') === 'open', 30_000);

    // A minute with the breaker open and nothing driving it: the records are not received again
    // and again (each receive would bring the backstop nearer).
    await holdsFor(
      'the stuck pause, with the records waiting',
      50_000,
      async () => ({
        executions: (await e2e.executions()).length,
        mapping: (await e2e.mapping()).state,
        waiting: (await e2e.queueDepth()).total,
      }),
      // SQS's approximate counts may see a record handed back twice for a moment: at least all.
      (value) => value.executions === 0 && value.mapping === 'Enabled' && value.waiting >= KEYS.length,
      2_000,
    );
  }, 120_000);

  it('then pq status names the stuck pause, and pq resume starts the run that brings consumption back', async () => {
    const status = await e2e.cli('status');
    e2e.outside.setStatus(200);
    const resume = await e2e.cli(
      'resume',
      '--reason',
      'Step Functions refused our pauses; the outside system is back',
    );

    expect(status.stdout).toMatch(
      /^Breaker: +OPEN .*NO PAUSE EXECUTION RUNNING for epoch 1: nothing drives it back/m,
    );
    expect(resume).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('started pause-1, which carries it out'),
    });
    await waitFor('the breaker closed', async () => str(await e2e.breaker(), 'state') === 'closed', 60_000);
  }, 90_000);

  it(
    'then every message completes, uncharged, and none was quarantined or sent to the backstop',
    async () => {
      const items = await waitFor(
        'every message completed',
        async () => {
          const found = await e2e.ledgerItems(KEYS);
          return [...found.values()].every((item) => item?.state === 'completed') ? found : undefined;
        },
        COOLDOWN_SECONDS * 1000 + 30_000,
      );
      for (const item of items.values()) expect(item).toMatchObject({ charged: 0 });
      expect(await e2e.quarantineRecords()).toStrictEqual([]);
      expect((await e2e.queueDepth()).total).toBe(0);
    },
    COOLDOWN_SECONDS * 1000 + 40_000,
  );
});
