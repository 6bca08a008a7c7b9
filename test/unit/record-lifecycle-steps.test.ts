/**
 * The end of an attempt's work (consumer/record-lifecycle.ts), on the in-memory world: a lost
 * completion kept for the redelivery, a probe success written only in a window, a permanent error
 * no rule 7 event, a quarantine that stopped ending its attempt uncharged, and the declared call
 * in a failed attempt's evidence. Mutation testing found these unpinned by the tests it runs.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BREAKER_STATE } from '../../contract/control';
import { DEFAULTS } from '../../contract/defaults';
import { ENV } from '../../contract/env';
import { drive } from '../../sim/world/drive';
import { testWorld } from '../../sim/world/scenario';
import type { Step } from '../../sim/world/scripted-processor';

afterEach(() => {
  vi.restoreAllMocks();
});

const permanent: readonly (readonly Step[])[] = [[{ do: 'throw', error: 'permanent' }]];

describe('a completion that cannot be written', () => {
  it('given every try of the completion refused, then it says so and keeps the success for the redelivery, to expire with the ledger', async () => {
    // Prepare
    const error = vi.spyOn(Logger.prototype, 'error');
    const { world } = testWorld({ faults: [{ at: 'ledger.complete', error: 'throttle', times: 10 }] });
    const lost = vi.spyOn(world.control, 'recordLostCompletion');
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    const now = Math.floor(world.clock.now() / 1000);

    // Act
    const result = await world.deliver(world.environment(), 1);

    // Assess
    expect(result.kind).toBe('returned');
    expect(error).toHaveBeenCalledWith('completion not recorded: keeping the success for the redelivery', {
      event: 'completion-lost',
      messageKey: 'id-M1',
      error: expect.objectContaining({ name: 'LedgerUnavailableError' }),
    });
    const expiresAt = (lost.mock.calls[0]?.[0] as { expiresAt?: number } | undefined)?.expiresAt ?? 0;
    expect(expiresAt - now).toBeGreaterThanOrEqual(DEFAULTS.ledgerRetentionDays * 86_400);
    expect(expiresAt - now).toBeLessThan(DEFAULTS.ledgerRetentionDays * 86_400 + 60);
  });
});

describe('a completed record outside a window', () => {
  it('given a closed breaker, then no probe success is written', async () => {
    const { world } = testWorld();
    const recordProbe = vi.spyOn(world.control, 'recordProbe');
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    await world.deliver(world.environment(), 1);
    expect(world.ledger.get('id-M1')?.state).toBe('completed');
    expect(recordProbe).not.toHaveBeenCalled();
  });
});

describe('a permanent error is the message, not a dependency', () => {
  it('given an outage threshold of 1, then a permanent error is quarantined, no rule 7 event, the breaker closed', async () => {
    const { world } = testWorld({ env: { [ENV.outageFailureThreshold]: '1' }, scripts: { P1: permanent } });
    world.queue.send({ messageId: 'id-P1', body: 'P1' });
    await drive(world);
    expect([...world.quarantine.records.values()].map((record) => record.reason)).toEqual([
      'permanent-error',
    ]);
    expect(world.control.breaker?.record.state ?? BREAKER_STATE.closed).toBe(BREAKER_STATE.closed);
  });
});

describe('a quarantine that stopped (rule 11a)', () => {
  it('given the quarantine at capacity, then the attempt ends uncharged and ready, not left in flight', async () => {
    // Prepare: one open record and a capacity of 1.
    const { world } = testWorld({
      env: { [ENV.quarantineCapacity]: '1' },
      scripts: { P1: permanent, P2: permanent },
    });
    world.queue.send({ messageId: 'id-P1', body: 'P1' });
    await drive(world);
    world.queue.send({ messageId: 'id-P2', body: 'P2' });

    // Act
    await world.deliver(world.environment(), 1);

    // Assess
    expect(world.ledger.get('id-P2')).toMatchObject({ state: 'ready', charged: 0 });
  });
});

describe("a failed attempt's evidence", () => {
  it('given a call declared before a permanent error, then the record names the call', async () => {
    const { world } = testWorld({
      scripts: {
        P1: [
          [
            { do: 'external', name: 'charge', idempotencyKey: 'k-1', result: 'ok' },
            { do: 'throw', error: 'permanent' },
          ],
        ],
      },
    });
    world.queue.send({ messageId: 'id-P1', body: 'P1' });
    await drive(world);
    const [record] = [...world.quarantine.records.values()];
    expect(record.external).toMatchObject({ name: 'charge', status: 'done', idempotencyKey: 'k-1' });
  });
});
