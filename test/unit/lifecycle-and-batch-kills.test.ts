/**
 * Steps that the full Stryker run of 2026-12-03 (npm run mutation) found unpinned: a paused
 * batch holds back only the records not on their last receive, and a record a pause refused goes
 * back saying so.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULTS } from '../../contract/defaults';
import { ENV } from '../../contract/env';
import { setOpenBreaker } from '../../sim/world/breaker-states';
import { recordLines, withRecordsRewritten } from '../../sim/world/drive';
import { testWorld } from '../../sim/world/scenario';
import type { World } from '../../sim/world/world';

afterEach(() => {
  vi.restoreAllMocks();
});

/** An environment whose batches show `lastId` on its last receive before the backstop. */
const environmentWithLastReceive = (world: World, lastId: string) =>
  withRecordsRewritten(world.environment(), (record) =>
    record.messageId === lastId
      ? {
          ...record,
          attributes: {
            ...record.attributes,
            ApproximateReceiveCount: String(DEFAULTS.backstopMaxReceiveCount),
          },
        }
      : record,
  );

describe('a batch while the breaker holds consumption', () => {
  it('given a record on its last receive beside another, then only the other is handed back; the last one completes and leaves the queue', async () => {
    // Prepare
    const { world } = testWorld();
    setOpenBreaker(world);
    world.queue.send({ messageId: 'id-L1', body: 'L1' });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    const result = await world.deliver(environmentWithLastReceive(world, 'id-L1'), 10);

    // Assess
    expect(result).toMatchObject({ kind: 'returned', failed: ['id-M1'] });
    expect(world.ledger.get('id-L1')?.state).toBe('completed');
    expect(world.ledger.get('id-M1')).toBeUndefined();
    expect([...world.queue.messages.keys()]).toEqual(['id-M1']);
  });
});

describe('a record a pause refused', () => {
  it('given a batch that paused for an outage before its last record, then that record goes back saying paused', async () => {
    // Prepare: a lower threshold, so two keys failing transiently pause the batch before M3.
    const { world } = testWorld({
      env: { [ENV.outageFailureThreshold]: '2', [ENV.inProcessConcurrency]: '1' },
      scripts: {
        T1: [[{ do: 'throw', error: 'transient' }]],
        T2: [[{ do: 'throw', error: 'transient' }]],
      },
    });
    for (const id of ['T1', 'T2', 'M3']) world.queue.send({ messageId: `id-${id}`, body: id });
    const info = vi.spyOn(Logger.prototype, 'info');

    // Act
    await world.deliver(world.environment(), 10);

    // Assess
    expect(recordLines(info).find(([id]) => id === 'id-M3')).toEqual([
      'id-M3',
      { kind: 'returned', why: 'paused' },
    ]);
  });
});
