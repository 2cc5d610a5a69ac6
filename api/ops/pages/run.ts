import type pg from 'pg';
import { countRejects, getRun, listRejects, rejectCountsBySource, runSources, type RunSourceDetail } from '../../../lib/run-ledger.js';
import { ingestWorkflowId } from '../../../workflows/refresh.js';
import { formatBytes, formatCount, formatMs, formatTime, href, html, type Html } from '../html.js';
import { outcomeBadge } from '../layout.js';
import { phaseTimeline } from '../svg-plot.js';
import type { TemporalLinks } from '../temporal-links.js';

export const REJECTS_PER_PAGE = 50;

/**
 * A source's phases for the timeline. A phase that failed recorded no duration: the time from
 * the last recorded phase to the source's end is drawn as `failed` (or `running`, still going).
 */
function timelinePhases(source: RunSourceDetail): [string, number][] {
  const phases = Object.entries(source.durationsMs);
  const recorded = phases.reduce((sum, [, ms]) => sum + ms, 0);
  const rest = source.durationMs - recorded;
  if (source.outcome === 'failed' && rest > 0) return [...phases, ['failed', rest]];
  // The ledger's outcome is `running` until the source ends (SourceOutcome names only the ends).
  if ((source.outcome as string) === 'running' && rest > 0) return [...phases, ['running', rest]];
  return phases;
}

export interface RunPageQuery {
  /** Rejects of this source only. */
  source?: string;
  /** Rejects whose reason contains this, any case. */
  reason?: string;
  /** 1-based page of the rejects. */
  page?: number;
}

/** One run: its phase timeline, per-source and per-table counts, errors, and its rejected rows, filtered and paged. */
export async function runPage(db: pg.Pool, links: TemporalLinks, runId: string, query: RunPageQuery): Promise<{ title: string; body: Html } | undefined> {
  const run = await getRun(db, runId);
  if (!run) return undefined;
  const filter = { runId, sourceId: query.source || undefined, reason: query.reason || undefined };
  const pageNumber = Math.max(1, query.page ?? 1);
  const [sources, rejectSources, rejects, total] = await Promise.all([
    runSources(db, runId),
    rejectCountsBySource(db, runId),
    listRejects(db, { ...filter, limit: REJECTS_PER_PAGE, offset: (pageNumber - 1) * REJECTS_PER_PAGE }),
    countRejects(db, filter),
  ]);
  const ingestLink = (sourceId: string) => (run.kind === 'derive' ? (run.workflowId ? links.workflow(run.workflowId) : links.run(runId)) : links.workflow(ingestWorkflowId(sourceId, runId)));
  const pageHref = (page: number) => href(`/ops/runs/${encodeURIComponent(runId)}`, { source: filter.sourceId, reason: filter.reason, page: page > 1 ? page : undefined }) + '#rejects';
  const first = (pageNumber - 1) * REJECTS_PER_PAGE;
  // A page past the end (an old link, fewer rows after a filter) leads back to the last one.
  const lastPage = Math.max(1, Math.ceil(total / REJECTS_PER_PAGE));
  // The source filtered on stays selectable even when it has no rejected row in this run.
  const sourceOptions = filter.sourceId && !rejectSources.some((s) => s.sourceId === filter.sourceId) ? [...rejectSources, { sourceId: filter.sourceId, rows: 0 }] : rejectSources;
  const body = html`<h1>Run ${runId} ${outcomeBadge(run.outcome)}</h1>
<p>${run.kind}${run.forced ? ', forced' : ''}; started ${formatTime(run.startedAt)} UTC, ${run.finishedAt ? html`finished ${formatTime(run.finishedAt)}, took` : 'running for'} ${formatMs(run.durationMs)}.
Workflow ${run.workflowId ? html`<a href="${links.workflow(run.workflowId)}">${run.workflowId}</a>` : 'unknown'} · <a href="${links.run(runId)}">every workflow of this run in the Temporal UI</a></p>
<h2>Phase timeline</h2>
${sources.length ? phaseTimeline(sources.map((s) => ({ label: s.sourceId, startMs: Math.max(0, s.startedAt.getTime() - run.startedAt.getTime()), phases: timelinePhases(s), failed: s.outcome === 'failed' }))) : html`<p>No source has started yet.</p>`}
<h2>Sources</h2>
<table class="list" id="sources">
<thead><tr><th>source</th><th>outcome</th><th class="n">read</th><th class="n">staged</th><th class="n">rejected</th><th class="n">repaired</th><th class="n">inserted</th><th class="n">updated</th><th class="n">deleted</th><th class="n">duration</th><th>Temporal</th></tr></thead>
<tbody>${sources.map((s) => html`<tr data-source="${s.sourceId}"><td><a href="#source-${s.sourceId}">${s.sourceId}</a></td><td>${outcomeBadge(s.outcome)}</td>
<td class="n">${formatCount(s.rowsRead)}</td><td class="n">${formatCount(s.rowsStaged)}</td><td class="n">${formatCount(s.rowsRejected)}</td><td class="n">${formatCount(s.rowsRepaired)}</td>
<td class="n">${formatCount(s.inserted)}</td><td class="n">${formatCount(s.updated)}</td><td class="n">${formatCount(s.deleted)}</td><td class="n">${formatMs(s.durationMs)}</td>
<td><a href="${ingestLink(s.sourceId)}">workflow</a></td></tr>`)}</tbody>
</table>
${sources.map((s) => {
  const tables = Object.entries(s.tables);
  const phases = Object.entries(s.durationsMs);
  return html`<section class="source" id="source-${s.sourceId}">
<h2><a href="/ops/sources/${encodeURIComponent(s.sourceId)}">${s.sourceId}</a> ${outcomeBadge(s.outcome)}</h2>
${s.input ? html`<p>input <code>${s.input}</code>${s.inputBytes ? ` (${formatBytes(s.inputBytes)})` : ''}${s.inputSha256 ? html`, sha256 <code>${s.inputSha256.slice(0, 16)}…</code>` : ''}</p>` : ''}
<p class="phases">phases: ${phases.length ? phases.map(([phase, ms]) => `${phase} ${formatMs(ms)}`).join(' → ') : 'none recorded'}</p>
${tables.length ? html`<table class="list tables"><thead><tr><th>live table</th><th class="n">inserted</th><th class="n">updated</th><th class="n">deleted</th></tr></thead>
<tbody>${tables.map(([table, c]) => html`<tr><td>${table}</td><td class="n">${formatCount(c.inserted)}</td><td class="n">${formatCount(c.updated)}</td><td class="n">${formatCount(c.deleted)}</td></tr>`)}</tbody></table>` : ''}
${s.error ? html`<div class="error" role="alert">${s.error}</div>` : ''}
</section>`;
})}
<h2 id="rejects">Rejected and repaired rows</h2>
<form class="filters" method="get" action="/ops/runs/${encodeURIComponent(runId)}#rejects">
<label>source <select name="source"><option value="">every source</option>${sourceOptions.map((s) => html`<option value="${s.sourceId}"${s.sourceId === filter.sourceId ? html` selected` : ''}>${s.sourceId} (${formatCount(s.rows)})</option>`)}</select></label>
<label>reason contains <input type="search" name="reason" value="${filter.reason ?? ''}"></label>
<button type="submit">Filter</button>
</form>
<p class="muted" id="rejects-count">${!total ? 'no row matches' : rejects.length ? `rows ${first + 1}–${first + rejects.length} of ${formatCount(total)}` : `no row on page ${pageNumber}: ${formatCount(total)} match`}${filter.sourceId || filter.reason ? ' (filtered)' : ''}</p>
${rejects.length ? html`<table class="list" id="reject-rows">
<thead><tr><th>source</th><th class="n">position</th><th>disposition</th><th>reason</th><th>raw text</th></tr></thead>
<tbody>${rejects.map((r) => html`<tr><td>${r.sourceId}</td><td class="n">${r.position ?? ''}</td><td>${r.disposition}</td><td class="reason">${r.reason}</td><td><pre class="raw">${r.raw ?? ''}</pre></td></tr>`)}</tbody>
</table>` : ''}
<p class="pager">${pageNumber > 1 ? html`<a rel="prev" href="${pageHref(Math.min(pageNumber - 1, lastPage))}">← previous ${REJECTS_PER_PAGE}</a> ` : ''}${first + rejects.length < total ? html`<a rel="next" href="${pageHref(pageNumber + 1)}">next ${REJECTS_PER_PAGE} →</a>` : ''}</p>`;
  return { title: `run ${runId}`, body };
}
