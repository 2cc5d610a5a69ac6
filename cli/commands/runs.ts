import { getPool } from '../../lib/db.js';
import { SOURCE_RUN_COLUMNS, toSummary } from '../../activities/ledger.js';
import { formatDuration, printJson, printTable } from '../output.js';

export async function listRuns(options: { limit: number; json: boolean }): Promise<number> {
  const result = await getPool().query(
    `SELECT r.run_id, r.kind, r.outcome, r.started_at, r.finished_at, r.sources, r.forced,
            extract(epoch FROM coalesce(r.finished_at, now()) - r.started_at) * 1000 AS duration_ms,
            coalesce(sum(s.rows_read), 0) AS rows_read, coalesce(sum(s.rows_rejected), 0) AS rows_rejected,
            coalesce(sum(s.inserted + s.updated + s.deleted), 0) AS changed
     FROM run r LEFT JOIN source_run s USING (run_id)
     GROUP BY r.run_id ORDER BY r.started_at DESC LIMIT $1`,
    [options.limit],
  );
  const runs = result.rows.map((row) => ({
    runId: row.run_id, kind: row.kind, outcome: row.outcome, startedAt: row.started_at, finishedAt: row.finished_at,
    durationMs: Math.round(row.duration_ms), sources: row.sources, forced: row.forced,
    rowsRead: row.rows_read, rowsRejected: row.rows_rejected, rowsChanged: row.changed,
  }));
  if (options.json) printJson({ items: runs });
  else printTable(runs.map((r) => ({ run: r.runId, kind: r.kind, outcome: r.outcome, started: r.startedAt.toISOString(), duration: formatDuration(r.durationMs), read: r.rowsRead, rejected: r.rowsRejected, changed: r.rowsChanged })));
  return 0;
}

export async function showRun(runId: string, options: { json: boolean; rejects: number }): Promise<number> {
  const pool = getPool();
  const run = await pool.query(`SELECT * FROM run WHERE run_id = $1`, [runId]);
  if (!run.rowCount) {
    console.error(`no run ${runId}; list runs with: nordprop runs`);
    return 1;
  }
  const sources = await pool.query(`SELECT ${SOURCE_RUN_COLUMNS}, input, input_sha256, durations_ms, details FROM source_run WHERE run_id = $1 ORDER BY source_id`, [runId]);
  const rejects = await pool.query(
    `SELECT source_id, position, disposition, reason, left(raw, 160) AS raw FROM source_reject WHERE run_id = $1 ORDER BY source_id, position LIMIT $2`,
    [runId, options.rejects],
  );
  const r = run.rows[0];
  const detail = {
    runId, kind: r.kind, outcome: r.outcome, forced: r.forced, workflowId: r.workflow_id, startedAt: r.started_at, finishedAt: r.finished_at,
    sources: sources.rows.map((row) => ({ ...toSummary(row), input: row.input, inputSha256: row.input_sha256, durationsMs: row.durations_ms, details: row.details })),
    rejects: rejects.rows.map((row) => ({ sourceId: row.source_id, position: row.position, disposition: row.disposition, reason: row.reason, raw: row.raw })),
  };
  if (options.json) {
    printJson(detail);
    return 0;
  }
  console.log(`run ${runId} (${detail.kind}${detail.forced ? ', forced' : ''}): ${detail.outcome}, workflow ${detail.workflowId}`);
  printTable(detail.sources.map((s) => ({ source: s.sourceId, outcome: s.outcome, read: s.rowsRead, staged: s.rowsStaged, rejected: s.rowsRejected, repaired: s.rowsRepaired, inserted: s.inserted, updated: s.updated, deleted: s.deleted, duration: formatDuration(s.durationMs) })));
  for (const s of detail.sources) {
    console.log(`\n${s.sourceId}: ${s.input ?? ''}${s.inputSha256 ? ` (sha256 ${s.inputSha256.slice(0, 12)}…)` : ''}`);
    console.log(`  phases: ${Object.entries(s.durationsMs as Record<string, number>).map(([k, v]) => `${k} ${formatDuration(v)}`).join(', ')}`);
    if (s.error) console.log(`  error: ${s.error}`);
  }
  if (detail.rejects.length) {
    console.log(`\nrejected and repaired rows (first ${options.rejects}):`);
    printTable(detail.rejects.map((x) => ({ source: x.sourceId, position: x.position, disposition: x.disposition, reason: x.reason })));
  }
  return 0;
}
