import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type MessageKeyResult,
  messageKey,
  type ReplayKeyResult,
  replayKey,
} from '../../lambdas/core/message-key';

const messageId = '059f36b4-87a3-44ab-83d2-661975830a7d';

describe('replayKey: the attributes of an operator replay, checked for form only', () => {
  it.each<[string, { messageKey?: string; replayOf?: string }, ReplayKeyResult | undefined]>([
    ['no replay attributes: not a replay', {}, undefined],
    [
      'both: the original key and the record',
      { messageKey: 'order-17', replayOf: 'q-1' },
      { ok: true, key: 'order-17', replayOf: 'q-1' },
    ],
    [
      'a key without the record it replays',
      { messageKey: 'order-17' },
      { ok: false, reason: 'a replay needs both pq-message-key and pq-replay-of' },
    ],
    [
      'a record without the key',
      { replayOf: 'q-1' },
      { ok: false, reason: 'a replay needs both pq-message-key and pq-replay-of' },
    ],
    ['an empty key', { messageKey: '', replayOf: 'q-1' }, { ok: false, reason: 'pq-message-key is empty' }],
    [
      'a key over 2048 bytes',
      { messageKey: 'é'.repeat(1025), replayOf: 'q-1' },
      { ok: false, reason: 'pq-message-key is longer than 2048 bytes' },
    ],
  ])('%s', (_name, attributes, expected) => {
    expect(replayKey(attributes)).toStrictEqual(expected);
  });
});

describe('messageKey and numbers JSON cannot carry exactly', () => {
  it.each([
    ['an integer beyond 2^53', '{"order":{"id":12345678901234567891}}'],
    ['a long decimal', '{"order":{"id":0.30000000000000004441}}'],
  ])('given %s, then the key is not taken from it', (_name, body) => {
    expect(messageKey({ messageId, body }, 'order.id')).toStrictEqual({
      ok: false,
      reason: '"order.id" is a number JSON cannot carry exactly (not a safe integer)',
    });
  });
});

describe('messageKey', () => {
  it.each<[string, string, string | undefined, MessageKeyResult]>([
    ['no key path: the messageId', 'not even JSON', undefined, { ok: true, key: messageId }],
    ['a string at the path', '{"order":{"id":"ord-9"}}', 'order.id', { ok: true, key: 'ord-9' }],
    ['a number at the path', '{"order":{"id":42}}', 'order.id', { ok: true, key: '42' }],
    ['an array index in the path', '{"items":[{"sku":"A-1"}]}', 'items.0.sku', { ok: true, key: 'A-1' }],
    ['a top-level key', '{"id":"x"}', 'id', { ok: true, key: 'x' }],
    ['a body that is not JSON', 'order=9', 'order.id', { ok: false, reason: 'the body is not JSON' }],
    ['an empty body', '', 'order.id', { ok: false, reason: 'the body is not JSON' }],
    ['a missing path', '{"order":{}}', 'order.id', { ok: false, reason: 'the body has no "order.id"' }],
    ['a null on the way', '{"order":null}', 'order.id', { ok: false, reason: 'the body has no "order.id"' }],
    [
      'a string on the way',
      '{"order":"ord-9"}',
      'order.id',
      { ok: false, reason: 'the body has no "order.id"' },
    ],
    [
      'an inherited property name',
      '{"order":{}}',
      'order.constructor',
      { ok: false, reason: 'the body has no "order.constructor"' },
    ],
    [
      'an object at the path',
      '{"order":{"id":{"v":1}}}',
      'order.id',
      { ok: false, reason: '"order.id" is not a non-empty string or number' },
    ],
    [
      'a boolean at the path',
      '{"order":{"id":true}}',
      'order.id',
      { ok: false, reason: '"order.id" is not a non-empty string or number' },
    ],
    [
      'an empty string at the path',
      '{"order":{"id":""}}',
      'order.id',
      { ok: false, reason: '"order.id" is not a non-empty string or number' },
    ],
    [
      'a key longer than DynamoDB allows',
      JSON.stringify({ order: { id: 'x'.repeat(2049) } }),
      'order.id',
      { ok: false, reason: '"order.id" is longer than 2048 bytes' },
    ],
  ])('given %s, then the result is as stated', (_name, body, keyPath, expected) => {
    expect(messageKey({ messageId, body }, keyPath)).toStrictEqual(expected);
  });

  it('given a failure, then the reason never quotes the body', () => {
    const secret = 'card-4111111111111111';

    const result = messageKey({ messageId, body: JSON.stringify({ order: { id: { secret } } }) }, 'order.id');

    expect(JSON.stringify(result)).not.toContain(secret);
  });

  it('never throws, whatever the body', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (body) => {
        const result = messageKey({ messageId, body }, 'order.id');
        expect(typeof result.ok).toBe('boolean');
      }),
    );
  });
});
