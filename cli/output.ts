/**
 * Human-readable output: aligned tables and key/value blocks. Everything shown comes from data
 * other code wrote (error messages, causes, attribute values), so control characters are shown
 * escaped: a stored escape sequence must not reprogram the operator's terminal.
 */

export interface Output {
  write(text: string): unknown;
}

/** `\x1b` and friends become visible escapes; tabs and newlines in one cell become `\t`, `\n`. */
export function printable(value: unknown): string {
  const text = value === undefined || value === null ? '-' : String(value);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (char) => {
    if (char === '\n') return '\\n';
    if (char === '\t') return '\\t';
    if (char === '\r') return '\\r';
    return `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
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
