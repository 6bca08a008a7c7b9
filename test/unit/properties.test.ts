/**
 * A message's life as a random sequence of attempts, each doing something different (succeed,
 * throw, crash, crash around an external call, time out after sending), driven through the REAL
 * consumer over the in-memory world. The properties are the behaviour contract's promises.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { drive } from '../../sim/world/drive';
import { testWorld } from '../../sim/world/scenario';
import type { Step } from '../../sim/world/scripted-processor';

const BODY = '{"order":{"id":"ord-9","amount":12.5}}';
const KEY = 'id-M';

/** One attempt's behaviour. */
const attempt: fc.Arbitrary<readonly Step[]> = fc.oneof(
  { arbitrary: fc.constant([]), weight: 1 },
  {
    arbitrary: fc
      .constantFrom('transient', 'permanent', 'unknown' as const)
      .map((error) => [{ do: 'throw', error } as const]),
    weight: 3,
  },
  { arbitrary: fc.constant([{ do: 'crash' } as const]), weight: 4 },
  {
    arbitrary: fc
      .record({
        keyed: fc.boolean(),
        result: fc.constantFrom('ok', 'refused', 'timeout', 'crash-during', 'crash-after' as const),
      })
      .map(({ keyed, result }) => [
        { do: 'external', name: 'charge', result, ...(keyed ? { idempotencyKey: 'idem-1' } : {}) } as const,
      ]),
    weight: 3,
  },
);

const limits = fc.record({ limit: fc.integer({ min: 1, max: 5 }), retries: fc.integer({ min: 0, max: 4 }) });

async function live(script: readonly (readonly Step[])[], limit: number, retries: number) {
  const { world, outside } = testWorld({
    env: {
      PQ_ATTEMPT_LIMIT: String(limit),
      PQ_TRANSIENT_RETRIES: String(retries),
      PQ_OUTAGE_FAILURE_THRESHOLD: '100',
    },
    scripts: { [BODY]: script.length === 0 ? [[]] : [...script, []] },
  });
  world.queue.send({ messageId: KEY, body: BODY });
  await drive(world, { maxPolls: 100 });
  return { world, outside };
}

describe('a message under any sequence of attempts, through the real consumer', () => {
  it('is never lost, never over-charged, and a keyless call is never made twice', async () => {
    await fc.assert(
      fc.asyncProperty(limits, fc.array(attempt, { maxLength: 12 }), async ({ limit, retries }, script) => {
        // Act
        const { world, outside } = await live(script, limit, retries);

        // Assess
        const item = world.ledger.get(KEY);
        expect(item?.state === 'completed' || item?.state === 'quarantined').toBe(true);
        expect(world.queue.messages.size).toBe(0);
        expect(world.queue.backstop).toHaveLength(0);
        if (item?.state === 'quarantined') {
          expect(world.quarantine.body(item.quarantineId ?? '')?.toString('utf8')).toBe(BODY);
        }
        expect(item?.charged ?? 0).toBeLessThanOrEqual(limit);
        expect(outside.count(KEY, 'charge')).toBeLessThanOrEqual(keylessCallsAllowed(script));
      }),
      { numRuns: 300 },
    );
  });

  it('given a poison message crashing on every attempt, then it is quarantined after exactly the limit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), async (limit) => {
        const { world } = await live(Array(10).fill([{ do: 'crash' }]), limit, 3);

        expect(world.ledger.get(KEY)).toMatchObject({
          state: 'quarantined',
          attempts: limit,
          charged: limit,
        });
        expect([...world.quarantine.records.values()].map((record) => record.reason)).toEqual([
          'crash-limit',
        ]);
      }),
    );
  });
});

/**
 * A keyless call is made at most once: an attempt whose keyless call may have happened ends the
 * message as outcome-unknown, so only keyed calls or calls refused before sending can repeat.
 */
function keylessCallsAllowed(script: readonly (readonly Step[])[]): number {
  const repeatable = script.some((steps) =>
    steps.some(
      (step) => step.do === 'external' && (step.idempotencyKey !== undefined || step.result === 'refused'),
    ),
  );
  return repeatable ? Number.POSITIVE_INFINITY : 1;
}
