import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { errorEvidence, errorSignature, MAX_MESSAGE_BYTES, truncateUtf8 } from '../../lambdas/core/evidence';
import type { ErrorEvidence } from '../../lambdas/core/types';
import { errorWithStack, hostileValue } from './fixtures';

const frames = [
  'at parseOrder (/var/task/index.js:120:15)',
  'at process (/var/task/index.js:88:3)',
  'at run (/var/task/index.js:40:9)',
  'at async Promise.all (index 0)',
  'at async handler (/var/task/index.js:12:5)',
  'at async next (/var/task/index.js:5:1)',
];

describe('errorEvidence', () => {
  it('given an Error, then it keeps class, name, message and the first five frames', () => {
    // Prepare
    const error = errorWithStack('TypeError', 'amount is undefined', frames);

    // Act
    const evidence = errorEvidence(error, 'unknown');

    // Assess
    expect(evidence).toStrictEqual({
      class: 'unknown',
      name: 'TypeError',
      message: 'amount is undefined',
      stackHead: frames.slice(0, 5).join('\n'),
    });
  });

  it('given a multi-line message, then the stack head holds frames only, never message lines', () => {
    const error = errorWithStack('Error', 'line one\nline two', frames.slice(0, 1));

    expect(errorEvidence(error, 'unknown', 3).stackHead).toBe(frames[0]);
  });

  it.each([
    [0, ''],
    [2, frames.slice(0, 2).join('\n')],
    [-1, ''],
  ])('given maxStackLines %d, then the stack head has that many frames', (maxStackLines, expected) => {
    const error = errorWithStack('Error', 'x', frames);

    expect(errorEvidence(error, 'unknown', maxStackLines).stackHead).toBe(expected);
  });

  const circular: Record<string, unknown> = { id: 1 };
  circular.self = circular;

  it.each<[string, unknown, Omit<ErrorEvidence, 'class' | 'stackHead'>]>([
    ['a string', 'payment declined', { name: 'NonError', message: 'payment declined' }],
    ['null', null, { name: 'NonError', message: 'null' }],
    ['undefined', undefined, { name: 'NonError', message: 'undefined' }],
    ['a number', 42, { name: 'NonError', message: '42' }],
    ['a bigint', 10n, { name: 'NonError', message: '10' }],
    ['a symbol', Symbol('why'), { name: 'NonError', message: 'Symbol(why)' }],
    [
      'plain data',
      { code: 'E1', retry: false },
      { name: 'NonError', message: '{"code":"E1","retry":false}' },
    ],
    ['an error-like object', { name: 'ApiError', message: 'quota' }, { name: 'ApiError', message: 'quota' }],
    ['a circular object', circular, { name: 'NonError', message: '[object Object]' }],
    ['a null-prototype object', Object.create(null), { name: 'NonError', message: '{}' }],
    ['an Error without a name', Object.assign(new Error('m'), { name: '' }), { name: 'Error', message: 'm' }],
  ])('given %s was thrown, then evidence describes it', (_name, thrown, expected) => {
    expect(errorEvidence(thrown, 'unknown')).toStrictEqual({
      class: 'unknown',
      stackHead: thrown instanceof Error ? expect.any(String) : '',
      ...expected,
    });
  });

  it('given a value whose every read throws, then evidence is still produced', () => {
    expect(errorEvidence(hostileValue(), 'unknown')).toStrictEqual({
      class: 'unknown',
      name: 'NonError',
      message: 'object',
      stackHead: '',
    });
  });

  it('given a message over 1 KB of multi-byte text, then it is cut on a character boundary', () => {
    // Prepare
    const error = new Error('é'.repeat(2000));

    // Act
    const { message } = errorEvidence(error, 'unknown');

    // Assess
    expect(Buffer.byteLength(message)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    expect(message).toBe(`${'é'.repeat(510)}…`);
  });

  it('never throws and never stores more than 1 KB of message, whatever is thrown', () => {
    fc.assert(
      fc.property(
        fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true }),
        (thrown) => {
          const evidence = errorEvidence(thrown, 'unknown');
          expect(Buffer.byteLength(evidence.message)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
        },
      ),
    );
  });
});

describe('truncateUtf8', () => {
  it.each([
    ['short text is kept', 'abc', 10, 'abc'],
    ['exactly at the limit is kept', 'abcd', 4, 'abcd'],
    ['ASCII is cut with a marker', 'abcdefgh', 6, 'abc…'],
    ['an emoji is never split', '😀😀😀', 8, '😀…'],
  ])('%s', (_name, text, maxBytes, expected) => {
    expect(truncateUtf8(text, maxBytes)).toBe(expected);
  });

  it('always fits the byte budget', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.integer({ min: 4, max: 64 }), (text, maxBytes) => {
        expect(Buffer.byteLength(truncateUtf8(text, maxBytes))).toBeLessThanOrEqual(maxBytes);
      }),
    );
  });
});

describe('errorSignature', () => {
  const signatureOf = (name: string, message: string, frame: string) =>
    errorSignature(errorEvidence(errorWithStack(name, message, [frame]), 'unknown'));

  it('given an error, then the signature is class, name, frame without position and masked message', () => {
    expect(signatureOf('NotFound', 'order 1234 not found', 'at load (/var/task/index.js:12:34)')).toBe(
      'unknown | NotFound | at load (/var/task/index.js) | order # not found',
    );
  });

  it.each([
    ['different numbers in the message', 'order 1234 not found', 'order 98 not found'],
    [
      'different UUIDs in the message',
      'customer 059f36b4-87a3-44ab-83d2-661975830a7d missing',
      'customer f47ac10b-58cc-4372-a567-0e02b2c3d479 missing',
    ],
    [
      'different bodies quoted by JSON.parse',
      'Unexpected token \'}\', "{"a":}" is not valid JSON',
      'Unexpected token \']\', "[1,]" is not valid JSON',
    ],
  ])('given %s, then both errors share one group', (_name, first, second) => {
    expect(signatureOf('SyntaxError', first, 'at JSON.parse (<anonymous>)')).toBe(
      signatureOf('SyntaxError', second, 'at JSON.parse (<anonymous>)'),
    );
  });

  it('given the same failure from a rebuilt bundle, then line and column changes do not split the group', () => {
    expect(signatureOf('TypeError', 'x', 'at f (/var/task/index.js:1:2)')).toBe(
      signatureOf('TypeError', 'x', 'at f (/var/task/index.js:900:41)'),
    );
  });

  type Failure = [name: string, message: string, frame: string];

  it.each<[string, Failure, Failure]>([
    ['names', ['TypeError', 'x', 'at f (a.js:1:1)'], ['RangeError', 'x', 'at f (a.js:1:1)']],
    ['functions', ['TypeError', 'x', 'at f (a.js:1:1)'], ['TypeError', 'x', 'at g (a.js:1:1)']],
    [
      'messages',
      ['TypeError', 'x is undefined', 'at f (a.js:1:1)'],
      ['TypeError', 'y is null', 'at f (a.js:1:1)'],
    ],
  ])('given different %s, then the groups differ', (_name, first, second) => {
    expect(signatureOf(...first)).not.toBe(signatureOf(...second));
  });
});
