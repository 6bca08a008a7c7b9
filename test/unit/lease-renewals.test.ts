/**
 * The rehearsal's floor leaves out a healthy Kafka record that renewed its attempt's lease
 * (local/rehearsal/lease-renewals.ts): a loaded machine, not a healthy message's cost (CI saw a
 * healthy record of the incident make 3 writes, 2026-12-08).
 */
import { describe, expect, it } from 'vitest';
import { attemptLeaseMs } from '../../lambdas/core/lease';
import { renewedItsLease } from '../../local/rehearsal/lease-renewals';
import { aLedgerItem } from './fixtures';

const TIMEOUT_SECONDS = 10;
const STARTED = Date.parse('2026-12-08T01:00:00.000Z');
const leasedUntil = (ms: number) =>
  aLedgerItem({
    state: 'completed',
    lastAttemptAt: new Date(STARTED).toISOString(),
    aliveUntil: new Date(STARTED + ms).toISOString(),
  });

describe('whether a record renewed its lease', () => {
  it.each([
    ['its first lease only', leasedUntil(attemptLeaseMs(TIMEOUT_SECONDS)), false],
    ['a lease renewed a millisecond later', leasedUntil(attemptLeaseMs(TIMEOUT_SECONDS) + 1), true],
    ['no lease (an SQS attempt)', aLedgerItem({ state: 'completed' }), false],
    ['no item', undefined, false],
  ])('given %s, then %s', (_name, item, renewed) => {
    expect(renewedItsLease(item, TIMEOUT_SECONDS)).toBe(renewed);
  });
});
