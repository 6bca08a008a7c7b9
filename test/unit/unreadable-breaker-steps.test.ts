/**
 * consumer/unreadable-breaker.ts: what mutation testing found unpinned. The alarm's line names
 * the problem and the queue; a record on its last receive whose quarantine cannot be written is
 * handed back, never acknowledged (its bytes are stored nowhere yet).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BREAKER_UNREADABLE_LOG_EVENT } from '../../contract/log-events';
import { GARBLED_BREAKER_ITEM } from '../../sim/world/breaker-states';
import { testWorld } from '../../sim/world/scenario';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('an unreadable breaker item', () => {
  it('given a batch, then one error line names the problem and the queue, for the alarm', async () => {
    const error = vi.spyOn(Logger.prototype, 'error');
    const { world } = testWorld();
    world.control.corruptBreaker(GARBLED_BREAKER_ITEM);
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    await world.deliver(world.environment(), 1);
    expect(error).toHaveBeenCalledWith(
      'the breaker item cannot be read: nothing runs until an operator resets it',
      {
        event: BREAKER_UNREADABLE_LOG_EVENT,
        problem: expect.any(String),
        sourceQueue: expect.stringMatching(/^arn:aws:sqs:/),
      },
    );
  });

  it('given a record on its last receive whose quarantine cannot be written, then it is handed back, not acknowledged', async () => {
    // Prepare
    const { world } = testWorld({ faults: [{ at: 'quarantine.putRecord', error: 'access-denied' }] });
    world.control.corruptBreaker(GARBLED_BREAKER_ITEM);
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    const last = world.queue.messages.get('id-M1');
    if (last === undefined) throw new Error('not queued');
    last.receiveCount = 9;

    // Act
    const result = await world.deliver(world.environment(), 1);

    // Assess
    expect(result).toMatchObject({ kind: 'returned', failed: ['id-M1'] });
    expect(world.queue.messages.has('id-M1')).toBe(true);
    expect(world.quarantine.records.size).toBe(0);
  });
});
