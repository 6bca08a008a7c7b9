/**
 * A quarantined body as bytes: shown when it is text a terminal can print as it is, otherwise
 * described by size and hash (the bytes go to a file with --body-out).
 */
import { createHash } from 'node:crypto';
import { terminalText } from './output';

export interface BodyDescription {
  readonly bytes: number;
  readonly sha256: string;
  /** Present only when the bytes are printable UTF-8 text. */
  readonly text?: string;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The bytes as a string that encodes back to exactly them, or undefined. SQS bodies are Unicode
 * text, so a replay can carry only bodies that pass this.
 */
export function exactUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * A body is printed only if the terminal would show it as it is (output.ts: no control character
 * but tab, line feed and CR LF, no bidi control): anything else could move the cursor, recolour
 * the terminal or hide part of the body, and escaping it would no longer show the exact body.
 */
export function describeBody(bytes: Uint8Array): BodyDescription {
  const described = { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  const text = exactUtf8(bytes);
  return text === undefined || terminalText(text) !== text ? described : { ...described, text };
}

/** The body between markers, as it is (its size and hash above tell whether it ends in a newline). */
export function bodyText(
  body: BodyDescription,
  bodyOut: string | undefined,
  howToGetIt = '--body-out FILE writes its bytes',
): string {
  const written = bodyOut === undefined ? '' : `(exact bytes written to ${bodyOut})\n`;
  if (body.text === undefined) {
    return `${written}(not printed: not plain UTF-8 text${bodyOut ? '' : `; ${howToGetIt}`})\n`;
  }
  return `${written}-----BEGIN BODY-----\n${body.text}${body.text.endsWith('\n') ? '' : '\n'}-----END BODY-----\n`;
}

/** A Kafka value's section title: its size and hash, and how it is printed. */
export function bodyLine(body: BodyDescription): string {
  const how = body.text === undefined ? 'printed as base64 (not printable UTF-8 text)' : 'printed as text';
  return `${body.bytes} bytes, sha256 ${body.sha256}, ${how}`;
}

/** Bytes as a person can read them: the text when `describeBody` would print it, else base64. */
export type BytesText = { readonly text: string } | { readonly base64: string };

export function bytesText(bytes: Uint8Array): BytesText {
  const { text } = describeBody(bytes);
  return text === undefined ? { base64: Buffer.from(bytes).toString('base64') } : { text };
}

/** One line: the text quoted (escaped on output), or the base64 said to be base64. */
export function bytesLine(bytes: BytesText): string {
  return 'text' in bytes ? JSON.stringify(bytes.text) : `(base64) ${bytes.base64}`;
}
