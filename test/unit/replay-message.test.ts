/** core/replay-message.ts: the identity a replay runs under and SQS's limits on what it sends (issue 22, defects 3 and 7). */
import { describe, expect, it } from 'vitest';
import { messageBytes, refusalBySqs, replayAttributes, replayKeyOf } from '../../lambdas/core/replay-message';

const record = { messageKey: 'order-7', messageId: 'm-2' };

describe('replayKeyOf (defect 3)', () => {
  it('replays a key-collision record under its own message id, any other under its key', () => {
    expect(replayKeyOf({ ...record, reason: 'key-collision' })).toBe('m-2');
    expect(replayKeyOf({ ...record, reason: 'permanent-error' })).toBe('order-7');
  });
});

describe('refusalBySqs (defect 7)', () => {
  const attributes = (count: number) =>
    Object.fromEntries(
      Array.from({ length: count }, (_, n) => [`a${n}`, { dataType: 'String', stringValue: 'v' }]),
    );

  it('counts body, attribute names, types and values in bytes; binary values decoded', () => {
    expect(
      messageBytes('é', {
        n: { dataType: 'Number', stringValue: '12' },
        b: { dataType: 'Binary', binaryValue: Buffer.from([1, 2, 3]).toString('base64') },
      }),
    ).toBe(2 + (1 + 6 + 2) + (1 + 6 + 3));
  });

  it('takes 10 attributes and a message of exactly the limit, refuses one more of either', () => {
    expect(refusalBySqs('x', attributes(10), 1024)).toBeUndefined();
    expect(refusalBySqs('x', attributes(11), 1024)?.reason).toMatch(
      /^the replay would carry 11 message attributes: SQS allows 10, and the replay adds 2 of its own; nothing was sent/,
    );
    expect(refusalBySqs('x'.repeat(1024), {}, 1024)).toBeUndefined();
    expect(refusalBySqs(`${'é'.repeat(512)}x`, {}, 1024)?.reason).toMatch(
      /^the replay would be 1025 bytes .*more than the queue's 1024; nothing was sent/,
    );
  });

  it("replaces an earlier replay's marks instead of adding a second pair", () => {
    const marked = replayAttributes(
      {
        'pq-replay-of': { dataType: 'String', stringValue: 'q-old' },
        tenant: { dataType: 'String', stringValue: 'a' },
      },
      { replayOf: 'q-new', messageKey: 'k' },
    );

    expect(Object.keys(marked)).toStrictEqual(['tenant', 'pq-replay-of', 'pq-message-key']);
    expect(marked['pq-replay-of']?.stringValue).toBe('q-new');
  });
});
