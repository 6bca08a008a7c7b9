/**
 * Human-readable output: aligned tables and key/value blocks. Everything shown comes from data
 * other code or people wrote (error messages, message keys, causes, reasons, attribute values),
 * so every character a terminal would act on instead of showing is shown as an escape: a stored
 * escape sequence must not reprogram the operator's terminal, and a bidi override must not make
 * text read as something else (CVE-2021-42574). run.ts passes everything it prints through
 * `terminalText` or `jsonText`; `printable` also keeps a cell on one line.
 */

export interface Output {
  write(text: string): unknown;
}

/**
 * C0 controls, DEL, C1 controls (U+009B is CSI on its own), and the Unicode bidi controls (ALM,
 * LRM, RLM, the embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069). A backslash
 * stays as it is: an escape can be mimicked by stored text, but that only shows, it does nothing.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const TERMINAL_ACTIVE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The one escaping rule: `\n`, `\t`, `\r` by name, other controls `\xNN`, bidi controls `\uNNNN`. */
function escapeActive(text: string, keepLayout: boolean): string {
  return text.replace(TERMINAL_ACTIVE, (char, offset: number) => {
    if (keepLayout && (char === '\n' || char === '\t' || (char === '\r' && text[offset + 1] === '\n'))) {
      return char;
    }
    if (char === '\n') return '\\n';
    if (char === '\t') return '\\t';
    if (char === '\r') return '\\r';
    const code = char.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** One cell or field: everything escaped, tabs and newlines too, so the cell stays on its line. */
export function printable(value: unknown): string {
  return escapeActive(value === undefined || value === null ? '-' : String(value), false);
}

/**
 * Text as printed: line feeds, tabs and CR LF keep their meaning (they only lay text out); a lone
 * CR, which returns to the start of the line and lets what follows hide what came before, does not.
 */
export function terminalText(text: string): string {
  return escapeActive(text, true);
}

/**
 * `--json`: exact JSON for scripts, safe on a terminal too. JSON.stringify escapes the C0
 * controls in strings, leaving only its own line feeds between values; the other active
 * characters can occur only inside strings, where `\uNNNN` is the same character, so the
 * document parses to exactly the same values.
 */
export function jsonText(value: unknown): string {
  const json = JSON.stringify(value, null, 2).replace(TERMINAL_ACTIVE, (char) =>
    char === '\n' ? char : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `${json}\n`;
}

/** Columns aligned on the widest cell; an empty table says so instead of printing only headers. */
export function table(
  headers: readonly string[],
  rows: readonly (readonly unknown[])[],
  empty = '(none)',
): string {
  if (rows.length === 0) return `${empty}\n`;
  const cells = [headers, ...rows].map((row) => row.map(printable));
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  return cells
    .map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
        .join('  '),
    )
    .map((line) => `${line.trimEnd()}\n`)
    .join('');
}

/** `label:  value` lines, labels aligned. */
export function fields(pairs: readonly (readonly [string, unknown])[]): string {
  const width = Math.max(...pairs.map(([label]) => label.length)) + 1;
  return pairs.map(([label, value]) => `${`${label}:`.padEnd(width)}  ${printable(value)}\n`).join('');
}

/** A titled section, separated from the previous one by a blank line. */
export function section(title: string, body: string): string {
  return `\n${title}\n${body}`;
}

/** Multi-line text (a stack, a body) indented, its lines otherwise as they are but printable. */
export function block(text: string, indent = '  '): string {
  return text
    .split('\n')
    .map((line) => `${indent}${printable(line)}\n`)
    .join('');
}
