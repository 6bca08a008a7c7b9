/** The console's body views: JSON, text or hex, and the cut that keeps a 1 MiB body light. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hexDump, INLINE_CHARS, INLINE_HEX_BYTES, showBody } from '../../console/pages/body';

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('showBody', () => {
  it('given a JSON body, then it is pretty-printed, and text and hex are offered too', () => {
    // Prepare
    const bytes = Buffer.from('{"order":12,"lines":[{"sku":"A-1"}]}');

    // Act
    const shown = showBody(bytes);

    // Assess
    expect(shown).toStrictEqual({
      bytes: bytes.length,
      sha256: sha(bytes),
      views: ['json', 'text', 'hex'],
      view: 'json',
      shown: '{\n  "order": 12,\n  "lines": [\n    {\n      "sku": "A-1"\n    }\n  ]\n}',
      cut: false,
    });
  });

  it('given text that is not JSON, then it is shown exactly, with no JSON view', () => {
    const bytes = Buffer.from('order 4712 <script>alert(1)</script>\r\nline two');

    const shown = showBody(bytes);

    expect(shown.views).toStrictEqual(['text', 'hex']);
    expect(shown.view).toBe('text');
    expect(shown.shown).toBe('order 4712 <script>alert(1)</script>\r\nline two');
  });

  it.each([
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
    ['a terminal escape', Buffer.from('\u001b[2Jcleared')],
    ['a bidi override that makes text read backwards', Buffer.from('invoice \u202egnp.exe')],
    ['a lone carriage return that hides what came before', Buffer.from('paid\rnot paid')],
  ])('given %s, then only hex is offered', (_name, bytes) => {
    const shown = showBody(bytes);

    expect(shown.views).toStrictEqual(['hex']);
    expect(shown.view).toBe('hex');
    expect(shown.shown).toBe(hexDump(bytes));
  });

  it('given a requested view the body has, then that view; one it lacks, then the best it has', () => {
    const bytes = Buffer.from('{"a":1}');

    expect(showBody(bytes, 'hex').view).toBe('hex');
    expect(showBody(bytes, 'text')).toMatchObject({ view: 'text', shown: '{"a":1}' });
    expect(showBody(Buffer.from('plain'), 'json').view).toBe('text');
    expect(showBody(bytes, '<script>').view).toBe('json');
  });

  it('given a 1 MiB JSON body, then the inline view is cut to its first characters and says so', () => {
    const bytes = Buffer.from(JSON.stringify({ id: 'BIG', padding: 'x'.repeat(1_048_576 - 25) }));

    const shown = showBody(bytes);

    expect(bytes.length).toBe(1_048_576);
    expect(shown.view).toBe('json');
    expect(shown.cut).toBe(true);
    expect(shown.shown.length).toBe(INLINE_CHARS);
    expect(shown.shown.startsWith('{\n  "id": "BIG",\n  "padding": "xxx')).toBe(true);
  });

  it('given a cut that would split a surrogate pair, then the pair is left out whole', () => {
    const bytes = Buffer.from(`${'a'.repeat(INLINE_CHARS - 1)}😀 and more`);

    const shown = showBody(bytes, 'text');

    expect(shown.shown).toBe('a'.repeat(INLINE_CHARS - 1));
  });

  it('given a large binary body, then hex shows its first bytes only', () => {
    const bytes = Buffer.alloc(INLINE_HEX_BYTES * 3, 0xff);

    const shown = showBody(bytes);

    expect(shown).toMatchObject({ view: 'hex', cut: true });
    expect(shown.shown.split('\n')).toHaveLength(INLINE_HEX_BYTES / 16);
  });
});

describe('hexDump', () => {
  it('given bytes, then offset, 16 bytes in hex and their printable ASCII per line', () => {
    expect(hexDump(Buffer.from('{"id":1}\n\u0000abcdefghijklmn'))).toBe(
      '00000000  7b 22 69 64 22 3a 31 7d 0a 00 61 62 63 64 65 66  {"id":1}..abcdef\n' +
        '00000010  67 68 69 6a 6b 6c 6d 6e                          ghijklmn',
    );
  });
});
