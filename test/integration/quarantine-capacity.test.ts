/**
 * Rule 11a through the real consumer over the in-memory world: at the capacity of open records
 * the consumer stops (a stop that waits for an operator), leaves the message in the queue and
 * quarantines nothing more; the capacity is read from the open-record counter, not counted.
 */
import { describe, expect, it } from 'vitest';
import { ENV } from '../../contract/env';
import { OutsideSystem, scriptedProcessor } from '../../sim/world/scripted-processor';
import { World } from '../../sim/world/world';

/** Every message fails permanently: each is quarantined at its first attempt (rule 9). */
function poisonWorld(capacity: number): World {
  const outside = new OutsideSystem();
  const world: World = new World({
    env: { [ENV.quarantineCapacity]: String(capacity) },
    processorFor: (env) =>
      scriptedProcessor(env, world, outside, () => [{ do: 'throw', error: 'permanent' }]),
  });
  return world;
}

/** One poll of one message each, in one execution environment. */
async function deliverEach(world: World, bodies: readonly string[]): Promise<void> {
  const env = world.environment();
  for (const body of bodies) {
    world.queue.send({ messageId: `id-${body}`, body });
    await world.deliver(env, 1);
  }
}

describe('rule 11a: the quarantine at capacity stops the consumer', () => {
  it('given a capacity of 2, when a third message is quarantined, then the consumer stops and the message stays', async () => {
    // Prepare
    const world = poisonWorld(2);

    // Act
    await deliverEach(world, ['P1', 'P2', 'P3']);

    // Assess
    expect([...world.quarantine.records.values()].map((record) => record.messageId).sort()).toEqual([
      'id-P1',
      'id-P2',
    ]);
    expect(world.quarantine.openRecords).toBe(2);
    expect(world.control.breaker?.record).toMatchObject({
      state: 'open',
      reason: 'quarantine-capacity',
      stop: true,
    });
    expect([...world.queue.messages.values()].map((message) => message.messageId)).toEqual(['id-P3']);
  });

  it('given records resolved by an operator, then their room is free again', async () => {
    // Prepare
    const world = poisonWorld(2);
    await deliverEach(world, ['P1', 'P2']);
    const [first] = [...world.quarantine.records.keys()];
    world.quarantine.moveStatus(first ?? '', 'resolved', ['open']);

    // Act
    await deliverEach(world, ['P3']);

    // Assess
    expect(world.quarantine.records.size).toBe(3);
    expect(world.quarantine.openRecords).toBe(2);
    expect(world.control.breaker).toBeUndefined();
  });

  it('given a counter that says full while no record is open, then the consumer stops: it reads the counter', async () => {
    // Prepare
    const world = poisonWorld(2);
    world.quarantine.openRecords = 2;

    // Act
    await deliverEach(world, ['P1']);

    // Assess
    expect(world.quarantine.records.size).toBe(0);
    expect(world.control.breaker?.record).toMatchObject({ reason: 'quarantine-capacity', stop: true });
  });
});
