/**
 * A quarantined body in a browser: pretty JSON when it parses, text when it is printable UTF-8
 * (cli/body.ts decides, as for `pq show`: no control character but tab, line feed and CR LF, no
 * bidi control that could make it read as something else), hex otherwise. The inline view is cut
 * (a 1 MiB body would be megabytes of HTML); the whole body is one download away.
 */
import { html } from 'hono/html';
import { describeBody } from '../../cli/body';
import { type Html, recordHref } from './layout';

export const BODY_VIEWS = ['json', 'text', 'hex'] as const;
export type BodyView = (typeof BODY_VIEWS)[number];

/** Characters of text or JSON shown inline. */
export const INLINE_CHARS = 64 * 1024;
/** Bytes shown inline as hex (about 4.5 characters of HTML each). */
export const INLINE_HEX_BYTES = 4 * 1024;

export interface ShownBody {
  readonly bytes: number;
  readonly sha256: string;
  /** The views this body has, best first: hex always. */
  readonly views: readonly BodyView[];
  readonly view: BodyView;
  readonly shown: string;
  /** Part of the body is not shown inline. */
  readonly cut: boolean;
}

export function showBody(bytes: Uint8Array, requested?: string): ShownBody {
  const { text, sha256 } = describeBody(bytes);
  const pretty = text === undefined ? undefined : prettyJson(text);
  const views: BodyView[] = [
    ...(pretty === undefined ? [] : (['json'] as const)),
    ...(text === undefined ? [] : (['text'] as const)),
    'hex',
  ];
  const view = views.find((candidate) => candidate === requested) ?? views[0] ?? 'hex';
  const whole = view === 'json' ? (pretty as string) : view === 'text' ? (text as string) : undefined;
  if (whole !== undefined) {
    const cut = whole.length > INLINE_CHARS;
    return { bytes: bytes.length, sha256, views, view, shown: cut ? cutText(whole) : whole, cut };
  }
  const cut = bytes.length > INLINE_HEX_BYTES;
  return {
    bytes: bytes.length,
    sha256,
    views,
    view,
    shown: hexDump(bytes.subarray(0, INLINE_HEX_BYTES)),
    cut,
  };
}

/** Two-space JSON, or undefined when the text is not JSON. */
function prettyJson(text: string): string | undefined {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return undefined;
  }
}

/** The first INLINE_CHARS characters, not splitting a surrogate pair. */
function cutText(text: string): string {
  const end = /[\ud800-\udbff]/.test(text[INLINE_CHARS - 1] ?? '') ? INLINE_CHARS - 1 : INLINE_CHARS;
  return text.slice(0, end);
}

/** `00000000  7b 22 69 64 ...  {"id...`: offset, 16 bytes, and the printable ASCII among them. */
export function hexDump(bytes: Uint8Array): string {
  const lines: string[] = [];
  for (let offset = 0; offset < bytes.length; offset += 16) {
    const row = [...bytes.subarray(offset, offset + 16)];
    const hex = row.map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
    const ascii = row.map((byte) => (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : '.')).join('');
    lines.push(`${offset.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  ${ascii}`);
  }
  return lines.join('\n');
}

const VIEW_LABEL: Readonly<Record<BodyView, string>> = {
  json: 'Pretty JSON',
  text: 'Text',
  hex: 'Hex',
};

export function bodySection(id: string, body: ShownBody): Html {
  const href = recordHref(id);
  const note =
    body.view === 'json'
      ? 'Pretty-printed: numbers beyond 2^53 and repeated keys may differ from the stored bytes; the text view is exact.'
      : body.view === 'hex'
        ? 'Shown as hex: not printable UTF-8 text (or a view chosen).'
        : 'Exactly as stored.';
  const cutNote = body.cut
    ? html`<p class="notice" role="status">Showing the first ${
        body.view === 'hex'
          ? `${INLINE_HEX_BYTES.toLocaleString('en')} bytes`
          : `${INLINE_CHARS.toLocaleString('en')} characters`
      } of ${body.bytes.toLocaleString('en')} bytes. <a href="${href}/body">Download the whole body</a>.</p>`
    : '';
  return html`<section aria-labelledby="body-title">
  <h2 id="body-title">Body</h2>
  <p>${body.bytes.toLocaleString('en')} bytes, sha256 <code>${body.sha256}</code> ·
    <a href="${href}/body" download>Download the exact bytes</a></p>
  <nav aria-label="Body views"><ul class="tabs">${body.views.map(
    (view) =>
      html`<li><a href="${href}?view=${view}#body-title"${view === body.view ? html` aria-current="true"` : ''}>${VIEW_LABEL[view]}</a></li>`,
  )}</ul></nav>
  <p class="muted">${note}</p>
  ${cutNote}
  <pre class="body" tabindex="0" aria-label="Body, ${VIEW_LABEL[body.view]}">${body.shown}</pre>
</section>`;
}
