/**
 * Issue 38: a Kafka record that fails every half-open probe. On a queue the next message probes
 * instead and SQS's receive count ends the message at its last receive (quarantined
 * `receive-limit`, rule 3 over rule 7); on a partition no record can probe past it and Kafka
 * counts no deliveries, so the ledger counts the record's failed probes and the last one allowed
 * (PQ_KAFKA_MAX_FAILED_PROBES) quarantines it: the partition, and the breaker, move on.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../contract/defaults';
import { ENV } from '../../contract/env';
import { kafkaRecordId } from '../../contract/sources';
import { setHalfOpenBreaker } from '../../sim/world/breaker-states';
import { deliverPartition } from '../../sim/world/kafka-mapping';
import { MemoryTopic } from '../../sim/world/memory-topic';
import { OutsideSystem, type Step, scriptedProcessor } from '../../sim/world/scripted-processor';
import { WORLD_TOPIC, World } from '../../sim/world/world';

const failsTransiently: readonly Step[] = [{ do: 'throw', error: 'transient' }];

/** One partition: a record that fails transiently on every attempt, then a healthy one. */
function heldPartition(env: Record<string, string> = {}) {
  const outside = new OutsideSystem();
  const world: World = new World({
    source: 'kafka',
    env,
    processorFor: (environment) =>
      scriptedProcessor(environment, world, outside, (message) =>
        Buffer.from(message.kafka?.value ?? '', 'base64').toString() === 'poison' ? failsTransiently : [],
      ),
  });
  const topic = new MemoryTopic(WORLD_TOPIC, 1, () => world.clock.now());
  topic.produce(0, { value: Buffer.from('poison') });
  topic.produce(0, { value: Buffer.from('healthy') });
  const environment = world.environment();
  /** A fresh probe window (the pause machine's half-open), then one poll of the partition. */
  const probe = async () => {
    setHalfOpenBreaker(world);
    await deliverPartition(world, environment, topic, 0, 10);
  };
  return { world, topic, probe };
}

const poisonKey = kafkaRecordId(WORLD_TOPIC, 0, 0);

describe('a Kafka record that fails every half-open probe', () => {
  it('given a limit of 3, then its first two failed probes hand it back uncharged and its third quarantines it as receive-limit', async () => {
    // Prepare
    const { world, topic, probe } = heldPartition({ [ENV.kafkaMaxFailedProbes]: '3' });

    // Act
    await probe();
    await probe();
    const heldAfterTwo = { committed: topic.committedOffset(0), item: world.ledger.get(poisonKey) };
    await probe();
    await probe();

    // Assess: held, uncharged, counted; then quarantined with no charge and the partition drained.
    expect(heldAfterTwo.committed).toBe(0);
    expect(heldAfterTwo.item).toMatchObject({ state: 'ready', charged: 0, failedProbes: 2 });
    expect(
      [...world.quarantine.records.values()].map((record) => [record.messageKey, record.reason]),
    ).toStrictEqual([[poisonKey, 'receive-limit']]);
    expect(world.ledger.get(poisonKey)).toMatchObject({ state: 'quarantined', charged: 0, failedProbes: 3 });
    expect(topic.lag()).toBe(0);
  });

  it('given no limit set, then the default: held through its first nine failed probes, quarantined at the tenth, and the partition moves on', async () => {
    // Prepare
    const { world, topic, probe } = heldPartition();

    // Act
    for (let window = 1; window < DEFAULTS.kafkaMaxFailedProbes; window++) await probe();
    const before = world.quarantine.records.size;
    await probe();
    await probe();

    // Assess
    expect(DEFAULTS.kafkaMaxFailedProbes).toBe(10);
    expect(before).toBe(0);
    expect([...world.quarantine.records.values()].map((record) => record.reason)).toStrictEqual([
      'receive-limit',
    ]);
    expect(topic.lag()).toBe(0);
  });

  it('given the breaker closed, then its transient failures spend its own budget, not the probe limit', async () => {
    // Prepare: no window open; the transient budget (3 retries) decides, as for any record.
    const { world, topic } = heldPartition({ [ENV.kafkaMaxFailedProbes]: '1' });
    const environment = world.environment();

    // Act
    for (let poll = 0; poll < 8 && topic.lag() > 0; poll++) {
      world.clock.advanceTo(world.clock.now() + 60_000);
      await deliverPartition(world, environment, topic, 0, 10);
    }

    // Assess
    expect([...world.quarantine.records.values()].map((record) => record.reason)).toStrictEqual([
      'transient-retries-exhausted',
    ]);
    expect(world.ledger.get(poisonKey)?.failedProbes).toBeUndefined();
  });
});
