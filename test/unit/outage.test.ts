import { describe, expect, it } from 'vitest';
import { evaluateOutage, type FailureEvent, type OutageVerdict } from '../../lambdas/core/outage';
import { aPolicy } from './fixtures';

const policy = aPolicy({ outageFailureThreshold: 3, outageWindowSeconds: 60 });
const now = 1_700_000_000_000;
const secondsAgo = (seconds: number) => now - seconds * 1000;

describe('evaluateOutage', () => {
  it.each<[string, FailureEvent[], OutageVerdict]>([
    ['no events', [], { trip: false, distinctKeys: [] }],
    [
      'three distinct keys within the window',
      [
        { key: 'msg:c', at: secondsAgo(5) },
        { key: 'msg:a', at: secondsAgo(30) },
        { key: 'env:e1', at: secondsAgo(59) },
      ],
      { trip: true, distinctKeys: ['env:e1', 'msg:a', 'msg:c'] },
    ],
    [
      'one poison message failing five times is one key',
      [1, 2, 3, 4, 5].map((seconds) => ({ key: 'msg:poison', at: secondsAgo(seconds) })),
      { trip: false, distinctKeys: ['msg:poison'] },
    ],
    [
      'one crash discovered by its four messages is one key',
      [1, 2, 3, 4].map((seconds) => ({ key: 'env:e9', at: secondsAgo(seconds) })),
      { trip: false, distinctKeys: ['env:e9'] },
    ],
    [
      'an event exactly at the window edge counts',
      [
        { key: 'msg:a', at: secondsAgo(60) },
        { key: 'msg:b', at: secondsAgo(1) },
        { key: 'msg:c', at: secondsAgo(1) },
      ],
      { trip: true, distinctKeys: ['msg:a', 'msg:b', 'msg:c'] },
    ],
    [
      'an event older than the window does not count',
      [
        { key: 'msg:a', at: secondsAgo(61) },
        { key: 'msg:b', at: secondsAgo(1) },
        { key: 'msg:c', at: secondsAgo(1) },
      ],
      { trip: false, distinctKeys: ['msg:b', 'msg:c'] },
    ],
    [
      "an event stamped ahead by another environment's clock counts",
      [
        { key: 'msg:a', at: now + 500 },
        { key: 'msg:b', at: secondsAgo(1) },
        { key: 'msg:c', at: secondsAgo(1) },
      ],
      { trip: true, distinctKeys: ['msg:a', 'msg:b', 'msg:c'] },
    ],
  ])('given %s', (_name, events, expected) => {
    expect(evaluateOutage(events, now, policy)).toStrictEqual(expected);
  });

  it('given a lower configured threshold, then fewer keys trip', () => {
    const events = [
      { key: 'msg:a', at: secondsAgo(1) },
      { key: 'msg:b', at: secondsAgo(2) },
    ];

    expect(evaluateOutage(events, now, aPolicy({ outageFailureThreshold: 2 })).trip).toBe(true);
  });
});
