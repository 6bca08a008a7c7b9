/**
 * Assertions that mutation testing (npm run mutation) found missing in lambdas/consumer: each
 * test pins what a surviving mutant changed without any test failing.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULTS } from '../../contract/defaults';
import { ENV } from '../../contract/env';
import type { ConsumerDeps } from '../../lambdas/consumer/deps';
import { returnAfter } from '../../lambdas/consumer/hand-back';
import { returnedOnError } from '../../lambdas/consumer/own-tables';
import { LedgerUnavailableError } from '../../lambdas/ports/errors';
import { drive } from '../../sim/world/drive';
import { testWorld } from '../../sim/world/scenario';

describe('the ledger item of a started attempt expires after the retention', () => {
  it('given a message, then its start write asks for expiry ledgerRetentionDays after the start', async () => {
    // Prepare
    const { world } = testWorld();
    const start = vi.spyOn(world.ledger, 'start');
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    const before = Math.floor(world.clock.now() / 1000);

    // Act
    await drive(world);

    // Assess
    const after = Math.floor(world.clock.now() / 1000);
    expect(world.ledger.get('id-M1')?.state).toBe('completed');
    const retention = DEFAULTS.ledgerRetentionDays * 86_400;
    const expiresAt = start.mock.calls[0]?.[0].expiresAt;
    expect(expiresAt).toBeGreaterThanOrEqual(before + retention);
    expect(expiresAt).toBeLessThanOrEqual(after + retention);
  });
});

describe('a message whose key cannot be read says why', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('given a body that is no JSON under a key path, then a message-key-fallback warning, and it completes', async () => {
    // Prepare
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const { world } = testWorld({ env: { [ENV.messageKeyPath]: 'orderId' } });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await drive(world);

    // Assess
    expect(world.ledger.get('id-M1')?.state).toBe('completed');
    expect(warn).toHaveBeenCalledWith('message key not usable; using the messageId', {
      event: 'message-key-fallback',
      messageId: 'id-M1',
      why: expect.any(String),
    });
  });

  it('given a body whose key reads, then no such warning', async () => {
    // Prepare
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const { world } = testWorld({ env: { [ENV.messageKeyPath]: 'orderId' } });
    world.queue.send({ messageId: 'id-M1', body: JSON.stringify({ orderId: 'o-1' }) });

    // Act
    await drive(world);

    // Assess
    expect(world.ledger.get('o-1')?.state).toBe('completed');
    expect(
      warn.mock.calls.filter(([message]) => String(message).startsWith('message key not usable')),
    ).toEqual([]);
  });
});

describe('a record returned on a failed write of our own', () => {
  const record = { messageId: 'm-1', receiptHandle: 'r-1' } as never;
  const fakes = (recordProbe: () => Promise<void>) => {
    const logs: [string, string, unknown][] = [];
    const logger = {
      error: (message: string, fields: unknown) => logs.push(['error', message, fields]),
      warn: (message: string, fields: unknown) => logs.push(['warn', message, fields]),
    };
    const probes: string[] = [];
    const control = {
      recordProbe: async (kind: string) => {
        probes.push(kind);
        await recordProbe();
      },
    };
    return { deps: { logger, control } as unknown as ConsumerDeps, logs, probes };
  };

  it('logs it, and in a half-open window counts an own failure and pauses for an outage', async () => {
    // Prepare
    const { deps, logs, probes } = fakes(async () => undefined);
    const pauses: string[] = [];
    const error = new LedgerUnavailableError('throttled');

    // Act
    const outcome = await returnedOnError(
      deps,
      { halfOpen: true, pause: (why) => pauses.push(why) },
      record,
      () => Promise.reject(error),
    );

    // Assess
    expect(outcome).toEqual({ kind: 'returned', why: error.name });
    expect(logs).toEqual([
      [
        'error',
        'record returned to the queue: a write it needed failed',
        { event: 'record-error', messageId: 'm-1', error },
      ],
    ]);
    expect(probes).toEqual(['own-failure']);
    expect(pauses).toEqual(['outage']);
  });

  it('given the own failure cannot be counted, then a warning, and it still pauses', async () => {
    // Prepare
    const refused = new Error('control refused');
    const { deps, logs } = fakes(() => Promise.reject(refused));
    const pauses: string[] = [];

    // Act
    await returnedOnError(deps, { halfOpen: true, pause: (why) => pauses.push(why) }, record, () =>
      Promise.reject(new LedgerUnavailableError('throttled')),
    );

    // Assess
    expect(logs[1]).toEqual([
      'warn',
      'an own-table failure of the probe window was not recorded',
      { event: 'probe-unrecorded', error: refused },
    ]);
    expect(pauses).toEqual(['outage']);
  });

  it('given an error without a name, then returned as error', async () => {
    const { deps } = fakes(async () => undefined);
    const outcome = await returnedOnError(deps, { halfOpen: false, pause: () => undefined }, record, () =>
      Promise.reject({ name: undefined }),
    );
    expect(outcome).toEqual({ kind: 'returned', why: 'error' });
  });

  it('given the hand-back delay refused, then a warning naming the message', async () => {
    // Prepare
    const refused = new Error('sqs refused');
    const { deps, logs } = fakes(async () => undefined);
    const withQueue = { ...deps, queue: { delay: () => Promise.reject(refused) } } as unknown as ConsumerDeps;

    // Act
    await returnAfter(withQueue, record, 30);

    // Assess
    expect(logs).toEqual([
      [
        'warn',
        'record handed back keeps its visibility timeout',
        { event: 'return-after-failed', messageId: 'm-1', error: refused },
      ],
    ]);
  });
});
