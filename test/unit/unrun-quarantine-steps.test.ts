/**
 * consumer/unrun-quarantine.ts: a record quarantined without running (receive-limit) writes its
 * evidence into the begun quarantine on the ledger, so a quarantine interrupted half-way is
 * finished by the next delivery with the same evidence, not with whatever the item held before.
 * Mutation testing found the evidence of the begun quarantine unpinned (issue 19).
 */
import { describe, expect, it } from 'vitest';
import { ENV } from '../../contract/env';
import { drive } from '../../sim/world/drive';
import { testWorld } from '../../sim/world/scenario';

describe('a quarantine without running, interrupted half-way', () => {
  it('given the worker dies before the content is written, then the next delivery finishes it with the same evidence', async () => {
    // Prepare: every receive is the last; of two records, one runs and the other is set aside,
    // and the worker dies as the set-aside record's content is about to be written.
    const { world } = testWorld({
      env: { [ENV.backstopMaxReceiveCount]: '1' },
      faults: [{ at: 'quarantine.putContent', error: 'crash' }],
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });
    world.queue.send({ messageId: 'id-M2', body: 'M2' });
    const first = await world.deliver(world.environment(), 2);

    // Act
    await drive(world);

    // Assess
    expect(first.kind).toBe('crashed');
    const records = [...world.quarantine.records.values()].map(({ reason, messageId, lastError }) => ({
      reason,
      messageId,
      lastError,
    }));
    expect(records).toStrictEqual([
      {
        reason: 'receive-limit',
        messageId: 'id-M2',
        lastError: {
          class: 'transient',
          name: 'LastReceiveBesideAnother',
          message: 'not run: on its last receive in a batch where id-M1, also on its last receive, ran first',
          stackHead: '',
        },
      },
    ]);
  });
});
