/**
 * Rule 3: a quarantine record holds the last known stage. For a caught error the record was
 * built from the item as the attempt began, so it said `started` whatever stages the work had
 * recorded; a crash's record, read back from the ledger, said the truth. Found by a helper
 * killing quarantine-step.ts's mutants (issue 19).
 */
import { describe, expect, it } from 'vitest';
import { drive } from '../../sim/world/drive';
import { testWorld } from '../../sim/world/scenario';

describe('the stage a quarantine record names', () => {
  it('given a permanent error after the stage parse, then the record names parse', async () => {
    // Prepare
    const { world } = testWorld({
      scripts: {
        P1: [
          [
            { do: 'stage', name: 'parse' },
            { do: 'throw', error: 'permanent' },
          ],
        ],
      },
    });
    world.queue.send({ messageId: 'id-P1', body: 'P1' });

    // Act
    await drive(world);

    // Assess
    expect(
      [...world.quarantine.records.values()].map(({ reason, stage }) => ({ reason, stage })),
    ).toStrictEqual([{ reason: 'permanent-error', stage: 'parse' }]);
  });

  it('given a keyless call made after the stage charge and then an error, then the outcome-unknown record names charge', async () => {
    // Prepare
    const { world } = testWorld({
      scripts: {
        U1: [
          [
            { do: 'stage', name: 'charge' },
            { do: 'external', name: 'pay', result: 'ok' },
            { do: 'throw', error: 'transient' },
          ],
        ],
      },
    });
    world.queue.send({ messageId: 'id-U1', body: 'U1' });

    // Act
    await drive(world);

    // Assess
    expect(
      [...world.quarantine.records.values()].map(({ reason, stage }) => ({ reason, stage })),
    ).toStrictEqual([{ reason: 'outcome-unknown', stage: 'charge' }]);
  });

  it('given an error before any stage, then the record names started', async () => {
    // Prepare
    const { world } = testWorld({ scripts: { P1: [[{ do: 'throw', error: 'permanent' }]] } });
    world.queue.send({ messageId: 'id-P1', body: 'P1' });

    // Act
    await drive(world);

    // Assess
    expect([...world.quarantine.records.values()].map(({ stage }) => stage)).toStrictEqual(['started']);
  });
});
