/**
 * Issue 22, defect 15: after a crash that several messages shared, the poison among them must
 * not run first again and again. Its charge comes only at its redelivery, so charged attempts
 * cannot tell it from the healthy messages that were in flight beside it; what is known is
 * how many attempts each started and whether the last one died in flight.
 */
import { describe, expect, it } from 'vitest';
import { testWorld } from '../../sim/world/scenario';

const crashesTheParser = [{ do: 'stage', name: 'parse' } as const, { do: 'crash' } as const];
const work = [{ do: 'stage', name: 'a' } as const, { do: 'stage', name: 'b' } as const];

describe('suspect order after a crash several messages shared (issue 22, defect 15)', () => {
  it('given M1 crashes with M2 and M3 in flight, then M1 crashes alone, then M2 and M3 come back apart from it and complete', async () => {
    // Prepare: one environment at a time, batches of three, three records at once.
    const { world } = testWorld({
      env: { PQ_IN_PROCESS_CONCURRENCY: '3' },
      scripts: { M1: [crashesTheParser], M2: [work], M3: [work] },
    });
    for (const label of ['M1', 'M2', 'M3']) world.queue.send({ messageId: label, body: label });
    const deliver = async () => {
      const next = world.queue.nextVisibleAt();
      if (next !== undefined) world.clock.advanceTo(next);
      return world.deliver(world.environment(), 3);
    };

    // Act: the shared crash; then all three are suspects in SQS's order, M1 first, alone, and
    // M2 and M3 behind it staggered (issue 37); then whatever comes back, one delivery at a time.
    const first = await deliver();
    const second = await deliver();
    const later = [];
    for (let n = 0; n < 3; n++) later.push(await deliver());

    // Assess: M1 crashes alone again; M2 and M3 each come back on their own and complete.
    expect([first.kind, second.kind]).toStrictEqual(['crashed', 'crashed']);
    expect(later.map((delivery) => delivery.records.map((record) => record.messageId))).toStrictEqual([
      ['M1'],
      ['M2'],
      ['M3'],
    ]);
    expect(['M2', 'M3'].map((key) => world.ledger.get(key)?.state)).toStrictEqual(['completed', 'completed']);
  });
});
