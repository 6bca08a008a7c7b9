/**
 * consumer/begin-attempt.ts: what mutation testing (issue 19, npm run mutation) left unpinned
 * after begin-attempt-steps.test.ts and crash-outage-step.test.ts. A crash found after a success
 * decided the half-open window is the message's, not a failed probe; two messages under one key
 * racing to restart a crashed attempt let the winner work and say why the loser went back; and
 * the guards against a broken contract (the core asking twice for the crash context, the ledger
 * refusing a start with no item) hand the record back, never acknowledge it, and say what broke;
 * a refused start of an item left ready (no crash behind it) starts no isolation trial.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ENV } from '../../contract/env';
import type * as Delivery from '../../lambdas/core/delivery';
import { deliverNext } from '../../sim/world/drive';
import { halfOpenWindow } from '../../sim/world/half-open';
import { testWorld } from '../../sim/world/scenario';

/** When set, the core asks for the crash context again after it was given one. */
const core = vi.hoisted(() => ({ asksTwice: false }));

vi.mock('../../lambdas/core/delivery', async (importOriginal) => {
  const original = await importOriginal<typeof Delivery>();
  return {
    ...original,
    decideDelivery: (...args: Parameters<typeof Delivery.decideDelivery>) => {
      const [previous, crash] = args;
      if (core.asksTwice && crash !== undefined && previous.envId !== undefined)
        return { kind: 'need-crash-context', envId: previous.envId };
      return original.decideDelivery(...args);
    },
  };
});

afterEach(() => {
  core.asksTwice = false;
  vi.restoreAllMocks();
});

describe('a crash found after a success decided the half-open window', () => {
  it('given a fresh message that crashed alone, when its redelivery finds the crash after a probe succeeded, then no probe failure is counted and the crash is charged', async () => {
    // Prepare: M1 crashes alone while the breaker is closed; then a window in which a probe
    // already succeeded (this batch is no probe).
    const { world } = testWorld({ scripts: { M1: [[{ do: 'crash' }], []] } });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    expect((await deliverNext(world)).kind).toBe('crashed');
    await halfOpenWindow(world, { probeSuccesses: 1 });

    // Act
    const redelivery = await deliverNext(world);

    // Assess
    expect(redelivery).toMatchObject({ kind: 'returned', failed: [] });
    expect(world.control.breaker).toMatchObject({ probeSuccesses: 1, probeFailures: 0 });
    expect(world.ledger.get('id-M1')).toMatchObject({ state: 'completed', charged: 1, crashes: 1 });
    expect(world.ledger.get('id-M1')?.failedProbes).toBeUndefined();
  });
});

describe('two messages under one key racing to restart its crashed attempt', () => {
  it('given a crashed attempt and two deliveries under its key at once, then one restarts it and works, the other goes back saying attempt-race', async () => {
    // Prepare: A crashes under key k; then A (redelivered) and B (same key) are polled together.
    const info = vi.spyOn(Logger.prototype, 'info');
    const { world } = testWorld({
      env: { [ENV.messageKeyPath]: 'id' },
      scripts: { A: [[{ do: 'crash' }], []] },
    });
    world.queue.send({ messageId: 'id-A', body: '{"id":"k","label":"A"}' });
    expect((await deliverNext(world)).kind).toBe('crashed');
    const visible = world.queue.nextVisibleAt();
    if (visible !== undefined) world.clock.advanceTo(visible);
    world.queue.send({ messageId: 'id-B', body: '{"id":"k","label":"B"}' });

    // Act
    const results = await Promise.all([
      world.deliver(world.environment(), 1),
      world.deliver(world.environment(), 1),
    ]);

    // Assess: one crash, one restart: the item ran its second attempt once, charged once.
    expect(results.map((result) => result.kind)).toStrictEqual(['returned', 'returned']);
    const lost = results.flatMap((result) => (result.kind === 'returned' ? result.failed : []));
    expect(lost).toHaveLength(1);
    expect(world.queue.messages.has(lost[0] ?? '')).toBe(true);
    expect(world.ledger.get('k')).toMatchObject({ state: 'completed', attempts: 2, charged: 1, crashes: 1 });
    expect(info).toHaveBeenCalledWith('record processed', {
      event: 'record',
      messageId: lost[0],
      outcome: { kind: 'returned', why: 'attempt-race' },
      calls: expect.anything(),
    });
  });
});

describe('a core that asks for the crash context twice', () => {
  it('given a crashed attempt and a core asking again after the context was read, then the record goes back, not acknowledged, and the log says why', async () => {
    // Prepare
    const error = vi.spyOn(Logger.prototype, 'error');
    const { world } = testWorld({ scripts: { M1: [[{ do: 'crash' }], []] } });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    expect((await deliverNext(world)).kind).toBe('crashed');
    core.asksTwice = true;

    // Act
    const redelivery = await deliverNext(world);

    // Assess
    expect(redelivery).toMatchObject({ kind: 'returned', failed: ['id-M1'] });
    expect(world.queue.messages.has('id-M1')).toBe(true);
    expect(world.ledger.get('id-M1')).toMatchObject({ state: 'in-flight', attempts: 1, charged: 0 });
    expect(error).toHaveBeenCalledWith('record returned to the queue: a write it needed failed', {
      event: 'record-error',
      messageId: 'id-M1',
      error: expect.objectContaining({ message: 'the core asked for the crash context twice' }),
    });
  });
});

describe('a ledger refusing the start of a message that is no replay, on no item', () => {
  it('given the start refused with no item to show, then the record goes back, not acknowledged, and the log names the broken answer', async () => {
    // Prepare: a new key's start always succeeds on DynamoDB; this ledger breaks that.
    const error = vi.spyOn(Logger.prototype, 'error');
    const { world } = testWorld();
    vi.spyOn(world.ledger, 'start').mockResolvedValueOnce({ started: false, previous: undefined });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    const result = await deliverNext(world);

    // Assess
    expect(result).toMatchObject({ kind: 'returned', failed: ['id-M1'] });
    expect(world.queue.messages.has('id-M1')).toBe(true);
    expect(world.ledger.get('id-M1')).toBeUndefined();
    expect(error).toHaveBeenCalledWith('record returned to the queue: a write it needed failed', {
      event: 'record-error',
      messageId: 'id-M1',
      error: expect.objectContaining({
        message: 'the ledger refused a start on no item that was no replay',
      }),
    });
  });
});

describe('a ledger refusing the start of an item whose last attempt did not crash', () => {
  it('given the start of a ready item below the limit refused, then no isolation trial starts: only a crash starts one (rule 6), and the record goes back', async () => {
    // Prepare: M1's first attempt fails transiently, which leaves its item ready; DynamoDB's
    // start condition admits such an item, this ledger refuses it once all the same.
    const { world } = testWorld({ scripts: { M1: [[{ do: 'throw', error: 'transient' }], []] } });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    expect(await deliverNext(world)).toMatchObject({ kind: 'returned', failed: ['id-M1'] });
    const ready = world.ledger.get('id-M1');
    expect(ready).toMatchObject({ state: 'ready', charged: 0 });
    vi.spyOn(world.ledger, 'start').mockResolvedValueOnce({ started: false, previous: ready });

    // Act
    const result = await deliverNext(world);

    // Assess
    expect(world.control.trialsStarted).toBe(0);
    expect(world.control.isolation).toBeUndefined();
    expect(result).toMatchObject({ kind: 'returned', failed: ['id-M1'] });
    expect(world.ledger.get('id-M1')).toMatchObject({ state: 'ready', attempts: 1 });
  });
});
