/**
 * The attempt's lease in the consumer (issue 38): renewed while the record's work runs and never
 * after its attempt ended, over the in-memory world; and a delivery that finds an attempt alive
 * waits for its lease once, then stays for the next invocation if it is still alive.
 */
import { describe, expect, it, vi } from 'vitest';
import { kafkaRecordId } from '../../contract/sources';
import { beginAttempt } from '../../lambdas/consumer/begin-attempt';
import type { ConsumerDeps } from '../../lambdas/consumer/deps';
import type { RecordSession } from '../../lambdas/consumer/record-outcome';
import { parseConfig } from '../../lambdas/core/config';
import type { StartResult } from '../../lambdas/ports/ledger';
import type { SourceRecord } from '../../lambdas/ports/source';
import { driveKafka } from '../../sim/world/kafka-mapping';
import { MemoryTopic } from '../../sim/world/memory-topic';
import { OutsideSystem, scriptedProcessor } from '../../sim/world/scripted-processor';
import { kafkaWorldEnvironment, WORLD_TOPIC, World } from '../../sim/world/world';
import { aLedgerItem } from './fixtures';

describe("a Kafka record's lease while it works (in memory)", () => {
  it('given records that work 9 s each, then each lease is renewed every 2.5 s while its record works and never after', async () => {
    // Prepare: the world's 30 s timeout gives a 7.5 s lease, renewed a third of it apart; the
    // second record keeps time running past the first one's end.
    const outside = new OutsideSystem();
    const world: World = new World({
      source: 'kafka',
      processorFor: (env) => scriptedProcessor(env, world, outside, () => [{ do: 'work', ms: 9_000 }]),
    });
    const topic = new MemoryTopic(WORLD_TOPIC, 1, () => world.clock.now());
    topic.produce(0, { value: Buffer.from('slow 1') });
    topic.produce(0, { value: Buffer.from('slow 2') });
    const renewals: { key: string; at: number; aliveUntil: number }[] = [];
    const renew = world.ledger.renewLease.bind(world.ledger);
    vi.spyOn(world.ledger, 'renewLease').mockImplementation((key, attemptId, aliveUntil) => {
      renewals.push({ key, at: world.clock.now(), aliveUntil: aliveUntil.getTime() });
      return renew(key, attemptId, aliveUntil);
    });

    // Act
    await driveKafka(world, topic, { batchSize: 2 });

    // Assess: three renewals during each record's work; none once its attempt completed.
    const items = world.ledger.all();
    expect(items.map((item) => item.state)).toStrictEqual(['completed', 'completed']);
    for (const item of items) {
      const started = Date.parse(item.lastAttemptAt);
      const own = renewals.filter(({ key }) => key === item.key);
      expect(own.map(({ at }) => at - started)).toStrictEqual([2_500, 5_000, 7_500]);
      expect(own.every(({ at, aliveUntil }) => aliveUntil === at + 7_500)).toBe(true);
    }
    expect(renewals).toHaveLength(6);
    expect(topic.lag()).toBe(0);
  });
});

describe('a delivery that finds an attempt alive (a rebalance)', () => {
  const NOW = new Date('2026-12-07T10:00:00.000Z');
  const id = kafkaRecordId(WORLD_TOPIC, 0, 7);
  const record: SourceRecord = {
    messageId: id,
    receiptHandle: id,
    body: 'order 7',
    attributes: {},
    messageAttributes: {},
    eventSourceARN: 'localhost:9092',
    orderGroup: `${WORLD_TOPIC}-0`,
  };

  it('given its lease is renewed while this delivery waits, then it waits once and stays for the next invocation', async () => {
    // Prepare: the ledger shows the attempt alive for 2 s more at every read.
    const alive: StartResult = {
      started: false,
      previous: aLedgerItem({
        key: id,
        messageId: id,
        lastAttemptAt: NOW.toISOString(),
        aliveUntil: new Date(NOW.getTime() + 2_000).toISOString(),
      }),
    };
    let starts = 0;
    const delay = vi.fn(async () => undefined);
    const deps = {
      config: parseConfig(kafkaWorldEnvironment()),
      ledger: {
        start: async () => {
          starts += 1;
          if (starts > 3) throw new Error('started again and again: the wait never ends');
          return alive;
        },
      },
      queue: { delay },
      logger: { warn: () => undefined },
      now: () => NOW,
      newId: () => 'attempt-2',
      envId: 'env-b',
    } as unknown as ConsumerDeps;
    const waitForLease = vi.fn(async () => true);
    const session = { waitForLease } as unknown as RecordSession;

    // Act
    const outcome = await beginAttempt(deps, session, record);

    // Assess
    expect(waitForLease).toHaveBeenCalledTimes(1);
    expect(waitForLease).toHaveBeenCalledWith(NOW.getTime() + 2_000, id);
    expect(starts).toBe(2);
    expect(outcome).toStrictEqual({ kind: 'retry', delaySeconds: 2 });
    expect(delay).toHaveBeenCalledWith(id, 2);
  });
});
