import type pg from 'pg';
import type { Client } from '@temporalio/client';
import { runningRuns } from '../../../lib/run-ledger.js';
import { readIngestProgress, type IngestProgress } from '../../../store/ingest-progress.js';
import { ingestWorkflowId } from '../../../workflows/refresh.js';
import { formatBytes, formatCount, formatMs, formatTime, html, type Html } from '../html.js';
import type { TemporalLinks } from '../temporal-links.js';

export const REFRESH_SECONDS = 3;

function progressCell(progress: IngestProgress | undefined): Html {
  if (!progress) return html`<td>—</td><td></td>`;
  switch (progress.state) {
    case 'not started':
      return html`<td>waiting (for a worker, or for a source it depends on)</td><td></td>`;
    case 'unknown':
      return html`<td>unknown: Temporal did not answer (${progress.reason})</td><td></td>`;
    case 'ended':
      return html`<td>${progress.status}</td><td></td>`;
    case 'running': {
      const d = progress.details;
      if (!d) return html`<td>${progress.phase ?? 'between phases'}</td><td></td>`;
      const bytes = d.totalBytes ? `${formatBytes(d.bytes)} of ${formatBytes(d.totalBytes)}` : formatBytes(d.bytes);
      return html`<td>${progress.phase ?? d.phase}</td>
<td class="progress">${d.totalBytes ? html`<progress max="${d.totalBytes}" value="${d.bytes}"></progress> ` : ''}<span class="bytes">${bytes}</span> · <span class="rows">${formatCount(d.rows)} rows</span>, ${formatCount(d.rejected)} rejected</td>`;
    }
  }
}

/** Runs in progress, each source's phase and its last heartbeat (bytes and rows); the page reloads itself. */
export async function runningPage(db: pg.Pool, links: TemporalLinks, temporal: () => Promise<Client | string>): Promise<{ title: string; body: Html; refreshSeconds: number }> {
  const runs = await runningRuns(db);
  const client = runs.length ? await temporal() : undefined;
  const sections = await Promise.all(
    runs.map(async (run) => {
      const ledger = new Map(run.sourceRuns.map((s) => [s.sourceId, s]));
      const sourceIds = run.kind === 'derive' ? run.sourceRuns.map((s) => s.sourceId) : run.sources;
      const progress = await Promise.all(
        sourceIds.map(async (sourceId): Promise<IngestProgress | undefined> => {
          if (run.kind === 'derive') return undefined;
          if (typeof client === 'string') return { state: 'unknown', reason: client };
          return client ? readIngestProgress(client, ingestWorkflowId(sourceId, run.runId)) : undefined;
        }),
      );
      return html`<section class="running-run" data-run="${run.runId}">
<h2><a href="/ops/runs/${encodeURIComponent(run.runId)}">${run.runId}</a> (${run.kind}) · started ${formatTime(run.startedAt)} UTC, running for ${formatMs(run.durationMs)} · <a href="${links.run(run.runId)}">Temporal UI</a></h2>
<table class="list"><thead><tr><th>source</th><th>ledger</th><th>phase</th><th>progress (last heartbeat)</th><th>phases done</th></tr></thead>
<tbody>${sourceIds.map((sourceId, i) => {
  const entry = ledger.get(sourceId);
  return html`<tr data-source="${sourceId}"><td>${sourceId}</td><td>${entry ? entry.outcome : 'not started'}</td>${progressCell(progress[i])}
<td>${entry ? Object.entries(entry.durationsMs).map(([phase, ms]) => `${phase} ${formatMs(ms)}`).join(' → ') : ''}</td></tr>`;
})}</tbody></table>
</section>`;
    }),
  );
  const body = html`<h1>In progress</h1>
<p class="muted">Reloads every ${REFRESH_SECONDS} s. Bytes and rows are those of each source's running activity's last heartbeat (download and stage send them).</p>
${runs.length ? sections : html`<p id="none-running">No run is in progress.</p>`}`;
  return { title: 'In progress', body, refreshSeconds: REFRESH_SECONDS };
}
