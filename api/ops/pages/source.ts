import type pg from 'pg';
import { PHASES, sourceHistory } from '../../../lib/run-ledger.js';
import { formatCount, formatMs, formatTime, href, html, type Html } from '../html.js';
import { outcomeBadge } from '../layout.js';
import { lineChart, PHASE_COLOURS } from '../svg-plot.js';
import type { TemporalLinks } from '../temporal-links.js';
import { NIGHTS } from './nights.js';

const MAX_RUNS = 200;

/** One source's (or dataset's) runs of the last 30 nights: plots of its counts and phase durations, then each run. */
export async function sourcePage(db: pg.Pool, links: TemporalLinks, sourceId: string): Promise<{ title: string; body: Html }> {
  const since = new Date(Date.now() - NIGHTS * 86_400_000);
  const history = await sourceHistory(db, { sourceId, limit: MAX_RUNS, since });
  const runs = [...history].reverse(); // oldest first, left to right
  const labels = runs.map((run) => formatTime(run.startedAt));
  const rows = (n: number) => formatCount(Math.round(n));
  const phases = PHASES.filter((phase) => runs.some((run) => phase in run.durationsMs));
  const plots = runs.length
    ? html`<div class="plots">
${lineChart({ title: 'Rows read', labels, format: rows, series: [{ name: 'read', colour: '#1d6fd8', values: runs.map((run) => run.rowsRead) }] })}
${lineChart({
  title: 'Rows inserted, updated, deleted',
  labels,
  format: rows,
  series: [
    { name: 'inserted', colour: '#3aa655', values: runs.map((run) => run.inserted) },
    { name: 'updated', colour: '#f0a23b', values: runs.map((run) => run.updated) },
    { name: 'deleted', colour: '#c62828', values: runs.map((run) => run.deleted) },
  ],
})}
${lineChart({ title: 'Rows rejected', labels, format: rows, series: [{ name: 'rejected', colour: '#c62828', values: runs.map((run) => run.rowsRejected) }] })}
${lineChart({
  title: 'Duration per phase',
  labels,
  format: formatMs,
  series: phases.map((phase) => ({ name: phase, colour: PHASE_COLOURS[phase] ?? '#999', values: runs.map((run) => run.durationsMs[phase] ?? null) })),
})}
</div>`
    : html`<p>No run of ${sourceId} in the last ${NIGHTS} nights.</p>`;
  const body = html`<h1>${sourceId}</h1>
<p>Runs of the last ${NIGHTS} nights, oldest on the left of each plot. <a href="${links.source(sourceId)}">Its workflows in the Temporal UI</a></p>
${plots}
<h2>Runs, newest first</h2>
${history.length ? html`<table class="list" id="history">
<thead><tr><th>run</th><th>kind</th><th>started (UTC)</th><th>outcome</th><th class="n">read</th><th class="n">staged</th><th class="n">rejected</th><th class="n">repaired</th><th class="n">inserted</th><th class="n">updated</th><th class="n">deleted</th>${phases.map((phase) => html`<th class="n">${phase}</th>`)}<th class="n">total</th><th>error</th></tr></thead>
<tbody>${history.map((run) => html`<tr><td><a href="${href(`/ops/runs/${encodeURIComponent(run.runId)}`, { source: sourceId })}">${run.runId}</a></td><td>${run.kind}</td><td>${formatTime(run.startedAt)}</td><td>${outcomeBadge(run.outcome)}</td>
<td class="n">${formatCount(run.rowsRead)}</td><td class="n">${formatCount(run.rowsStaged)}</td><td class="n">${formatCount(run.rowsRejected)}</td><td class="n">${formatCount(run.rowsRepaired)}</td>
<td class="n">${formatCount(run.inserted)}</td><td class="n">${formatCount(run.updated)}</td><td class="n">${formatCount(run.deleted)}</td>
${phases.map((phase) => html`<td class="n">${phase in run.durationsMs ? formatMs(run.durationsMs[phase]) : ''}</td>`)}<td class="n">${formatMs(run.durationMs)}</td><td>${run.error ? run.error.slice(0, 160) : ''}</td></tr>`)}</tbody>
</table>` : ''}`;
  return { title: sourceId, body };
}
