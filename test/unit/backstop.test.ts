/**
 * The backstop take's decisions (lambdas/core/backstop.ts): the key a message is worked under,
 * what happens to its ledger item, the capacity refusal, and the record it becomes.
 */
import { describe, expect, it } from 'vitest';
import {
  BACKSTOP_TAKE_AUDIT,
  type BackstopMessage,
  backstopKey,
  backstopTake,
  decideLedgerHold,
  refuseOverCapacity,
} from '../../lambdas/core/backstop';
import { backstopQuarantineId } from '../../lambdas/core/ids';
import { aLedgerItem } from './fixtures';

const NOW = new Date('2030-01-01T12:00:00.000Z');
const ID = backstopQuarantineId('m-1');

function aMessage(overrides: Partial<BackstopMessage> = {}): BackstopMessage {
  return {
    messageId: 'm-1',
    receiptHandle: 'r-1',
    body: '{"order":{"id":"o-7"}}',
    md5OfBody: 'md5',
    attributes: {
      SentTimestamp: String(Date.parse('2030-01-01T11:00:00.000Z')),
      ApproximateReceiveCount: '11',
    },
    messageAttributes: {},
    ...overrides,
  };
}

describe('backstopKey', () => {
  it('is the key path of the body when there is one, else the message id', () => {
    expect(backstopKey(aMessage(), 'order.id')).toStrictEqual({ key: 'o-7' });
    expect(backstopKey(aMessage(), undefined)).toStrictEqual({ key: 'm-1' });
  });

  it('is a replay key when the message carries a replay pair, and says why it fell back otherwise', () => {
    const replay = aMessage({
      messageAttributes: {
        'pq-message-key': { dataType: 'String', stringValue: 'o-7' },
        'pq-replay-of': { dataType: 'String', stringValue: 'q-abc' },
      },
    });
    expect(backstopKey(replay, undefined)).toStrictEqual({ key: 'o-7', replayOf: 'q-abc' });
    expect(backstopKey(aMessage({ body: 'not json' }), 'order.id')).toStrictEqual({
      key: 'm-1',
      fallback: 'the body is not JSON',
    });
  });
});

describe('decideLedgerHold', () => {
  const TIMEOUT = 60;

  it('creates an item the consumer never wrote', () => {
    expect(decideLedgerHold(undefined, ID, NOW, TIMEOUT)).toStrictEqual({ kind: 'create' });
  });

  it('marks a ready item quarantined by this record, on its attempt', () => {
    const item = aLedgerItem({ state: 'ready', attemptId: 'a-3' });
    expect(decideLedgerHold(item, ID, NOW, TIMEOUT)).toStrictEqual({
      kind: 'mark',
      attemptId: 'a-3',
      state: 'ready',
    });
  });

  it('refuses an in-flight attempt younger than the consumer timeout, and marks an older one (its environment died)', () => {
    const young = aLedgerItem({
      state: 'in-flight',
      attemptId: 'a-4',
      lastAttemptAt: '2030-01-01T11:59:01.000Z',
    });
    const old = aLedgerItem({
      state: 'in-flight',
      attemptId: 'a-4',
      lastAttemptAt: '2030-01-01T11:59:00.000Z',
    });

    expect(decideLedgerHold(young, ID, NOW, TIMEOUT)).toStrictEqual({
      kind: 'refuse',
      reason:
        'an attempt of its key started at 2030-01-01T11:59:01.000Z may still be running: take it after 2030-01-01T12:00:01.000Z',
    });
    expect(decideLedgerHold(old, ID, NOW, TIMEOUT)).toStrictEqual({
      kind: 'mark',
      attemptId: 'a-4',
      state: 'in-flight',
    });
  });

  it('keeps an item quarantined by this record silently (a take run again), and says why it keeps any other', () => {
    expect(
      decideLedgerHold(aLedgerItem({ state: 'quarantined', quarantineId: ID }), ID, NOW, TIMEOUT),
    ).toStrictEqual({
      kind: 'keep',
    });
    expect(
      decideLedgerHold(aLedgerItem({ state: 'quarantined', quarantineId: 'q-other' }), ID, NOW, TIMEOUT),
    ).toStrictEqual({
      kind: 'keep',
      note: 'its key is already quarantined by record q-other: this is a copy, discard one of them',
    });
    expect(decideLedgerHold(aLedgerItem({ state: 'completed' }), ID, NOW, TIMEOUT)).toMatchObject({
      kind: 'keep',
      note: expect.stringContaining('its key completed'),
    });
  });
});

describe('the audit', () => {
  it("names a take backstop-take, as pq show and the console print the record's trail", () => {
    expect(BACKSTOP_TAKE_AUDIT).toBe('backstop-take');
  });
});

describe('refuseOverCapacity', () => {
  it('refuses a take that would bring the open records to the capacity, and allows one below it', () => {
    expect(refuseOverCapacity(7, 2, 10)).toBeUndefined();
    expect(refuseOverCapacity(8, 2, 10)).toStrictEqual({
      kind: 'refuse',
      reason:
        'the quarantine holds 8 open record(s) of the 10 at which the consumer stops; taking 2 would reach it: replay or discard some first (pq list)',
    });
  });
});

describe('backstopTake', () => {
  const input = {
    sourceQueueArn: 'arn:aws:sqs:us-east-1:1:src',
    backstopQueueArn: 'arn:aws:sqs:us-east-1:1:dlq',
    now: NOW,
  };

  it('given no ledger item, then an open record from the message alone, dated by its send', () => {
    const take = backstopTake({ ...input, message: aMessage(), key: { key: 'm-1' }, item: undefined });

    expect(take.record).toStrictEqual({
      id: ID,
      reason: 'backstop',
      messageKey: 'm-1',
      messageId: 'm-1',
      generation: 0,
      attemptsStarted: 0,
      attemptsCharged: 0,
      stage: 'not-started',
      firstAttemptAt: '2030-01-01T11:00:00.000Z',
      lastAttemptAt: '2030-01-01T11:00:00.000Z',
      sourceQueueArn: input.sourceQueueArn,
      status: 'open',
      cause: 'unidentified',
      errorSignature: 'backstop',
      createdAt: NOW.toISOString(),
    });
    expect(take.envelope).toMatchObject({
      quarantineId: ID,
      backstopQueueArn: input.backstopQueueArn,
      ledgerState: 'none',
      attributes: aMessage().attributes,
      md5OfBody: 'md5',
    });
  });

  it('given a ledger item and a FIFO group, then its history and the broken order', () => {
    const lastError = { class: 'permanent', name: 'TypeError', message: 'x', stackHead: 'at f' } as const;
    const external = { name: 'payments', status: 'pending', at: '2030-01-01T10:00:00.000Z' } as const;
    const item = aLedgerItem({
      attempts: 4,
      charged: 2,
      generation: 1,
      stage: 'charge',
      lastError,
      external,
    });
    const message = aMessage({ attributes: { MessageGroupId: 'g-1' } });

    const take = backstopTake({ ...input, message, key: { key: 'o-7', fallback: 'x' }, item });

    expect(take.record).toMatchObject({
      messageKey: 'o-7',
      generation: 1,
      attemptsStarted: 4,
      attemptsCharged: 2,
      stage: 'charge',
      firstAttemptAt: item.firstAttemptAt,
      messageGroupId: 'g-1',
      orderBroken: true,
      lastError,
      external,
      // No SentTimestamp: dated now.
      lastAttemptAt: item.lastAttemptAt,
    });
    expect(take.envelope).toMatchObject({ keyFallback: 'x', ledgerState: item.state });
  });
});
