import { Html, html } from './html.js';

/** How each outcome looks: a colour and, because colour alone tells nothing to some, a label. */
export const OUTCOME_STYLE: Record<string, { label: string; symbol: string; className: string; meaning: string }> = {
  published: { label: 'pub', symbol: '✓', className: 'published', meaning: 'published: live data changed to the new snapshot' },
  unchanged: { label: 'same', symbol: '=', className: 'unchanged', meaning: 'unchanged: same input as live, nothing written' },
  failed: { label: 'FAIL', symbol: '✗', className: 'failed', meaning: 'failed: live data untouched; open the run for the error' },
  running: { label: 'run', symbol: '…', className: 'running', meaning: 'running now, or ended without closing its entry' },
  succeeded: { label: 'ok', symbol: '✓', className: 'published', meaning: 'every source succeeded' },
  partial: { label: 'part', symbol: '!', className: 'partial', meaning: 'some sources failed' },
};

export function outcomeBadge(outcome: string): Html {
  const style = OUTCOME_STYLE[outcome] ?? { symbol: '?', className: 'none' };
  return html`<span class="badge ${style.className}">${style.symbol} ${outcome}</span>`;
}

const CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d2330; background: #fafbfc; }
header { background: #1d2330; color: #fff; padding: 8px 16px; display: flex; gap: 20px; align-items: baseline; }
header a { color: #cfe0ff; text-decoration: none; } header strong { font-size: 16px; }
main { padding: 12px 16px; }
h1 { font-size: 20px; margin: 8px 0 12px; } h2 { font-size: 16px; margin: 20px 0 8px; }
table { border-collapse: collapse; } th, td { padding: 3px 6px; text-align: left; vertical-align: top; }
table.list td, table.list th { border-bottom: 1px solid #e1e4ea; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
table.grid td, table.grid th { border: 1px solid #fff; padding: 0; font-size: 11px; }
table.grid th.night { writing-mode: vertical-rl; transform: rotate(180deg); padding: 2px; font-weight: normal; }
table.grid th.source { padding: 2px 8px 2px 0; white-space: nowrap; font-weight: normal; }
table.grid td a, table.grid td span.empty { display: block; width: 36px; height: 20px; line-height: 20px; text-align: center; text-decoration: none; color: inherit; white-space: nowrap; overflow: hidden; }
.published { background: #bfe6c5; color: #0d4a19; } .unchanged { background: #d6e2f0; color: #1f3b5c; }
.failed { background: #f2b8b5; color: #6b0f0a; font-weight: bold; } .running { background: #fde9a9; color: #5c4400; }
.partial { background: #f9d3a6; color: #653600; } .none { background: #eef0f3; color: #8a93a3; }
.badge { padding: 1px 6px; border-radius: 3px; white-space: nowrap; }
.legend { display: flex; gap: 14px; margin: 10px 0; flex-wrap: wrap; } .legend span.badge { margin-right: 4px; }
.error { background: #fff1f0; border-left: 4px solid #c62828; padding: 6px 10px; white-space: pre-wrap; margin: 6px 0; }
pre.raw { margin: 0; max-width: 900px; white-space: pre-wrap; word-break: break-all; font-size: 12px; }
.muted { color: #6b7385; } .plots { display: flex; flex-wrap: wrap; gap: 16px; }
form.filters { display: flex; gap: 10px; align-items: end; margin: 8px 0; } form.filters label { display: flex; flex-direction: column; font-size: 12px; }
progress { width: 240px; }
`;

/** A whole console page: header with the console's pages, then the body. */
export function page(options: { title: string; nonce: string; body: Html; refreshSeconds?: number; temporalUi: string }): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${options.title} · nordprop ops</title>
${options.refreshSeconds ? html`<meta http-equiv="refresh" content="${options.refreshSeconds}">` : ''}
<meta name="viewport" content="width=device-width, initial-scale=1">
<style nonce="${options.nonce}">${new Html(CSS)}</style>
</head>
<body>
<header><strong>nordprop ops</strong>
<a href="/ops">Nights</a> <a href="/ops/running">In progress</a> <a href="${options.temporalUi}">Temporal UI</a></header>
<main>
${options.body}
</main>
</body>
</html>`.text;
}

export function legend(outcomes: string[]): Html {
  return html`<div class="legend" aria-label="legend">${outcomes.map((outcome) => {
    const style = OUTCOME_STYLE[outcome];
    return html`<span><span class="badge ${style.className}">${style.label}</span>${style.meaning}</span>`;
  })}<span><span class="badge none">·</span>no run that night</span></div>`;
}
