import { describe, expect, it } from 'vitest';
import type { Item } from '../../lambdas/adapters/attribute-values';
import { BREAKER_READ_ATTRIBUTES, readBreaker } from '../../lambdas/adapters/control-items';

const KEY = { pk: { S: 'breaker' }, sk: { S: 'state' } };
/** What the state machine and pq keep on the item beside the reading. */
const BESIDE = {
  disabledAt: { S: '2030-01-01T00:00:00Z' },
  originalBatchSize: { N: '10' },
  operatorAction: { S: 'hold' },
  taskToken: { S: 'token' },
  audit: { L: [] },
};

describe('readBreaker reads only BREAKER_READ_ATTRIBUTES (the reset of an unreadable item is conditioned on them)', () => {
  it.each<[string, Item]>([
    [
      'closed',
      { ...KEY, ...BESIDE, state: { S: 'closed' }, epoch: { N: '2' }, cooldownSeconds: { N: '60' } },
    ],
    [
      'open',
      {
        ...KEY,
        ...BESIDE,
        state: { S: 'open' },
        epoch: { N: '2' },
        reason: { S: 'outage' },
        stop: { BOOL: true },
      },
    ],
    [
      'half-open',
      { ...KEY, ...BESIDE, state: { S: 'half-open' }, epoch: { N: '2' }, probeSuccesses: { N: '0' } },
    ],
    ['unreadable', { ...KEY, ...BESIDE, state: { S: 'paused-by-hand' }, epoch: { N: '2' } }],
  ])('given a breaker %s, then no other attribute is read', (_state, item) => {
    // Prepare
    const read = new Set<string>();
    const watched = new Proxy(item, {
      get: (target, name) => {
        if (typeof name === 'string') read.add(name);
        return Reflect.get(target, name);
      },
    });

    // Act
    readBreaker(watched, 60);

    // Assess
    const listed: readonly string[] = BREAKER_READ_ATTRIBUTES;
    expect([...read].filter((name) => !listed.includes(name))).toEqual([]);
  });
});
