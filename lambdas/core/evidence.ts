/**
 * Rule 3: the last error as evidence an operator can read, and a signature that groups
 * quarantine records failing the same way (ServicePulse-style failure groups).
 */
import { field, stringField } from './inspect';
import type { ErrorClass, ErrorEvidence } from './types';

/** The message is stored on the ledger item and the quarantine record: 400 KB items, many fields. */
export const MAX_MESSAGE_BYTES = 1024;
const MAX_STACK_BYTES = 2048;
const MAX_SIGNATURE_MESSAGE_CHARS = 200;
const ELLIPSIS = '…';

/** Never throws, whatever was thrown: strings, null, Proxies, objects with throwing getters. */
export function errorEvidence(error: unknown, errorClass: ErrorClass, maxStackLines = 5): ErrorEvidence {
  return {
    class: errorClass,
    name: errorName(error),
    message: truncateUtf8(errorMessage(error), MAX_MESSAGE_BYTES),
    stackHead: truncateUtf8(stackHead(error, maxStackLines), MAX_STACK_BYTES),
  };
}

/**
 * A stable grouping key: class, name, the first stack frame without line and column numbers
 * (they move with every build), and the message's first line with data masked: quoted text,
 * ids and numbers ("order 1234 not found" and "order 987 not found" are one group; so are
 * two JSON.parse failures, whose messages quote a piece of each body).
 */
export function errorSignature(evidence: ErrorEvidence): string {
  const frame = (evidence.stackHead.split('\n')[0] ?? '').replace(/:\d+(?::\d+)?(?=\)|$)/g, '');
  const message = (evidence.message.split('\n')[0] ?? '')
    .replace(/'[^']*'/g, "'#'")
    .replace(/".*"/g, '"#"')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '#')
    .replace(/\d+/g, '#')
    .slice(0, MAX_SIGNATURE_MESSAGE_CHARS);
  return [evidence.class, evidence.name, frame, message].join(' | ');
}

/**
 * Cuts `text` to at most `maxBytes` of UTF-8, on a character boundary, marking the cut with '…'.
 * Sizes are bytes because DynamoDB item limits are.
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (utf8Length(text) <= maxBytes) {
    return text;
  }
  const budget = maxBytes - utf8Length(ELLIPSIS);
  let used = 0;
  let kept = '';
  for (const char of text) {
    used += utf8Length(char);
    if (used > budget) {
      break;
    }
    kept += char;
  }
  return kept + ELLIPSIS;
}

function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function errorName(error: unknown): string {
  const name = stringField(error, 'name');
  if (name !== '') {
    return name;
  }
  return error instanceof Error ? 'Error' : 'NonError';
}

function errorMessage(error: unknown): string {
  if (typeof error === 'string') {
    return error;
  }
  const message = field(error, 'message');
  if (typeof message === 'string') {
    return message;
  }
  return describeValue(error);
}

/** A thrown non-Error, described for a person: JSON for plain data, its type otherwise. */
function describeValue(value: unknown): string {
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) {
      return json;
    }
  } catch {
    // circular or a throwing toJSON: fall back to the type below
  }
  try {
    return typeof value === 'object' && value !== null
      ? Object.prototype.toString.call(value)
      : String(value);
  } catch {
    return typeof value;
  }
}

function stackHead(error: unknown, maxStackLines: number): string {
  const stack = stringField(error, 'stack');
  const limit = Math.max(0, Math.floor(maxStackLines));
  // Only frames: the header repeats the message, which may span several lines.
  return stack
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at '))
    .slice(0, limit)
    .join('\n');
}
