/**
 * The steps before the work (consumer/begin-attempt.ts) that mutation testing (npm run mutation)
 * found unpinned: what an outcome-unknown redelivery reports to rule 7, our own tables refusing
 * the start (in and out of a half-open window), an error of ours at the start that is no table
 * failing, replay attributes that name no pending replay, an original or an earlier replay
 * delivered again after a reset for a replay, a colliding message's evidence, and a
 * quarantine finished at redelivery with the error it began with.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BREAKER_STATE } from '../../contract/control';
import { ENV } from '../../contract/env';
import { MESSAGE_KEY_ATTRIBUTE, REPLAY_OF_ATTRIBUTE } from '../../contract/message-attributes';
import { setHalfOpenBreaker } from '../../sim/world/breaker-states';
import { drive } from '../../sim/world/drive';
import { testWorld } from '../../sim/world/scenario';
import type { World } from '../../sim/world/world';

afterEach(() => {
  vi.restoreAllMocks();
});

const breakerState = (world: World) => world.control.breaker?.record.state ?? BREAKER_STATE.closed;

describe('an outcome-unknown redelivery is a rule 7 failure event', () => {
  const crashAfterCharge = [[{ do: 'external', name: 'charge', result: 'crash-after' } as const]];

  it.each([
    ['1', BREAKER_STATE.open],
    ['5', BREAKER_STATE.closed],
  ])(
    'given a threshold of %s, then the breaker ends %s, and the message waits for a person',
    async (threshold, state) => {
      // Prepare
      const { world } = testWorld({
        env: { [ENV.outageFailureThreshold]: threshold },
        scripts: { M1: crashAfterCharge },
      });
      world.queue.send({ messageId: 'id-M1', body: 'M1' });

      // Act
      await drive(world, { maxPolls: 3 });

      // Assess
      expect(breakerState(world)).toBe(state);
      expect([...world.quarantine.records.values()].map((record) => record.reason)).toEqual([
        'outcome-unknown',
      ]);
    },
  );
});

describe('our own tables refusing the start', () => {
  const refusedStart = [{ at: 'ledger.start', error: 'throttle', key: 'id-M1' } as const];

  it('given a half-open window, then the window is vetoed and the batch pauses: the next record does not start', async () => {
    // Prepare
    const error = vi.spyOn(Logger.prototype, 'error');
    const { world } = testWorld({ env: { [ENV.outageFailureThreshold]: '5' }, faults: refusedStart });
    setHalfOpenBreaker(world);
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    world.queue.send({ messageId: 'id-M2', body: 'M2' });

    // Act
    await world.deliver(world.environment(), 2);

    // Assess
    expect(world.control.breaker?.probeOwnFailures).toBe(1);
    expect(world.ledger.get('id-M2')).toBeUndefined();
    expect(error).toHaveBeenCalledWith('our own table is unavailable: the record goes back uncharged', {
      event: 'own-table-unavailable',
      error: expect.objectContaining({ name: 'LedgerUnavailableError' }),
    });
  });

  it('given a closed breaker under the threshold, then no probe is written and the batch goes on', async () => {
    // Prepare
    const { world } = testWorld({ env: { [ENV.outageFailureThreshold]: '5' }, faults: refusedStart });
    const recordProbe = vi.spyOn(world.control, 'recordProbe');
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    world.queue.send({ messageId: 'id-M2', body: 'M2' });

    // Act
    await world.deliver(world.environment(), 2);

    // Assess
    expect(recordProbe).not.toHaveBeenCalled();
    expect(world.ledger.get('id-M1')).toBeUndefined();
    expect(world.ledger.get('id-M2')?.state).toBe('completed');
  });

  it('given an error at the start that is no table failing, then it is not taken for an outage', async () => {
    // Prepare
    const error = vi.spyOn(Logger.prototype, 'error');
    const { world } = testWorld();
    vi.spyOn(world.ledger, 'start').mockRejectedValueOnce(new TypeError('a bug of ours'));
    const failureEvent = vi.spyOn(world.control, 'recordFailureEvent');
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await world.deliver(world.environment(), 1);

    // Assess
    expect(failureEvent).not.toHaveBeenCalled();
    expect(error).not.toHaveBeenCalledWith(
      'our own table is unavailable: the record goes back uncharged',
      expect.anything(),
    );
    expect(world.queue.messages.has('id-M1')).toBe(true);
  });
});

describe('replay attributes that name no pending replay', () => {
  it('given pq-replay-of on a message no operator replayed, then a fallback warning, and it is worked on under its messageId', async () => {
    // Prepare
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const { world } = testWorld();
    world.queue.send({
      messageId: 'id-M1',
      body: 'M1',
      messageAttributes: {
        [REPLAY_OF_ATTRIBUTE]: { dataType: 'String', stringValue: 'q-none' },
        [MESSAGE_KEY_ATTRIBUTE]: { dataType: 'String', stringValue: 'k-1' },
      },
    });

    // Act
    await drive(world);

    // Assess
    expect(world.ledger.get('id-M1')?.state).toBe('completed');
    expect(warn).toHaveBeenCalledWith(
      'replay attributes ignored: no such replay is pending; using the messageId',
      {
        event: 'message-key-fallback',
        messageId: 'id-M1',
        why: 'pq-message-key does not name an item reset for this replay',
      },
    );
  });
});

describe('an item reset for a replay belongs to that replay (issue 38, seed 796689999)', () => {
  const mailThenFail = [
    [{ do: 'external', name: 'mail', result: 'ok' } as const, { do: 'throw', error: 'permanent' } as const],
  ];

  /** M1 quarantined, and its ledger item reset by an operator for the replay of that record. */
  async function quarantinedAndReset(world: World) {
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    await drive(world);
    return resetForLatestRecord(world);
  }

  async function resetForLatestRecord(world: World) {
    const record = [...world.quarantine.records.values()].at(-1);
    if (record === undefined) throw new Error('nothing was quarantined');
    await world.ledger.resetForReplay('id-M1', {
      expectedState: 'quarantined',
      quarantineId: record.id,
      now: world.clock.date(),
    });
    return record.id;
  }

  function sendReplay(world: World, replayOf: string) {
    world.queue.send({
      messageId: 'id-R1',
      body: 'M1',
      messageAttributes: {
        [REPLAY_OF_ATTRIBUTE]: { dataType: 'String', stringValue: replayOf },
        [MESSAGE_KEY_ATTRIBUTE]: { dataType: 'String', stringValue: 'id-M1' },
      },
    });
  }

  it('given the original delivered again after the reset, then it is a duplicate: the work does not run again, the item waits for the replay', async () => {
    // Prepare
    const { world, outside } = testWorld({ scripts: { M1: mailThenFail } });
    const q1 = await quarantinedAndReset(world);

    // Act
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    await drive(world);

    // Assess
    expect(outside.count('id-M1', 'mail')).toBe(1);
    expect(world.queue.messages.size).toBe(0);
    expect(world.ledger.get('id-M1')).toMatchObject({ state: 'ready', attempts: 1, replayOf: q1 });
  });

  it('given a replay that ran into a second quarantine, itself reset for its replay, when the first replay is delivered again, then it is a duplicate, not a new message', async () => {
    // Prepare
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const { world, outside } = testWorld({ scripts: { M1: mailThenFail } });
    const q1 = await quarantinedAndReset(world);
    sendReplay(world, q1);
    await drive(world);
    const q2 = await resetForLatestRecord(world);

    // Act
    sendReplay(world, q1);
    await drive(world);

    // Assess
    expect(q2).not.toBe(q1);
    expect(outside.count('id-M1', 'mail')).toBe(2);
    expect(outside.count('id-R1', 'mail')).toBe(0);
    expect(world.ledger.get('id-R1')).toBeUndefined();
    expect(world.queue.messages.size).toBe(0);
    expect(warn).not.toHaveBeenCalledWith(
      expect.anything(),
      expect.objectContaining({ event: 'message-key-fallback' }),
    );
  });
});

describe("a colliding message's evidence", () => {
  it('given another message under a completed key, then its record says no attempt of its own started', async () => {
    // Prepare
    const { world } = testWorld({ env: { [ENV.messageKeyPath]: 'id' } });
    world.queue.send({ messageId: 'id-1', body: '{"id":"k","v":1}' });
    await drive(world);
    world.queue.send({ messageId: 'id-2', body: '{"id":"k","v":2}' });

    // Act
    await drive(world);

    // Assess
    const [record] = [...world.quarantine.records.values()];
    expect(record).toMatchObject({
      reason: 'key-collision',
      messageId: 'id-2',
      stage: 'not-started',
      attemptsStarted: 0,
      attemptsCharged: 0,
    });
  });
});

describe('rule 6: a crash during an isolation trial starts its count again', () => {
  const slow = [
    [
      { do: 'stage', name: 'a' },
      { do: 'stage', name: 'b' },
      { do: 'stage', name: 'c' },
    ] as const,
  ];

  it('given a poison that crashes with three in flight and then alone during the trial, then each of its crashes restarts the trial', async () => {
    // Prepare: a trial of 4; M1 dies with M2-M4 beside it (unattributable: env-1), then
    // crashes alone in the trial, twice (env-2, env-3), and ends crash-limit.
    const { world } = testWorld({
      env: { PQ_IN_PROCESS_CONCURRENCY: '4', PQ_ISOLATION_TRIAL_MESSAGES: '4' },
      scripts: {
        M1: [[{ do: 'stage', name: 'a' }, { do: 'stage', name: 'b' }, { do: 'crash' }]],
        M2: slow,
        M3: slow,
        M4: slow,
      },
    });
    const startIsolation = vi.spyOn(world.control, 'startIsolation');
    for (const label of ['M1', 'M2', 'M3', 'M4']) world.queue.send({ messageId: `id-${label}`, body: label });

    // Act
    await drive(world, { batchSize: 10 });

    // Assess
    const causes = new Set(startIsolation.mock.calls.map(([trial]) => trial.cause));
    expect([...causes]).toStrictEqual(['env-1', 'env-2', 'env-3']);
    expect([...world.quarantine.records.values()].map((record) => [record.messageId, record.reason])).toEqual(
      [['id-M1', 'crash-limit']],
    );
  });
});

describe('a quarantine finished at redelivery keeps the error it began with', () => {
  it('given a permanent error whose record write crashed the worker, then the record finished later names that error', async () => {
    // Prepare: the quarantine is begun on the ledger (with its error), the worker dies writing it.
    const { world } = testWorld({
      scripts: {
        M1: [
          [
            { do: 'stage', name: 'parse' },
            { do: 'throw', error: 'permanent' },
          ],
        ],
      },
      faults: [{ at: 'quarantine.putRecord', error: 'crash' }],
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    const report = await drive(world);

    // Assess
    expect(report.crashes).toBe(1);
    expect(world.quarantine.records.size).toBe(1);
    expect(world.queue.backstop).toHaveLength(0);
    const [record] = [...world.quarantine.records.values()];
    expect(world.ledger.get('id-M1')?.quarantineId).toBe(record.id);
    expect(record.reason).toBe('permanent-error');
    expect(record.errorSignature).not.toMatch(/^crash:/);
    expect(record.lastError?.class).toBe('permanent');
  });
});

describe('rule 6: only a crash restarts a trial', () => {
  it('given a trial running, when a message that failed transiently comes back, then the trial goes on counting', async () => {
    // Prepare: a trial of 5 messages; M1 fails transiently once, then completes.
    const { world } = testWorld({ scripts: { M1: [[{ do: 'throw', error: 'transient' }], []] } });
    world.control.isolation = {
      active: true,
      remaining: 5,
      startedAt: world.clock.now(),
      reason: 'unattributable-crash',
    };
    const startIsolation = vi.spyOn(world.control, 'startIsolation');
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await drive(world);

    // Assess
    expect(world.ledger.get('id-M1')?.state).toBe('completed');
    expect(startIsolation).not.toHaveBeenCalled();
  });
});
