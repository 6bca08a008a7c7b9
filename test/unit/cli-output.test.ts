/**
 * The CLI's output layer: a stored string (an error message, a message key, an operator's
 * reason) never reaches the terminal as a control character or a bidi override, in text or JSON.
 */
import { describe, expect, it } from 'vitest';
import { describeBody } from '../../cli/body';
import { jsonText, printable, terminalText } from '../../cli/output';

// ESC sequences (clear screen, set title), BEL, a C1 CSI, DEL, and the bidi controls that reorder
// what is shown (Trojan Source): each one a terminal acts on instead of showing.
const HOSTILE = 'a\u001b[2J\u001b]0;pwned\u0007b\u009b31m\u007fc\u202egnp.exe\u2066d\u200fe\u061c';
const ESCAPED = 'a\\x1b[2J\\x1b]0;pwned\\x07b\\x9b31m\\x7fc\\u202egnp.exe\\u2066d\\u200fe\\u061c';

describe('printable (one cell or field)', () => {
  it('shows control characters and bidi controls as escapes', () => {
    expect(printable(HOSTILE)).toBe(ESCAPED);
  });

  it('keeps a cell on one line: tab, line feed and carriage return are escaped too', () => {
    expect(printable('a\tb\r\nc')).toBe('a\\tb\\r\\nc');
  });

  it('shows a missing value as -', () => {
    expect(printable(undefined)).toBe('-');
  });
});

describe('terminalText (everything printed in text mode)', () => {
  it('escapes what printable escapes, but keeps lines, tabs and CR LF', () => {
    expect(terminalText(`${HOSTILE}\n\tx\r\ny`)).toBe(`${ESCAPED}\n\tx\r\ny`);
  });

  it('escapes a carriage return that could overwrite the line it ends', () => {
    expect(terminalText('rm -rf /\rls')).toBe('rm -rf /\\rls');
  });
});

describe('jsonText (--json)', () => {
  it('is JSON that parses back to exactly the stored strings, with nothing a terminal acts on', () => {
    const value = { message: HOSTILE, nested: [`${HOSTILE}\n`] };

    const text = jsonText(value);

    expect(JSON.parse(text)).toStrictEqual(value);
    expect(text).toContain('a\\u001b[2J');
    expect(text).toContain('b\\u009b31m\\u007fc\\u202egnp.exe\\u2066d\\u200fe\\u061c');
    for (const char of '\u001b\u0007\u009b\u007f\u202e\u2066\u200f\u061c') expect(text).not.toContain(char);
    expect(text.endsWith('}\n')).toBe(true);
  });
});

describe('describeBody', () => {
  it('prints a text body with tabs and CR LF as it is', () => {
    expect(describeBody(Buffer.from('a\tb\r\nc')).text).toBe('a\tb\r\nc');
  });

  it.each([
    ['an escape sequence', '\u001b[2J'],
    ['a C1 control', '\u009b31m'],
    ['a bidi override', 'invoice \u202efdp.exe'],
    ['a lone carriage return', 'a\rb'],
  ])('describes, does not print, a body with %s', (_name, text) => {
    expect(describeBody(Buffer.from(text))).not.toHaveProperty('text');
  });
});
