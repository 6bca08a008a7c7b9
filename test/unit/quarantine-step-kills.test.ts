/**
 * The quarantine step (consumer/quarantine-step.ts) on the in-memory world, for what mutation
 * testing (npm run mutation, issue 19) still found unpinned: rule 11b counts only a quarantine
 * that says something of poison, so neither a receive-limit quarantine (even one a duplicate
 * finishes on its first receive) nor one on a last receive stops or fills the share; and a
 * standard queue's record claims no FIFO group and no broken order. Making every quarantine
 * count (or every receive-limit one on a first receive), and writing `orderBroken` for every
 * queue, failed none of the tests before these.
 */
import { describe, expect, it } from 'vitest';
import { BREAKER_STATE } from '../../contract/control';
import { ENV } from '../../contract/env';
import { drive } from '../../sim/world/drive';
import { testWorld } from '../../sim/world/scenario';
import type { Step } from '../../sim/world/scripted-processor';

const permanent: readonly (readonly Step[])[] = [
  [
    { do: 'stage', name: 'parse' },
    { do: 'throw', error: 'permanent' },
  ],
];

describe('rule 11b counts only quarantines that say something of poison', () => {
  it('given a duplicate that finishes a receive-limit quarantine on its first receive, then it is quarantined: the share does not stop it', async () => {
    // Prepare: the key is the order id; a share window of 1 stops the first counted quarantine.
    // The first copy fails on its last receive and dies writing its receive-limit record; SQS
    // moves it to the backstop, and the producer's duplicate (same key, same body) comes next.
    const body = JSON.stringify({ label: 'A', orderId: 'o-1' });
    const { world } = testWorld({
      env: {
        [ENV.messageKeyPath]: 'orderId',
        [ENV.quarantineShareWindow]: '1',
        [ENV.quarantineShareThreshold]: '0.5',
      },
      scripts: { A: [[{ do: 'throw', error: 'transient' }]] },
      faults: [{ at: 'quarantine.putRecord', error: 'crash' }],
    });
    world.queue.send({ messageId: 'id-A', body });
    const first = world.queue.messages.get('id-A');
    if (first === undefined) throw new Error('not queued');
    first.receiveCount = 9;
    await world.deliver(world.environment(), 1);
    expect(world.ledger.get('o-1')?.quarantining).toMatchObject({ reason: 'receive-limit' });
    world.clock.advanceTo(world.clock.now() + 10 * 60 * 1000);
    world.queue.send({ messageId: 'id-B', body });

    // Act
    const result = await world.deliver(world.environment(), 1);

    // Assess
    expect(result).toMatchObject({ kind: 'returned', failed: [] });
    expect(world.queue.backstop.map((message) => message.messageId)).toStrictEqual(['id-A']);
    expect([...world.quarantine.records.values()]).toMatchObject([
      { messageId: 'id-B', messageKey: 'o-1', reason: 'receive-limit', attemptsCharged: 0, status: 'open' },
    ]);
    expect(world.ledger.get('o-1')?.state).toBe('quarantined');
    expect(world.control.breaker).toBeUndefined();
    expect(world.queue.messages.has('id-B')).toBe(false);
  });

  it('given three poison messages quarantined on their last receive, then a poison message on its first receive is quarantined too: the share counted none of them', async () => {
    // Prepare: a window of 4 and a threshold of a half; L1-L3 received 9 times already.
    const { world } = testWorld({
      env: { [ENV.quarantineShareWindow]: '4', [ENV.quarantineShareThreshold]: '0.5' },
      scripts: { L1: permanent, L2: permanent, L3: permanent, P4: permanent },
    });
    for (const label of ['L1', 'L2', 'L3']) world.queue.send({ messageId: `id-${label}`, body: label });
    for (const message of world.queue.messages.values()) message.receiveCount = 9;
    world.queue.send({ messageId: 'id-P4', body: 'P4' });
    const env = world.environment();

    // Act
    for (let poll = 0; poll < 4; poll++) await world.deliver(env, 1);

    // Assess
    expect(world.control.breaker?.record.state ?? BREAKER_STATE.closed).toBe(BREAKER_STATE.closed);
    expect([...world.quarantine.records.values()].map((record) => [record.messageId, record.reason])).toEqual(
      [
        ['id-L1', 'permanent-error'],
        ['id-L2', 'permanent-error'],
        ['id-L3', 'permanent-error'],
        ['id-P4', 'permanent-error'],
      ],
    );
    expect(world.queue.messages.size).toBe(0);
  });
});

describe('what a standard queue record keeps', () => {
  it('given a poison message from a standard queue, then its record and envelope name no FIFO group and no broken order', async () => {
    // Prepare
    const { world } = testWorld({ scripts: { P1: permanent } });
    world.queue.send({ messageId: 'id-P1', body: 'P1' });

    // Act
    await drive(world);

    // Assess
    const [record] = [...world.quarantine.records.values()];
    expect(record).toMatchObject({ messageId: 'id-P1', reason: 'permanent-error', status: 'open' });
    expect(Object.keys(record)).not.toContain('messageGroupId');
    expect(Object.keys(record)).not.toContain('orderBroken');
    const envelope = JSON.parse(world.quarantine.objects.get(record.envelopeKey)?.toString('utf8') ?? '{}');
    expect(envelope).toMatchObject({ quarantineId: record.id, messageId: 'id-P1' });
    expect(Object.keys(envelope)).not.toContain('messageGroupId');
    expect(Object.keys(envelope)).not.toContain('orderBroken');
  });
});
