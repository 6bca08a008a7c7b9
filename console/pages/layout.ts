/**
 * The frame every page shares, and the small pieces pages are made of. Pages are hono `html`
 * templates: every interpolated string is escaped, so a stored `<script>` (in a body, an error
 * message, a cause) is shown as text. Nothing here uses `raw`.
 */
import { html } from 'hono/html';

export type Html = ReturnType<typeof html>;

export type Section = 'overview' | 'groups' | 'records' | 'backstop';

export interface Frame {
  readonly title: string;
  readonly functionName: string;
  /** The navigation entry this page belongs to. */
  readonly section?: Section;
}

const NAV: readonly (readonly [Section, string, string])[] = [
  ['overview', '/', 'Overview'],
  ['groups', '/groups', 'Failure groups'],
  ['records', '/records', 'Records'],
  ['backstop', '/backstop', 'Backstop'],
];

export function page(frame: Frame, content: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · pq console</title>
<link rel="stylesheet" href="/assets/console.css">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
  <p class="brand">pq console <span class="muted">${frame.functionName}</span></p>
  <nav aria-label="Sections">
    <ul>
      ${NAV.map(
        ([section, href, label]) =>
          html`<li><a href="${href}"${section === frame.section ? html` aria-current="page"` : ''}>${label}</a></li>`,
      )}
    </ul>
  </nav>
</header>
<main id="main" tabindex="-1">
<h1>${frame.title}</h1>
${content}
</main>
</body>
</html>`;
}

/** An ISO time, readable, with how long ago it was, and the exact value on hover. */
export function when(iso: string | undefined, now: Date): Html {
  if (!iso) return html`<span class="muted">-</span>`;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return html`${iso}`;
  // The exact value on hover: the time as stored, milliseconds included.
  return html`<time datetime="${iso}" title="${iso}">${at.toISOString().replace('T', ' ').slice(0, 19)} UTC</time>
    <span class="muted">(${ago(now.getTime() - at.getTime())})</span>`;
}

/** `3 min ago`, `2 h ago`, `in 5 s` for a time ahead of this machine's clock. */
export function ago(ms: number): string {
  const abs = Math.abs(ms);
  const [value, unit] =
    abs < 60_000
      ? [abs / 1000, 's']
      : abs < 3_600_000
        ? [abs / 60_000, 'min']
        : abs < 86_400_000
          ? [abs / 3_600_000, 'h']
          : [abs / 86_400_000, 'd'];
  const text = `${Math.floor(value)} ${unit}`;
  return ms < 0 ? `in ${text}` : `${text} ago`;
}

export function recordHref(id: string): string {
  return `/records/${encodeURIComponent(id)}`;
}

export function recordLink(id: string): Html {
  return html`<a href="${recordHref(id)}"><code class="id">${id}</code></a>`;
}

export function statusBadge(status: string): Html {
  return html`<span class="badge status-${status}">${status}</span>`;
}

/** `label: value` pairs as a description list. */
export function facts(pairs: readonly (readonly [string, unknown])[]): Html {
  return html`<dl class="facts">${pairs.map(
    ([label, value]) => html`<dt>${label}</dt><dd>${value ?? html`<span class="muted">-</span>`}</dd>`,
  )}</dl>`;
}

/** A table with a caption; an empty one says so. */
export function table(
  caption: string,
  headers: readonly string[],
  rows: readonly (readonly unknown[])[],
  empty = 'None.',
): Html {
  if (rows.length === 0) return html`<p class="empty">${caption}: ${empty}</p>`;
  return html`<table>
    <caption>${caption}</caption>
    <thead><tr>${headers.map((header) => html`<th scope="col">${header}</th>`)}</tr></thead>
    <tbody>${rows.map((row) => html`<tr>${row.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody>
  </table>`;
}
