/**
 * The seed's rehearsal (docs/behaviour.md) through the real consumer over the in-memory world:
 * the same totals the local AWS rehearsal must meet, in milliseconds.
 */
import { describe, expect, it } from 'vitest';
import { drive } from '../../sim/world/drive';
import { OutsideSystem, type Step, scriptedProcessor } from '../../sim/world/scripted-processor';
import { World } from '../../sim/world/world';

function seedWorld(m3: readonly Step[]) {
  const outside = new OutsideSystem();
  const world: World = new World({
    env: { PQ_IN_PROCESS_CONCURRENCY: '1' },
    processorFor: (env) =>
      scriptedProcessor(env, world, outside, (message) =>
        message.body === 'M3' ? m3 : [{ do: 'external', name: 'book', result: 'ok' }],
      ),
  });
  for (const label of ['M1', 'M2', 'M3', 'M4', 'M5'])
    world.queue.send({ messageId: `id-${label}`, body: label });
  return { world, outside };
}

describe('the seed rehearsal over the in-memory world', () => {
  it('given M3 crashes the parser every time, then 7 attempts, 4 completed, 1 quarantined, 0 left', async () => {
    // Prepare
    const { world } = seedWorld([{ do: 'crash' }]);

    // Act
    await drive(world);

    // Assess
    const items = world.ledger.all();
    expect(items.reduce((sum, item) => sum + item.attempts, 0)).toBe(7);
    expect(items.filter((item) => item.state === 'completed')).toHaveLength(4);
    expect([...world.quarantine.records.values()].map((record) => record.reason)).toEqual(['crash-limit']);
    expect(world.queue.messages.size).toBe(0);
  });

  it('given M3 dies after sending its request, then 5 attempts, 1 outcome-unknown, one request for M3', async () => {
    // Prepare
    const { world, outside } = seedWorld([{ do: 'external', name: 'book', result: 'crash-during' }]);

    // Act
    await drive(world);

    // Assess
    const items = world.ledger.all();
    expect(items.reduce((sum, item) => sum + item.attempts, 0)).toBe(5);
    expect(items.filter((item) => item.state === 'completed')).toHaveLength(4);
    expect([...world.quarantine.records.values()].map((record) => record.reason)).toEqual([
      'outcome-unknown',
    ]);
    expect(outside.count('id-M3', 'book')).toBe(1);
    expect(world.queue.messages.size).toBe(0);
  });
});
