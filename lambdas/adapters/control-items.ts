/**
 * Control-table items <-> the core's records (docs/design.md, "Control table"): the breaker
 * (core/breaker.ts) and the isolation trial (core/isolation.ts). Times are epoch milliseconds,
 * as the core keeps them.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  BREAKER_ATTRIBUTES as A,
  answerSortKey,
  BREAKER_KEY as BREAKER,
  BREAKER_STATE,
  CONSUMER_PARTITIONS,
  OPERATOR_ITEMS,
  OPERATOR_PARTITION,
} from '../../contract/control';
import type { BreakerReading, BreakerRecord } from '../core/breaker';
import { type IsolationTrial, NO_TRIAL } from '../core/isolation';
import { MalformedItemError } from '../ports/errors';
import { type Item, ItemReader, S } from './attribute-values';

export const BREAKER_KEY: Item = { pk: S(BREAKER.pk), sk: S(BREAKER.sk) };
export const ISOLATION_KEY: Item = { pk: S(CONSUMER_PARTITIONS.isolation), sk: S('state') };
export const FREEZE_KEY: Item = { pk: S(OPERATOR_PARTITION), sk: S(OPERATOR_ITEMS.replayFreeze) };
export const STOPS_LIFTED_KEY: Item = { pk: S(OPERATOR_PARTITION), sk: S(OPERATOR_ITEMS.stopsLifted) };

/** The operator's answer to the pause episode `epoch`. */
export const answerKey = (epoch: number): Item => ({
  pk: S(OPERATOR_PARTITION),
  sk: S(answerSortKey(epoch)),
});

/**
 * Every attribute `toBreaker` reads: while none of them changes, the item reads as it did (the
 * operator's reset of an unreadable item is conditioned on exactly that).
 */
export const BREAKER_READ_ATTRIBUTES = [
  A.state,
  A.epoch,
  A.cooldownSeconds,
  A.reason,
  A.openedAt,
  A.stop,
  A.probeSuccesses,
  A.probeFailures,
  A.probeRepeatFailures,
] as const;

/**
 * The breaker item as read: a breaker, or, where `toBreaker` finds it malformed, what is wrong
 * with it. An unreadable breaker is a state of its own (core/breaker.ts), not an error: the
 * consumer fails closed on it and `pq` shows and resets it, where an error would stop them both.
 */
export function readBreaker(item: Item, defaultCooldownSeconds: number): BreakerReading {
  try {
    return toBreaker(item, defaultCooldownSeconds);
  } catch (error) {
    if (!(error instanceof MalformedItemError)) throw error;
    const epoch = readableEpoch(item);
    return { state: 'unreadable', problem: error.message, ...(epoch === undefined ? {} : { epoch }) };
  }
}

function readableEpoch(item: Item): number | undefined {
  try {
    return new ItemReader(item, 'breaker').counter(A.epoch);
  } catch {
    return undefined;
  }
}

/**
 * The pause state machine writes this item too, so the reading is lenient where it may
 * differ: `openedAt` as epoch milliseconds or ISO-8601, `cooldownSeconds`, `reason` and `stop`
 * possibly absent. An unknown state, or a `stop` that is no boolean, is still an error: guessing
 * it could resume a paused consumer.
 */
export function toBreaker(item: Item, defaultCooldownSeconds: number): BreakerRecord {
  const read = new ItemReader(item, 'breaker');
  const state = read.string(A.state);
  const epoch = read.counter(A.epoch);
  const cooldownSeconds = read.optionalNumber(A.cooldownSeconds) ?? defaultCooldownSeconds;
  if (state === BREAKER_STATE.closed) return { state, epoch, cooldownSeconds, stop: false };
  const reason = read.optionalString(A.reason) ?? '';
  const openedAt = epochMillis(item[A.openedAt]) ?? 0;
  if (state === BREAKER_STATE.halfOpen) {
    const probeSuccesses = read.optionalNumber(A.probeSuccesses) ?? 0;
    const probeFailures = read.optionalNumber(A.probeFailures) ?? 0;
    const probeRepeatFailures = read.optionalNumber(A.probeRepeatFailures) ?? 0;
    return {
      state,
      reason,
      epoch,
      openedAt,
      cooldownSeconds,
      stop: false,
      probeSuccesses,
      probeFailures,
      probeRepeatFailures,
    };
  }
  if (state === BREAKER_STATE.open)
    return {
      state,
      reason,
      epoch,
      openedAt,
      cooldownSeconds,
      stop: item[A.stop] !== undefined && read.boolean(A.stop),
    };
  throw new MalformedItemError(`breaker: unknown state ${JSON.stringify(state)}`);
}

function epochMillis(value: AttributeValue | undefined): number | undefined {
  const parsed =
    value?.N !== undefined ? Number(value.N) : value?.S !== undefined ? Date.parse(value.S) : Number.NaN;
  return Number.isFinite(parsed) ? parsed : undefined;
}

export function toIsolation(item: Item): IsolationTrial {
  const read = new ItemReader(item, 'isolation trial');
  const lastPassAt = read.optionalNumber('lastPassAt');
  const passed = lastPassAt === undefined ? {} : { lastPassAt };
  if (!read.boolean('active')) return { ...NO_TRIAL, ...passed };
  return {
    active: true,
    remaining: read.number('remaining'),
    startedAt: read.number('startedAt'),
    reason: read.string('reason'),
    ...passed,
  };
}
