/**
 * Control-table items <-> the core's records (docs/design.md, "Control table"): the breaker
 * (core/breaker.ts) and the isolation trial (core/isolation.ts). Times are epoch milliseconds,
 * as the core keeps them.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { BreakerRecord } from '../core/breaker';
import { type IsolationTrial, NO_TRIAL } from '../core/isolation';
import { type Item, ItemReader, S } from './attribute-values';
import { MalformedItemError } from './errors';

export const BREAKER_KEY: Item = { pk: S('breaker'), sk: S('state') };
export const ISOLATION_KEY: Item = { pk: S('isolation'), sk: S('state') };
export const FREEZE_KEY: Item = { pk: S('replay'), sk: S('freeze') };

/**
 * The operations state machine writes this item too, so the reading is lenient where it may
 * differ: `openedAt` as epoch milliseconds or ISO-8601, `cooldownSeconds`, `reason` and `stop`
 * possibly absent. An unknown state is still an error: guessing it could resume a paused consumer.
 */
export function toBreaker(item: Item, defaultCooldownSeconds: number): BreakerRecord {
  const read = new ItemReader(item, 'breaker');
  const state = read.string('state');
  const epoch = read.counter('epoch');
  const cooldownSeconds = read.optionalNumber('cooldownSeconds') ?? defaultCooldownSeconds;
  if (state === 'closed') return { state, epoch, cooldownSeconds, stop: false };
  const reason = read.optionalString('reason') ?? '';
  const openedAt = epochMillis(item.openedAt) ?? 0;
  if (state === 'half-open') {
    const probeSuccesses = read.optionalNumber('probeSuccesses') ?? 0;
    const probeFailures = read.optionalNumber('probeFailures') ?? 0;
    return { state, reason, epoch, openedAt, cooldownSeconds, stop: false, probeSuccesses, probeFailures };
  }
  if (state === 'open')
    return { state, reason, epoch, openedAt, cooldownSeconds, stop: item.stop?.BOOL ?? false };
  throw new MalformedItemError(`breaker: unknown state ${JSON.stringify(state)}`);
}

function epochMillis(value: AttributeValue | undefined): number | undefined {
  const parsed =
    value?.N !== undefined ? Number(value.N) : value?.S !== undefined ? Date.parse(value.S) : Number.NaN;
  return Number.isFinite(parsed) ? parsed : undefined;
}

export function toIsolation(item: Item): IsolationTrial {
  const read = new ItemReader(item, 'isolation trial');
  if (!read.boolean('active')) return NO_TRIAL;
  return {
    active: true,
    remaining: read.number('remaining'),
    startedAt: read.number('startedAt'),
    reason: read.string('reason'),
  };
}
