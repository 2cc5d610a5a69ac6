import { html, type Html } from './html.js';

/** Inline SVG charts: no script, no external file, every figure also in a <title> a reader can hover. */

export interface Series {
  name: string;
  colour: string;
  /** One value per x position; null where the run has no figure (a phase that did not run). */
  values: (number | null)[];
}

const WIDTH = 460;
const HEIGHT = 190;
const MARGIN = { left: 62, right: 30, top: 26, bottom: 40 };

/**
 * A line chart over runs, oldest on the left; `labels` name each x position (the run's start,
 * `YYYY-MM-DD HH:MM:SS`): the axis shows their day, or their time when all are of one day.
 */
export function lineChart(options: { title: string; labels: string[]; series: Series[]; format: (value: number) => string }): Html {
  const { labels, series, format } = options;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const max = Math.max(1, ...series.flatMap((s) => s.values.filter((v): v is number => v !== null)));
  const x = (i: number) => MARGIN.left + (labels.length === 1 ? plotWidth / 2 : (i / (labels.length - 1)) * plotWidth);
  const y = (v: number) => MARGIN.top + plotHeight - (v / max) * plotHeight;
  const ticks = [0, max / 2, max];
  const labelEvery = Math.max(1, Math.ceil(labels.length / 4));
  const oneDay = labels.every((label) => label.slice(0, 10) === labels[0]?.slice(0, 10));
  const axisLabel = (label: string) => (oneDay ? label.slice(11, 19) : label.slice(5, 10));
  const id = `chart-${options.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return html`<figure class="chart">
<svg role="img" aria-labelledby="${id}" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" xmlns="http://www.w3.org/2000/svg" font-size="11" font-family="system-ui, sans-serif">
<title id="${id}">${options.title}</title>
<text x="${MARGIN.left}" y="14" font-weight="bold" font-size="12">${options.title}</text>
${ticks.map((tick) => html`<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(tick)}" y2="${y(tick)}" stroke="#e1e4ea"/><text x="${MARGIN.left - 4}" y="${y(tick) + 4}" text-anchor="end" fill="#6b7385">${format(tick)}</text>`)}
${labels.map((label, i) => (i % labelEvery === 0 || i === labels.length - 1 ? html`<text x="${x(i)}" y="${HEIGHT - MARGIN.bottom + 14}" text-anchor="middle" fill="#6b7385">${axisLabel(label)}</text>` : ''))}
${series.map((s) => {
  const points = s.values.map((v, i) => (v === null ? null : `${x(i).toFixed(1)},${y(v).toFixed(1)}`)).filter((p): p is string => p !== null);
  return html`<g class="series" data-series="${s.name}">
<polyline fill="none" stroke="${s.colour}" stroke-width="2" points="${points.join(' ')}"/>
${s.values.map((v, i) => (v === null ? '' : html`<circle cx="${x(i)}" cy="${y(v)}" r="3" fill="${s.colour}"><title>${labels[i]}: ${s.name} ${format(v)}</title></circle>`))}
</g>`;
})}
${series.map((s, i) => html`<rect x="${MARGIN.left + i * 100}" y="${HEIGHT - 14}" width="10" height="10" fill="${s.colour}"/><text x="${MARGIN.left + i * 100 + 14}" y="${HEIGHT - 5}">${s.name}</text>`)}
</svg>
</figure>`;
}

export const PHASE_COLOURS: Record<string, string> = { download: '#5b8def', stage: '#f0a23b', validate: '#8e6bd8', compute: '#2aa198', publish: '#3aa655', failed: '#c62828', running: '#d9b300' };

export interface TimelineRow {
  label: string;
  /** Milliseconds after the run started. */
  startMs: number;
  phases: [string, number][];
  failed: boolean;
}

/** The run's phase timeline: one bar per source, its phases one after another from when it started. */
export function phaseTimeline(rows: TimelineRow[]): Html {
  const labelWidth = 170;
  const width = 820;
  const rowHeight = 22;
  const end = Math.max(1, ...rows.map((row) => row.startMs + row.phases.reduce((sum, [, ms]) => sum + ms, 0)));
  const scale = (ms: number) => (ms / end) * (width - labelWidth - 10);
  const height = rows.length * rowHeight + 24;
  return html`<svg role="img" aria-label="phase timeline" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg" font-size="11" font-family="system-ui, sans-serif">
${rows.map((row, i) => {
  let at = labelWidth + scale(row.startMs);
  const top = i * rowHeight + 4;
  return html`<text x="0" y="${top + 14}"${row.failed ? html` fill="#c62828" font-weight="bold"` : ''}>${row.label}</text>
${row.phases.map(([phase, ms]) => {
  const w = Math.max(1, scale(ms));
  const rect = html`<rect x="${at}" y="${top}" width="${w}" height="${rowHeight - 6}" fill="${PHASE_COLOURS[phase] ?? '#999'}"><title>${row.label} ${phase}: ${ms} ms</title></rect>${w > 50 ? html`<text x="${at + 3}" y="${top + 12}" fill="#fff">${phase}</text>` : ''}`;
  at += w;
  return rect;
})}`;
})}
<text x="${labelWidth}" y="${height - 4}" fill="#6b7385">0</text><text x="${width - 10}" y="${height - 4}" text-anchor="end" fill="#6b7385">${(end / 1000).toFixed(1)} s</text>
</svg>`;
}
