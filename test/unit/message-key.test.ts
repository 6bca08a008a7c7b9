import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type MessageKeyResult, messageKey } from '../../lambdas/core/message-key';

const messageId = '059f36b4-87a3-44ab-83d2-661975830a7d';

describe('messageKey of an operator replay', () => {
  it.each<[string, string | undefined, string | undefined, string]>([
    ['the original key wins over the new messageId', 'order-17', undefined, 'order-17'],
    ['the original key wins over the key path', 'order-17', 'order.id', 'order-17'],
    ['an empty original key is ignored', '', undefined, messageId],
    ['no replay: the messageId', undefined, undefined, messageId],
  ])('%s', (_name, replayOfKey, keyPath, expected) => {
    const result = messageKey({ messageId, body: '{"order":{"id":"other"}}', replayOfKey }, keyPath);
    expect(result).toStrictEqual({ ok: true, key: expected });
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
