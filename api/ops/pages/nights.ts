import type pg from 'pg';
import { listRuns, nightGrid } from '../../../lib/run-ledger.js';
import { catalogue } from '../catalogue.js';
import { formatCount, formatMs, formatTime, href, html, type Html } from '../html.js';
import { legend, OUTCOME_STYLE, outcomeBadge } from '../layout.js';
import type { TemporalLinks } from '../temporal-links.js';

export const NIGHTS = 30;
/** Nights are counted where the schedule runs (cli/commands/schedule.ts: 02:00 Europe/Oslo). */
export const NIGHT_TIME_ZONE = 'Europe/Oslo';

/** The front page: the last 30 nights × every source and dataset, then the latest runs. */
export async function nightsPage(db: pg.Pool, links: TemporalLinks): Promise<{ title: string; body: Html }> {
  const [grid, runs] = await Promise.all([nightGrid(db, { nights: NIGHTS, timeZone: NIGHT_TIME_ZONE }), listRuns(db, { limit: 20 })]);
  const nights = [...grid.nights].reverse(); // oldest on the left, as time reads
  const cellOf = new Map(grid.cells.map((cell) => [`${cell.sourceId} ${cell.night}`, cell]));
  const entries = catalogue();
  // A ledger id the registry no longer has (a retired source) still shows its history.
  const known = new Set(entries.map((entry) => entry.id));
  for (const cell of grid.cells) if (!known.has(cell.sourceId)) (known.add(cell.sourceId), entries.push({ id: cell.sourceId, group: 'other' }));
  const body = html`<h1>The last ${NIGHTS} nights</h1>
<p class="muted">Each cell is a source's (or derived dataset's) latest run of the night (${NIGHT_TIME_ZONE}); open it for the run. Newest night on the right.</p>
${legend(['published', 'unchanged', 'failed', 'running'])}
<table class="grid" id="nights">
<thead><tr><th></th>${nights.map((night) => html`<th class="night" scope="col">${night.slice(5)}</th>`)}</tr></thead>
<tbody>
${entries.map((entry) => html`<tr data-source="${entry.id}"><th class="source" scope="row"><a href="${href(`/ops/sources/${encodeURIComponent(entry.id)}`)}">${entry.id}</a></th>
${nights.map((night) => {
  const cell = cellOf.get(`${entry.id} ${night}`);
  if (!cell) return html`<td><span class="empty none" title="${entry.id} ${night}: no run">·</span></td>`;
  const style = OUTCOME_STYLE[cell.outcome] ?? { symbol: '?', label: cell.outcome, className: 'none' };
  const more = cell.runs > 1 ? ` (latest of ${cell.runs} runs that night)` : '';
  const title = `${entry.id} ${night}: ${cell.outcome} in ${cell.runKind} run ${cell.runId}${more}${cell.error ? ` — ${cell.error.slice(0, 200)}` : ''}`;
  return html`<td class="${style.className}" data-night="${night}" data-outcome="${cell.outcome}"><a href="${href(`/ops/runs/${encodeURIComponent(cell.runId)}`, { source: entry.id })}" title="${title}">${style.label}</a></td>`;
})}</tr>`)}
</tbody>
</table>
<h2>Latest runs</h2>
${runs.length ? html`<table class="list" id="runs">
<thead><tr><th>run</th><th>kind</th><th>outcome</th><th>started (UTC)</th><th>duration</th><th>sources</th><th class="n">read</th><th class="n">rejected</th><th class="n">changed</th><th>Temporal</th></tr></thead>
<tbody>${runs.map((run) => html`<tr><td><a href="/ops/runs/${encodeURIComponent(run.runId)}">${run.runId}</a></td><td>${run.kind}${run.forced ? ' (forced)' : ''}</td><td>${outcomeBadge(run.outcome)}</td>
<td>${formatTime(run.startedAt)}</td><td>${formatMs(run.durationMs)}</td><td>${run.sources.length}</td><td class="n">${formatCount(run.rowsRead)}</td><td class="n">${formatCount(run.rowsRejected)}</td><td class="n">${formatCount(run.rowsChanged)}</td>
<td><a href="${links.run(run.runId)}">workflows</a></td></tr>`)}</tbody>
</table>` : html`<p>No run yet.</p>`}`;
  return { title: 'Nights', body };
}
