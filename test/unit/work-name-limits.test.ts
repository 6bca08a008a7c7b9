/**
 * A stage or call name is stored on the message's ledger item, which DynamoDB caps at 400 KB.
 * A name that would take it past the cap was refused as our own table failing: the message went
 * back uncharged on every delivery until its last receive. A name that long is the processor's
 * bug, so it gets a clear error where it is given, and the message is quarantined with it as
 * evidence, as any other error of the work (rule 9).
 */
import { describe, expect, it } from 'vitest';
import type { ProcessorModule } from '../../lambdas/consumer/types';
import { WORK_NAME_MAX_BYTES } from '../../lambdas/core/work-names';
import { World } from '../../sim/world/world';

function worldWith(processor: ProcessorModule) {
  return new World({ random: () => 0.5, processorFor: () => processor });
}

async function deliverUntilDone(world: World): Promise<void> {
  const env = world.environment();
  for (let poll = 0; poll < 10 && world.queue.messages.size > 0; poll++) {
    const next = world.queue.nextVisibleAt();
    if (next !== undefined) world.clock.advanceTo(next);
    await world.deliver(env, 1);
  }
}

describe('names a processor gives its stages and calls', () => {
  it.each([
    [
      'a stage',
      'ctx.stage name',
      (name: string): ProcessorModule => ({ process: async (_m, ctx) => ctx.stage(name) }),
    ],
    [
      'a call',
      'ctx.external name',
      (name: string): ProcessorModule => ({
        process: async (_m, ctx) => {
          await ctx.external(name, async () => 'ok');
        },
      }),
    ],
    [
      "a call's idempotency key",
      'ctx.external idempotencyKey',
      (key: string): ProcessorModule => ({
        process: async (_m, ctx) => {
          await ctx.external('charge', async () => 'ok', { idempotencyKey: key });
        },
      }),
    ],
  ])(
    'given %s of 500,000 bytes, then the message is quarantined with an error naming it and the limit',
    async (_, what, processorOf) => {
      // Prepare
      const world = worldWith(processorOf('s'.repeat(500_000)));
      world.queue.send({ messageId: 'id-M1', body: 'M1' });

      // Act
      await deliverUntilDone(world);

      // Assess
      const [record] = [...world.quarantine.records.values()];
      expect(world.queue.messages.size).toBe(0);
      expect(record?.reason).toBe('unknown-error-repeated');
      expect(record?.lastError?.message).toContain(`at most ${WORK_NAME_MAX_BYTES} bytes`);
      expect(record?.lastError?.message).toMatch(new RegExp(`^${what} is 500000 bytes`));
    },
  );

  it(`given names of ${WORK_NAME_MAX_BYTES} bytes, then the work runs and completes`, async () => {
    // Prepare
    const name = 'ü'.repeat(WORK_NAME_MAX_BYTES / 2);
    const world = worldWith({
      process: async (_m, ctx) => {
        await ctx.stage(name);
        await ctx.external(name, async () => 'ok');
      },
    });
    world.queue.send({ messageId: 'id-M1', body: 'M1' });

    // Act
    await deliverUntilDone(world);

    // Assess
    expect(world.ledger.all().map((item) => item.state)).toStrictEqual(['completed']);
  });
});
