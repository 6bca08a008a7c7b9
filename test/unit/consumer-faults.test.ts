/**
 * The consumer's promises under faults (issue 7's defects), each driven through the real
 * consumer over the in-memory world: a fault at a named port call or a crash at an unusual
 * point must never repeat a keyless external call, charge work that succeeded, stop the queue
 * for good, or drop a message.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { describe, expect, it, vi } from 'vitest';
import { BREAKER_UNREADABLE_LOG_EVENT } from '../../contract/log-events';
import { MESSAGE_KEY_ATTRIBUTE, REPLAY_OF_ATTRIBUTE } from '../../contract/message-attributes';
import { bodyDigest } from '../../lambdas/core/ids';
import type { FaultPoint } from '../../sim/faults/fault-points';
import { drive } from '../../sim/world/drive';
import { halfOpenWindow } from '../../sim/world/half-open';
import { type TestWorld, type TestWorldOptions, testWorld } from '../../sim/world/scenario';
import { OutsideSystem, scriptedProcessor } from '../../sim/world/scripted-processor';
import { World } from '../../sim/world/world';

const charge = { do: 'external', name: 'charge', result: 'ok' } as const;

/** Ten messages: rule 11b judges from 10 outcomes on. */
const TEN = Array.from({ length: 10 }, (_, index) => `M${index + 1}`);

/** Queues the messages as received 9 times: SQS moves each to the backstop after its next receive. */
function queueOnTheirLastReceive(world: TestWorld['world'], labels: readonly string[]): void {
  for (const label of labels) world.queue.send({ messageId: `id-${label}`, body: label });
  for (const message of world.queue.messages.values()) message.receiveCount = 9;
}

describe('rule 8 holds whatever the attempt does after a keyless call', () => {
  it('given a keyless charge, then a keyed call, then a crash, then the charge is never repeated', async () => {
    // Prepare
    const { world, outside } = testWorld({
      scripts: {
        M1: [
          [charge, { do: 'external', name: 'notify', idempotencyKey: 'n-1', result: 'ok' }, { do: 'crash' }],
        ],
      },
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await drive(world);

    // Assess
    expect(outside.count('id-M1', 'charge')).toBe(1);
    expect([...world.quarantine.records.values()].map((record) => record.reason)).toEqual([
      'outcome-unknown',
    ]);
  });

  it('given a keyless charge and then a call refused before sending, then the charge is not retried', async () => {
    // Prepare
    const { world, outside } = testWorld({
      scripts: { M1: [[charge, { do: 'external', name: 'notify', result: 'refused' }]] },
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await drive(world);

    // Assess
    expect(outside.count('id-M1', 'charge')).toBe(1);
    expect([...world.quarantine.records.values()].map((record) => record.reason)).toEqual([
      'outcome-unknown',
    ]);
  });

  it('given the done write of a keyless call is throttled once, then it is retried and the message completes', async () => {
    // Prepare
    const { world, outside, fired } = testWorld({
      scripts: { M1: [[charge]] },
      faults: [{ at: 'ledger.recordExternal:done', error: 'throttle' }],
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await drive(world);

    // Assess
    expect(fired.get('ledger.recordExternal:done')).toBe(1);
    expect(outside.count('id-M1', 'charge')).toBe(1);
    expect(world.ledger.get('id-M1')?.state).toBe('completed');
  });

  it('issue 22 defect 8: given the done write of a keyless call keeps failing, then the call is not repeated and no person is asked: it completes', async () => {
    // Prepare: every try of the done write is refused; the completion lands.
    const { world, outside } = testWorld({
      scripts: { M1: [[charge]] },
      faults: [{ at: 'ledger.recordExternal:done', error: 'throttle', times: 20 }],
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await drive(world);

    // Assess
    expect(outside.count('id-M1', 'charge')).toBe(1);
    expect(world.quarantine.records.size).toBe(0);
    expect(world.ledger.get('id-M1')).toMatchObject({ state: 'completed', charged: 0, attempts: 1 });
  });

  it('issue 22 defect 8: given the done write and then the completion keep failing, then the redelivery completes it without a person', async () => {
    // Prepare
    const { world, outside } = testWorld({
      scripts: { M1: [[charge]] },
      faults: [
        { at: 'ledger.recordExternal:done', error: 'throttle', times: 4 },
        { at: 'ledger.complete', error: 'throttle', times: 4 },
      ],
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await drive(world);

    // Assess
    expect(outside.count('id-M1', 'charge')).toBe(1);
    expect(world.quarantine.records.size).toBe(0);
    expect(world.ledger.get('id-M1')).toMatchObject({ state: 'completed', charged: 0, attempts: 1 });
  });
});

describe("rule 7 sees our own and the outside system's outages", () => {
  it('given the outside system hangs after every request, then consumption pauses and no further message is sent into it', async () => {
    // Prepare
    const labels = ['M1', 'M2', 'M3', 'M4', 'M5', 'M6'];
    const { world, outside } = testWorld({
      env: { PQ_IN_PROCESS_CONCURRENCY: '1' },
      scripts: Object.fromEntries(
        labels.map((label) => [label, [[{ do: 'external', name: 'charge', result: 'timeout' } as const]]]),
      ),
    });
    for (const label of labels) world.queue.send({ messageId: `id-${label}`, body: label });

    // Act
    await world.deliver(world.environment(), 10);

    // Assess: three failure events trip the breaker; the three sent wait for a person; no fourth is sent.
    expect(world.control.breaker?.record.state).toBe('open');
    expect([...world.operations.executions.keys()].filter((name) => name.startsWith('pause-'))).toHaveLength(
      1,
    );
    const reasons = [...world.quarantine.records.values()].map((record) => record.reason);
    expect(reasons).toEqual(['outcome-unknown', 'outcome-unknown', 'outcome-unknown']);
    const requests = labels.map((label) => outside.count(`id-${label}`, 'charge'));
    expect(requests).toEqual([1, 1, 1, 0, 0, 0]);
  });

  it('given the attempts table refuses every start, then consumption pauses instead of cycling toward the backstop', async () => {
    // Prepare
    const labels = ['M1', 'M2', 'M3', 'M4'];
    const { world } = testWorld({ faults: [{ at: 'ledger.start', error: 'throttle', times: 1000 }] });
    for (const label of labels) world.queue.send({ messageId: `id-${label}`, body: label });

    // Act
    await world.deliver(world.environment(), 10);

    // Assess
    expect(world.control.breaker?.record.state).toBe('open');
    expect([...world.operations.executions.keys()]).toEqual(['pause-1']);
    expect(world.queue.messages.size).toBe(4);
  });

  it('given the control table refuses the failure events of an outage, then the environment still pauses on what it saw', async () => {
    // Prepare: every start refused (the attempts table is down) and the first two failure events
    // refused too; the shared window alone would hold 2 of the 3 keys the threshold needs.
    const labels = ['M1', 'M2', 'M3', 'M4'];
    const { world } = testWorld({
      faults: [
        { at: 'ledger.start', error: 'throttle', times: 1000 },
        { at: 'control.recordFailureEvent', error: 'throttle', times: 2 },
      ],
    });
    for (const label of labels) world.queue.send({ messageId: `id-${label}`, body: label });

    // Act
    await world.deliver(world.environment(), 10);

    // Assess: paused in this batch, not one receive later.
    expect(world.control.breaker?.record.state).toBe('open');
    expect(world.queue.messages.size).toBe(4);
  });
});

describe('time and settle writes', () => {
  it('given records that would outlast the invocation, then they are returned uncharged instead of timing out', async () => {
    // Prepare: each message works 12 s of a 30 s invocation.
    const work = [[{ do: 'work', ms: 12_000 } as const]];
    const { world } = testWorld({
      env: { PQ_IN_PROCESS_CONCURRENCY: '1' },
      scripts: { M1: work, M2: work, M3: work },
    });
    for (const label of ['M1', 'M2', 'M3']) world.queue.send({ messageId: `id-${label}`, body: label });

    // Act
    const report = await drive(world, { batchSize: 10 });

    // Assess
    expect(report.crashes).toBe(0);
    expect(world.ledger.all().map((item) => [item.key, item.state, item.charged])).toEqual([
      ['id-M1', 'completed', 0],
      ['id-M2', 'completed', 0],
      ['id-M3', 'completed', 0],
    ]);
  });

  it('given the completion write keeps failing, then the finished work is neither charged nor redone', async () => {
    // Prepare
    const { world, outside } = testWorld({
      scripts: { M1: [[charge]] },
      faults: [{ at: 'ledger.complete', error: 'server-error', times: 10 }],
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await drive(world);

    // Assess
    expect(outside.count('id-M1', 'charge')).toBe(1);
    expect(world.ledger.get('id-M1')).toMatchObject({ state: 'completed', charged: 0, attempts: 1 });
    expect(world.quarantine.records.size).toBe(0);
  });
});

describe('rule 6: one crash is one restart of the trial', () => {
  it('given a crash with four messages in flight, then their returns start the trial once and it ends', async () => {
    // Prepare: trial of 4 messages; M1 dies while M2-M4 are in flight beside it.
    const { world } = testWorld({
      env: { PQ_IN_PROCESS_CONCURRENCY: '4', PQ_ISOLATION_TRIAL_MESSAGES: '4' },
      scripts: {
        M1: [[{ do: 'stage', name: 'a' }, { do: 'stage', name: 'b' }, { do: 'crash' }], []],
        M2: [
          [
            { do: 'stage', name: 'a' },
            { do: 'stage', name: 'b' },
            { do: 'stage', name: 'c' },
          ],
        ],
        M3: [
          [
            { do: 'stage', name: 'a' },
            { do: 'stage', name: 'b' },
            { do: 'stage', name: 'c' },
          ],
        ],
        M4: [
          [
            { do: 'stage', name: 'a' },
            { do: 'stage', name: 'b' },
            { do: 'stage', name: 'c' },
          ],
        ],
      },
    });
    for (const label of ['M1', 'M2', 'M3', 'M4']) world.queue.send({ messageId: `id-${label}`, body: label });

    // Act
    await drive(world, { batchSize: 10 });

    // Assess
    expect([...world.control.crashes.values()]).toEqual([4]);
    expect(world.ledger.all().every((item) => item.state === 'completed' && item.charged === 0)).toBe(true);
    expect(world.control.isolation?.active).toBe(false);
  });
});

describe('message keys from producers', () => {
  it("given a producer sets pq-message-key to another message's key, then it is worked on under its own id", async () => {
    // Prepare
    const { world } = testWorld();
    world.queue.send({ messageId: 'id-victim', body: 'V' });
    await drive(world);
    world.queue.send({
      messageId: 'id-forger',
      body: 'F',
      messageAttributes: { [MESSAGE_KEY_ATTRIBUTE]: { dataType: 'String', stringValue: 'id-victim' } },
    });

    // Act
    await drive(world);

    // Assess
    expect(world.ledger.get('id-forger')).toMatchObject({ state: 'completed', attempts: 1 });
    expect(world.ledger.get('id-victim')).toMatchObject({ state: 'completed', attempts: 1 });
  });

  it('given replay attributes naming a key nobody has, then it is worked on under its own id, not taken for an outage', async () => {
    // Prepare
    const { world } = testWorld();
    world.queue.send({
      messageId: 'id-forged',
      body: 'F',
      messageAttributes: {
        [MESSAGE_KEY_ATTRIBUTE]: { dataType: 'String', stringValue: 'no-such-key' },
        [REPLAY_OF_ATTRIBUTE]: { dataType: 'String', stringValue: 'q-0000000000000000-g0-a1' },
      },
    });

    // Act
    await drive(world);

    // Assess
    expect(world.ledger.get('id-forged')).toMatchObject({ state: 'completed', attempts: 1 });
    expect(world.ledger.get('no-such-key')).toBeUndefined();
    expect(await world.control.failuresSince(new Date(0), Number.POSITIVE_INFINITY)).toEqual([]);
  });

  it('given a pq-message-key over 2048 bytes, then it is ignored and the message completes under its id', async () => {
    // Prepare
    const { world } = testWorld();
    world.queue.send({
      messageId: 'id-long',
      body: 'L',
      messageAttributes: { [MESSAGE_KEY_ATTRIBUTE]: { dataType: 'String', stringValue: 'k'.repeat(3000) } },
    });

    // Act
    await drive(world);

    // Assess
    expect(world.ledger.get('id-long')).toMatchObject({ state: 'completed' });
    expect(world.queue.backstop).toHaveLength(0);
  });

  it('given a corrected resend under a completed business key, then it is quarantined with its own bytes, not dropped', async () => {
    // Prepare
    const { world } = testWorld({ env: { PQ_MESSAGE_KEY_PATH: 'order.id' } });
    world.queue.send({ messageId: 'id-1', body: '{"order":{"id":"o-1"},"amount":10}' });
    await drive(world);
    const corrected = '{"order":{"id":"o-1"},"amount":12}';
    world.queue.send({ messageId: 'id-2', body: corrected });
    world.queue.send({ messageId: 'id-3', body: '{"order":{"id":"o-1"},"amount":10}' });

    // Act
    await drive(world);

    // Assess: the same content again is a duplicate; different content is kept for a person.
    const records = [...world.quarantine.records.values()];
    expect(records.map((record) => [record.reason, record.messageId])).toEqual([['key-collision', 'id-2']]);
    expect(world.quarantine.body(records[0].id)?.toString('utf8')).toBe(corrected);
    expect(world.queue.messages.size).toBe(0);
  });

  it('given two integer ids beyond 2^53 that differ, then they are two messages, not one', async () => {
    // Prepare
    const { world } = testWorld({ env: { PQ_MESSAGE_KEY_PATH: 'order.id' } });
    world.queue.send({ messageId: 'id-1', body: '{"order":{"id":12345678901234567890}}' });
    world.queue.send({ messageId: 'id-2', body: '{"order":{"id":12345678901234567891}}' });

    // Act
    await drive(world);

    // Assess
    expect(world.ledger.all().filter((item) => item.state === 'completed')).toHaveLength(2);
    expect(world.quarantine.records.size).toBe(0);
  });
});

describe('rule 2 under a lowered limit', () => {
  it('given a ready item already charged up to a lowered limit, then no further attempt starts', async () => {
    // Prepare: one charged attempt ended in a retry; the limit is now 1.
    const { world } = testWorld({ env: { PQ_ATTEMPT_LIMIT: '1' } });
    const now = world.clock.date();
    const begin = { key: 'id-M1', attemptId: 'a-1', envId: 'env-0', messageId: 'id-M1', now, expiresAt: 0 };
    await world.ledger.start({ ...begin, attemptLimit: 3, bodyDigest: bodyDigest('M1') });
    await world.ledger.recordFailure('id-M1', 'a-1', {
      counters: { charged: 1, transientFailures: 0, unknownFailures: 1 },
      now,
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await drive(world);

    // Assess
    expect(world.ledger.get('id-M1')).toMatchObject({ state: 'quarantined', attempts: 1, charged: 1 });
    expect([...world.quarantine.records.values()].map((record) => record.reason)).toEqual(['crash-limit']);
  });
});

describe('an open breaker always has a pause driving it back (issue 8, defect 1)', () => {
  const outage = [[{ do: 'throw', error: 'transient' } as const]];
  const labels = ['M1', 'M2', 'M3', 'M4'];
  const outageWorld = (faults: TestWorldOptions['faults'] = []) => {
    const made = testWorld({ scripts: Object.fromEntries(labels.map((label) => [label, outage])), faults });
    for (const label of labels) made.world.queue.send({ messageId: `id-${label}`, body: label });
    return made;
  };

  it('given the pause start fails right after the trip, then the next batch that finds the breaker open starts it', async () => {
    // Prepare: the trip lands, its StartExecution is throttled.
    const { world } = outageWorld([{ at: 'operations.startPause', error: 'throttle' }]);
    await world.deliver(world.environment(), 10);
    expect(world.control.breaker?.record.state).toBe('open');
    expect(world.operations.executions.size).toBe(0);
    world.queue.send({ messageId: 'id-M5', body: 'M5' });

    // Act
    const later = await world.deliver(world.environment(), 10);

    // Assess: the batch is handed back untouched, and the pause now runs.
    expect(later.kind === 'returned' && later.failed).toEqual(
      later.records.map((record) => record.messageId),
    );
    expect([...world.operations.executions.keys()]).toEqual(['pause-1']);
  });

  it('given the pause start fails right after the trip, then the attempt that tripped it is still settled, uncharged', async () => {
    // Prepare: the trip lands, its StartExecution is refused.
    const { world } = outageWorld([{ at: 'operations.startPause', error: 'server-error' }]);

    // Act
    await world.deliver(world.environment(), 10);

    // Assess: no attempt is left in flight, to be taken for a crash and charged later.
    expect(world.control.breaker?.record.state).toBe('open');
    const items = labels.map((label) => world.ledger.get(`id-${label}`)).filter((item) => item !== undefined);
    expect(items.map((item) => [item.state, item.charged])).toEqual(items.map(() => ['ready', 0]));
  });

  it('given the pause run failed while the breaker stays open, then a second run of the epoch is started', async () => {
    // Prepare
    const { world } = outageWorld();
    await world.deliver(world.environment(), 10);
    const run = world.operations.executions.get('pause-1');
    if (run === undefined) throw new Error('no pause started');
    run.status = 'FAILED';
    world.queue.send({ messageId: 'id-M5', body: 'M5' });

    // Act
    await world.deliver(world.environment(), 10);

    // Assess
    expect(
      [...world.operations.executions.entries()].map(([name, execution]) => [name, execution.status]),
    ).toEqual([
      ['pause-1', 'FAILED'],
      ['pause-1-r2', 'RUNNING'],
    ]);
  });
});

describe('a pause hands its records back for the probe (rule 7)', () => {
  it('given an outage trips the breaker mid-batch, then the records handed back are visible when the cool-down ends', async () => {
    // Prepare: default cool-down 60 s, visibility timeout 180 s.
    const outage = [[{ do: 'throw', error: 'transient' } as const]];
    const labels = ['M1', 'M2', 'M3', 'M4', 'M5'];
    const { world } = testWorld({ scripts: Object.fromEntries(labels.map((label) => [label, outage])) });
    for (const label of labels) world.queue.send({ messageId: `id-${label}`, body: label });
    const pausedAt = world.clock.now();

    // Act
    await world.deliver(world.environment(), 10);

    // Assess: the two never started wait for the probe, not for the 180 s visibility timeout.
    const visibleIn = (id: string) => ((world.queue.messages.get(id)?.visibleAt ?? 0) - pausedAt) / 1000;
    expect([visibleIn('id-M4'), visibleIn('id-M5')]).toEqual([60, 60]);
  });

  it('given a half-open probe fails on a healthy message with no retries left, then it is not quarantined: the breaker reopens', async () => {
    // Prepare: the breaker half-open, a message that already used its transient retries.
    const { world } = testWorld({
      env: { PQ_TRANSIENT_RETRIES: '0' },
      scripts: { M1: [[{ do: 'throw', error: 'transient' }]] },
    });
    await halfOpenWindow(world);
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await world.deliver(world.environment(), 1);

    // Assess
    expect(world.quarantine.records.size).toBe(0);
    expect(world.control.breaker?.probeFailures).toBe(1);
    expect(world.ledger.get('id-M1')).toMatchObject({ state: 'ready', charged: 0 });
  });
});

describe('two failed probes are the verdict of their window (rule 7)', () => {
  it('given two probes of this window failed already, then the next batch starts nothing and waits for the next window', async () => {
    // Prepare: half-open, two probes failed already; the outside system would answer.
    const { world, outside } = testWorld({
      scripts: { M2: [[{ do: 'external', name: 'pay', result: 'ok' }]] },
    });
    await halfOpenWindow(world, { probeFailures: 2 });
    world.queue.send({ messageId: 'id-M2', body: 'M2' });
    const handedBackAt = world.clock.now();

    // Act
    await world.deliver(world.environment(), 1);

    // Assess: not worked on, and back once the doubled cool-down (120 s) and a window (30 s) passed.
    expect(world.ledger.get('id-M2')).toBeUndefined();
    expect(outside.requests.size).toBe(0);
    const visibleAt = world.queue.messages.get('id-M2')?.visibleAt ?? 0;
    expect((visibleAt - handedBackAt) / 1000).toBe(150);
  });
});

describe('a failed probe hands its window back for the next one (rule 7)', () => {
  it('given two probes of a window fail, then both come back in the next window', async () => {
    // Prepare: default timings (cool-down 60 s, probe window 30 s); the outside system refuses.
    const { world } = testWorld({
      scripts: { M1: [[{ do: 'throw', error: 'transient' }]], M2: [[{ do: 'throw', error: 'transient' }]] },
    });
    await halfOpenWindow(world);
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    world.queue.send({ messageId: 'id-M2', body: 'M2' });
    const windowStart = world.clock.now();

    // Act: two probes of the window, both failing.
    await world.deliver(world.environment(), 1);
    await world.deliver(world.environment(), 1);

    // Assess: both after the doubled cool-down (120 s) and this window (30 s), not after the first
    // cool-down (60 s), which would bring them back while the breaker is open: one more receive.
    const visibleIn = (id: string) => ((world.queue.messages.get(id)?.visibleAt ?? 0) - windowStart) / 1000;
    expect([visibleIn('id-M1'), visibleIn('id-M2')]).toEqual([150, 150]);
    expect(world.control.breaker).toMatchObject({ probeFailures: 2, probeSuccesses: 0 });
    for (const id of ['id-M1', 'id-M2'])
      expect(world.ledger.get(id)).toMatchObject({ state: 'ready', charged: 0 });
    expect(world.quarantine.records.size).toBe(0);
  });

  it('given a message failing by itself is the first probe, then the next message probes, succeeds, and later failures are their own', async () => {
    // Prepare: M1 fails on every attempt, M2 is healthy, M3 fails by itself too.
    const { world } = testWorld({
      scripts: {
        M1: [[{ do: 'throw', error: 'transient' }]],
        M2: [[{ do: 'external', name: 'pay', result: 'ok' }]],
        M3: [[{ do: 'throw', error: 'transient' }]],
      },
    });
    await halfOpenWindow(world);
    for (const label of ['M1', 'M2', 'M3']) world.queue.send({ messageId: `id-${label}`, body: label });

    // Act: three batches of the window (the probe footprint is one record).
    for (let batch = 0; batch < 3; batch++) await world.deliver(world.environment(), 1);

    // Assess: one failure, then a success that says the dependency works (the state machine
    // restores consumption); M3's failure after it is its own: a retry on its budget, no probe.
    expect(world.control.breaker).toMatchObject({ probeFailures: 1, probeSuccesses: 1 });
    expect(world.ledger.get('id-M2')).toMatchObject({ state: 'completed', charged: 0 });
    expect(world.ledger.get('id-M3')).toMatchObject({ state: 'ready', transientFailures: 1 });
  });
});

describe('a message that failed a probe before does not decide a later window (rule 7)', () => {
  it('given two messages failing by themselves decided the last window, then in the next one the healthy message behind them probes and succeeds', async () => {
    // Prepare: M1 and M2 fail on every attempt, M3 is healthy; in the first window M1 and M2
    // fail their probes (the window's verdict) and M3 is held.
    const failing = [{ do: 'throw', error: 'transient' }] as const;
    const { world } = testWorld({
      scripts: { M1: [failing], M2: [failing], M3: [[{ do: 'external', name: 'pay', result: 'ok' }]] },
    });
    await halfOpenWindow(world);
    for (const label of ['M1', 'M2', 'M3']) world.queue.send({ messageId: `id-${label}`, body: label });
    for (let batch = 0; batch < 3; batch++) await world.deliver(world.environment(), 1);
    expect(world.ledger.get('id-M3')).toBeUndefined();

    // Act: the next window, once the three are visible again.
    world.clock.advance(150_000);
    await halfOpenWindow(world);
    for (let batch = 0; batch < 3; batch++) await world.deliver(world.environment(), 1);

    // Assess: M1 and M2 failed again, uncharged, but a failed probe behind them says their
    // failures may be their own: the window is still open to M3, whose success ends the outage.
    // Each counts its two failed probes.
    expect(world.ledger.get('id-M3')).toMatchObject({ state: 'completed' });
    expect(world.control.breaker).toMatchObject({
      probeSuccesses: 1,
      probeFailures: 2,
      probeRepeatFailures: 2,
    });
    for (const id of ['id-M1', 'id-M2'])
      expect(world.ledger.get(id)).toMatchObject({ state: 'ready', charged: 0, failedProbes: 2 });
  });
});

describe('the last receive before the backstop (rule 3 over rule 7)', () => {
  const probeWorld = (receivedBefore: number) => {
    const { world } = testWorld({
      env: { PQ_TRANSIENT_RETRIES: '0' },
      scripts: { M1: [[{ do: 'throw', error: 'transient' }]] },
    });
    return { world, receivedBefore };
  };
  const halfOpenWith = async ({ world, receivedBefore }: ReturnType<typeof probeWorld>) => {
    await halfOpenWindow(world);
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    const queued = world.queue.messages.get('id-M1');
    if (queued === undefined) throw new Error('not queued');
    queued.receiveCount = receivedBefore;
    await world.deliver(world.environment(), 1);
    return world;
  };

  it('given a probe fails on a message at its last receive, then it is quarantined uncharged, not handed to the backstop', async () => {
    // Act: received 9 times already; SQS would move it to the backstop at the 11th receive.
    const world = await halfOpenWith(probeWorld(9));

    // Assess
    expect([...world.quarantine.records.values()]).toMatchObject([
      { messageId: 'id-M1', reason: 'receive-limit', attemptsCharged: 0, status: 'open' },
    ]);
    expect(world.ledger.get('id-M1')).toMatchObject({ state: 'quarantined', charged: 0 });
    expect(world.control.breaker?.probeFailures).toBe(1);
    expect(world.queue.messages.has('id-M1')).toBe(false);
    expect(world.queue.backstop).toHaveLength(0);
  });

  it('given the breaker open and a batch with one message at its last receive, then that one is tried and quarantined, the other held untouched', async () => {
    // Prepare: the breaker open (held batches); the outside system still refusing.
    const { world } = testWorld({
      scripts: {
        M1: [[{ do: 'throw', error: 'transient' }]],
        M2: [[{ do: 'throw', error: 'transient' }]],
      },
    });
    await world.control.tripBreaker({ reason: 'outage', now: world.clock.date(), stop: false });
    for (const label of ['M1', 'M2']) world.queue.send({ messageId: `id-${label}`, body: label });
    const last = world.queue.messages.get('id-M1');
    if (last === undefined) throw new Error('not queued');
    last.receiveCount = 9;

    // Act
    await world.deliver(world.environment(), 2);

    // Assess
    expect([...world.quarantine.records.values()]).toMatchObject([
      { messageId: 'id-M1', reason: 'receive-limit', attemptsCharged: 0 },
    ]);
    expect(world.ledger.get('id-M2')).toBeUndefined();
    expect(world.queue.messages.has('id-M2')).toBe(true);
    expect(world.queue.backstop).toHaveLength(0);
  });

  it('given ten records held in an outage reach their last receive together, then all ten are quarantined: rule 11b does not stop them', async () => {
    // Prepare: the breaker open; each message fails as the outage makes it; rule 11b judges from
    // 10 outcomes on, and these receive-limit quarantines say nothing of poison.
    const failing = [[{ do: 'throw', error: 'transient' } as const]];
    const { world } = testWorld({ scripts: Object.fromEntries(TEN.map((label) => [label, failing])) });
    await world.control.tripBreaker({ reason: 'outage', now: world.clock.date(), stop: false });
    queueOnTheirLastReceive(world, TEN);

    // Act
    await world.deliver(world.environment(), 10);
    await drive(world);

    // Assess
    expect(world.quarantine.records.size).toBe(10);
    expect(world.queue.backstop).toHaveLength(0);
  });

  it('given a probe fails on a message with receives left, then it is handed back as before', async () => {
    // Act
    const world = await halfOpenWith(probeWorld(8));

    // Assess
    expect(world.quarantine.records.size).toBe(0);
    expect(world.ledger.get('id-M1')).toMatchObject({ state: 'ready', charged: 0 });
  });
});

describe('a healthy message batched behind poison', () => {
  it('given two poison messages ahead of a healthy one in every batch, then the healthy one completes and leaves the queue', async () => {
    // Prepare: each crash hands the whole batch back; limit 5 means 11 receives for the two.
    const { world } = testWorld({
      env: { PQ_ATTEMPT_LIMIT: '5', PQ_OUTAGE_FAILURE_THRESHOLD: '100' },
      scripts: { M1: [[{ do: 'crash' }]], M2: [[{ do: 'crash' }]] },
    });
    for (const label of ['M1', 'M2', 'M8']) world.queue.send({ messageId: `id-${label}`, body: label });

    // Act
    await drive(world, { batchSize: 10 });

    // Assess: the two poison messages may exhaust SQS's receive count before their limit of 5
    // (two crashers alternate in one batch); the healthy one ran first and was acknowledged.
    expect(world.queue.backstop.map((message) => message.messageId)).not.toContain('id-M8');
    expect(world.queue.messages.has('id-M8')).toBe(false);
    expect(world.ledger.get('id-M8')).toMatchObject({ state: 'completed', attempts: 1 });
  });
});

describe('a record on its last receive in a batch that may crash', () => {
  it('given a crashing message delivered with one on its last receive, then the last-receive one runs first and leaves the queue', async () => {
    // Prepare: M1 crashed before (its redelivery is crash-prone); M3 was received 9 times (our
    // own failing tables spent them) and SQS would move it to the backstop after this receive.
    const { world } = testWorld({
      env: { PQ_OUTAGE_FAILURE_THRESHOLD: '100' },
      scripts: { M1: [[{ do: 'crash' }]] },
    });
    for (const label of ['M1', 'M3']) world.queue.send({ messageId: `id-${label}`, body: label });
    const crashing = world.queue.messages.get('id-M1');
    const last = world.queue.messages.get('id-M3');
    if (crashing === undefined || last === undefined) throw new Error('not queued');
    crashing.receiveCount = 1;
    last.receiveCount = 9;

    // Act: one batch; M1's crash ends the invocation.
    await world.deliver(world.environment(), 10).catch(() => undefined);

    // Assess: M3 ran before the crash and was acknowledged at once.
    expect(world.ledger.get('id-M3')).toMatchObject({ state: 'completed' });
    expect(world.queue.messages.has('id-M3')).toBe(false);
  });

  it('given two messages on their last receive and the one that runs crashes the invocation, then the other was quarantined first, not sent to the backstop', async () => {
    // Prepare: both received 9 times (a pause held them together); neither ran before, so
    // nothing tells which one may crash. M1's first attempt crashes the invocation.
    const { world } = testWorld({
      env: { PQ_OUTAGE_FAILURE_THRESHOLD: '100' },
      scripts: { M1: [[{ do: 'crash' }]] },
    });
    queueOnTheirLastReceive(world, ['M1', 'M3']);

    // Act: the batch crashes; whatever it handed back comes again.
    await world.deliver(world.environment(), 10).catch(() => undefined);
    await drive(world);

    // Assess: M3 is kept with its bytes, uncharged; only the message whose own first crash fell on
    // its last receive reached the backstop (nothing could have told).
    expect([...world.quarantine.records.values()]).toMatchObject([
      { messageId: 'id-M3', reason: 'receive-limit', attemptsCharged: 0, status: 'open' },
    ]);
    expect(world.queue.backstop.map((message) => message.messageId)).toEqual(['id-M1']);
  });
});

describe('an unreadable breaker item fails closed (issue 8, defect 5)', () => {
  /** The item as edited by hand: a state no reader knows, the epoch still a number. */
  const GARBLED = {
    pk: { S: 'breaker' },
    sk: { S: 'state' },
    state: { S: 'paused-by-hand' },
    epoch: { N: '3' },
  };
  const pay = [[{ do: 'external', name: 'pay', result: 'ok' } as const]];
  const garbledWorld = () => {
    const made = testWorld({ scripts: { M1: pay, M2: pay } });
    made.world.control.corruptBreaker(GARBLED);
    for (const label of ['M1', 'M2']) made.world.queue.send({ messageId: `id-${label}`, body: label });
    return made;
  };

  it('given the breaker item is unreadable, then nothing runs and every record is handed back for the longest cool-down, uncharged', async () => {
    // Prepare: default longest cool-down 3600 s.
    const { world, outside } = garbledWorld();
    const heldAt = world.clock.now();

    // Act
    const result = await world.deliver(world.environment(), 10);

    // Assess: the invocation answers (no function error), starts nothing, and hands both back.
    expect(result).toMatchObject({ kind: 'returned', failed: ['id-M1', 'id-M2'] });
    expect(outside.requests.size).toBe(0);
    expect(world.ledger.all()).toEqual([]);
    const visibleIn = (id: string) => ((world.queue.messages.get(id)?.visibleAt ?? 0) - heldAt) / 1000;
    expect([visibleIn('id-M1'), visibleIn('id-M2')]).toEqual([3600, 3600]);
  });

  it('given a record on its last receive, then it is quarantined as receive-limit without running, the other held', async () => {
    // Prepare: M1 received 9 times already; SQS would move it to the backstop at the 11th receive.
    const { world, outside } = garbledWorld();
    const last = world.queue.messages.get('id-M1');
    if (last === undefined) throw new Error('not queued');
    last.receiveCount = 9;

    // Act
    await world.deliver(world.environment(), 10);

    // Assess
    expect(outside.requests.size).toBe(0);
    expect([...world.quarantine.records.values()]).toMatchObject([
      {
        messageId: 'id-M1',
        reason: 'receive-limit',
        attemptsCharged: 0,
        lastError: { name: 'BreakerUnreadable' },
        errorSignature: expect.stringContaining('BreakerUnreadable'),
      },
    ]);
    expect(world.ledger.get('id-M1')).toMatchObject({ state: 'quarantined', charged: 0 });
    expect(world.ledger.get('id-M2')).toBeUndefined();
    expect(world.queue.messages.has('id-M1')).toBe(false);
    expect(world.queue.messages.has('id-M2')).toBe(true);
    expect(world.queue.backstop).toHaveLength(0);
  });

  it('given ten records held together reach their last receive together, then all ten are quarantined: rule 11b does not stop them', async () => {
    // Prepare: rule 11b judges from 10 outcomes on; these quarantines judge no message.
    const { world } = testWorld();
    world.control.corruptBreaker(GARBLED);
    queueOnTheirLastReceive(world, TEN);

    // Act
    await world.deliver(world.environment(), 10);
    await drive(world);

    // Assess
    expect(world.quarantine.records.size).toBe(10);
    expect(world.queue.backstop).toHaveLength(0);
    expect(world.control.breaker).toBeUndefined();
  });

  it('given the breaker item is unreadable, then the consumer logs the event its alarm counts, with what is wrong', async () => {
    // Prepare
    const { world } = garbledWorld();
    const errors = vi.spyOn(Logger.prototype, 'error');

    // Act
    await world.deliver(world.environment(), 10);

    // Assess
    expect(errors).toHaveBeenCalledWith(
      expect.any(String),
      expect.objectContaining({
        event: BREAKER_UNREADABLE_LOG_EVENT,
        problem: 'breaker: unknown state "paused-by-hand"',
        sourceQueue: world.config.sourceQueueArn,
      }),
    );
    errors.mockRestore();
  });

  it('given the item is readable again, then the next batch runs at once, not after the control cache', async () => {
    // Prepare: one batch held; then an operator's repair, and a new message.
    const { world } = garbledWorld();
    const env = world.environment();
    await world.deliver(env, 10);
    world.control.garbledBreaker = undefined;
    world.queue.send({ messageId: 'id-M3', body: 'M3' });

    // Act
    await world.deliver(env, 10);

    // Assess
    expect(world.ledger.get('id-M3')).toMatchObject({ state: 'completed' });
  });
});

describe('our own writes during the work (issue 22)', () => {
  /** A world whose user module classifies with `classify`, and whose attempts table refuses `point` `times` times. */
  function classifyingWorld(point: FaultPoint, times: number, classify: (error: unknown) => undefined) {
    const outside = new OutsideSystem();
    let left = times;
    const world: World = new World({
      random: () => 0.5,
      faultFor: (call) => (call.point === point && left-- > 0 ? 'throttle' : undefined),
      processorFor: (env) => ({
        ...scriptedProcessor(env, world, outside, () => [{ do: 'stage', name: 'parsed' }, charge]),
        classify,
      }),
    });
    return { world, outside };
  }

  it('issue 22 defect 6: given the stage write is refused four times, then the message is not charged or quarantined and classify never sees our error', async () => {
    // Prepare
    const classify = vi.fn(() => undefined);
    const { world, outside } = classifyingWorld('ledger.recordStage', 4, classify);
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await drive(world);

    // Assess: our own table failed (rule 7 events), not the message.
    expect(classify).not.toHaveBeenCalled();
    expect(world.quarantine.records.size).toBe(0);
    expect(world.ledger.get('id-M1')).toMatchObject({
      state: 'completed',
      charged: 0,
      transientFailures: 0,
      unknownFailures: 0,
    });
    expect(outside.count('id-M1', 'charge')).toBe(1);
    expect(new Set([...world.control.failures.values()].map((event) => event.key))).toEqual(
      new Set(['msg:id-M1']),
    );
  });
});
