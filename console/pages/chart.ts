/**
 * Quarantines over time by reason: a stacked bar per hour (the last day) or per day (the last two
 * weeks), drawn on the server as inline SVG, with the same numbers as a table for screen readers
 * and for anyone who wants to read them exactly.
 */
import { html } from 'hono/html';
import { QUARANTINE_REASONS } from '../../contract/quarantine';
import type { Html } from './layout';

export const CHART_SPANS = {
  '24h': { buckets: 24, bucketMs: 3_600_000, label: 'the last 24 hours, per hour' },
  '14d': { buckets: 14, bucketMs: 86_400_000, label: 'the last 14 days, per day (UTC)' },
} as const;
export type ChartSpan = keyof typeof CHART_SPANS;

export interface ChartBucket {
  /** ISO-8601 start of the bucket. */
  readonly start: string;
  readonly counts: Readonly<Record<string, number>>;
  readonly total: number;
}

/** Where the chart starts: the first bucket's start. */
export function chartStart(span: ChartSpan, now: Date): Date {
  const { buckets, bucketMs } = CHART_SPANS[span];
  const end = Math.floor(now.getTime() / bucketMs) * bucketMs + bucketMs;
  return new Date(end - buckets * bucketMs);
}

export function bucketize(
  records: readonly { readonly createdAt: string; readonly reason: string }[],
  span: ChartSpan,
  now: Date,
): ChartBucket[] {
  const { buckets, bucketMs } = CHART_SPANS[span];
  const start = chartStart(span, now).getTime();
  const counts = Array.from({ length: buckets }, () => new Map<string, number>());
  for (const record of records) {
    const index = Math.floor((Date.parse(record.createdAt) - start) / bucketMs);
    const bucket = counts[index];
    if (bucket) bucket.set(record.reason, (bucket.get(record.reason) ?? 0) + 1);
  }
  return counts.map((bucket, index) => ({
    start: new Date(start + index * bucketMs).toISOString(),
    counts: Object.fromEntries(bucket),
    total: [...bucket.values()].reduce((sum, count) => sum + count, 0),
  }));
}

/** One colour per reason, distinguishable and with enough contrast on white. */
const COLOURS: Readonly<Record<string, string>> = {
  'crash-limit': '#b3261e',
  'permanent-error': '#6a4c93',
  'unknown-error-repeated': '#8a6d00',
  'transient-retries-exhausted': '#1d6fa5',
  'outcome-unknown': '#c2410c',
  'key-collision': '#2e7d32',
  'receive-limit': '#455a64',
};

const WIDTH = 720;
const HEIGHT = 180;
const LEFT = 36;
const BOTTOM = 24;

export function chart(buckets: readonly ChartBucket[], span: ChartSpan): Html {
  const reasons = QUARANTINE_REASONS.filter((reason) => buckets.some((bucket) => bucket.counts[reason]));
  const total = buckets.reduce((sum, bucket) => sum + bucket.total, 0);
  const max = Math.max(1, ...buckets.map((bucket) => bucket.total));
  const slot = (WIDTH - LEFT) / buckets.length;
  const scale = (HEIGHT - BOTTOM - 8) / max;
  const label = (start: string) => (span === '24h' ? start.slice(11, 16) : start.slice(5, 10));
  const summary = `${total} quarantined in ${CHART_SPANS[span].label}${
    reasons.length ? `: ${reasons.map((reason) => `${sum(buckets, reason)} ${reason}`).join(', ')}` : ''
  }`;
  const bars = buckets.map((bucket, index) => {
    let y = HEIGHT - BOTTOM;
    const x = LEFT + index * slot + slot * 0.15;
    return reasons.map((reason) => {
      const count = bucket.counts[reason] ?? 0;
      if (count === 0) return '';
      const height = count * scale;
      y -= height;
      return html`<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${height.toFixed(1)}" fill="${COLOURS[reason] ?? '#333'}"><title>${label(bucket.start)}: ${count} ${reason}</title></rect>`;
    });
  });
  const ticks = buckets.map((bucket, index) =>
    index % Math.ceil(buckets.length / 12) === 0
      ? html`<text x="${(LEFT + index * slot + slot / 2).toFixed(1)}" y="${HEIGHT - 6}" text-anchor="middle">${label(bucket.start)}</text>`
      : '',
  );
  return html`<figure class="chart">
  <svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="chart-title">
    <title id="chart-title">${summary}</title>
    <line x1="${LEFT}" y1="${HEIGHT - BOTTOM}" x2="${WIDTH}" y2="${HEIGHT - BOTTOM}" stroke="#888"/>
    <text x="${LEFT - 6}" y="14" text-anchor="end">${max}</text>
    <text x="${LEFT - 6}" y="${HEIGHT - BOTTOM}" text-anchor="end">0</text>
    ${bars}
    ${ticks}
  </svg>
  <figcaption>${summary}.
    ${reasons.map((reason) => html`<span class="legend"><svg class="swatch" viewBox="0 0 10 10" aria-hidden="true"><rect width="10" height="10" fill="${COLOURS[reason] ?? '#333'}"/></svg>${reason}</span>`)}
  </figcaption>
  <details>
    <summary>The numbers</summary>
    <table>
      <caption>Quarantines in ${CHART_SPANS[span].label}, by reason</caption>
      <thead><tr><th scope="col">From (UTC)</th>${reasons.map((reason) => html`<th scope="col">${reason}</th>`)}<th scope="col">total</th></tr></thead>
      <tbody>${buckets
        .filter((bucket) => bucket.total > 0)
        .map(
          (bucket) =>
            html`<tr><th scope="row">${bucket.start.replace('T', ' ').slice(0, 16)}</th>${reasons.map((reason) => html`<td>${bucket.counts[reason] ?? 0}</td>`)}<td>${bucket.total}</td></tr>`,
        )}</tbody>
    </table>
  </details>
</figure>`;
}

function sum(buckets: readonly ChartBucket[], reason: string): number {
  return buckets.reduce((total, bucket) => total + (bucket.counts[reason] ?? 0), 0);
}
