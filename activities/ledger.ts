import type pg from 'pg';
import { getPool } from '../lib/db.js';
import { selectSources } from '../sources/registry.js';
import type { Country } from '../lib/domain/country.js';
import type { PlannedSource, RunKind, RunOutcome, RunSummary, SourceRunSummary } from './types.js';

/** The run ledger: one row per run and per source in it, written as the run proceeds. */

export async function planRun(input: {
  runId: string;
  kind: RunKind;
  workflowId: string;
  country?: Country;
  sources?: string[];
  force: boolean;
}): Promise<PlannedSource[]> {
  const planned = selectSources({ country: input.country, sources: input.sources }).map((s) => ({ sourceId: s.id, country: s.country, dependsOn: s.dependsOn ?? [] }));
  if (!planned.length) throw new Error(`no source matches country ${input.country ?? 'any'} and ${input.sources?.join(', ') || 'all sources'}`);
  await getPool().query(
    `INSERT INTO run (run_id, kind, workflow_id, sources, forced) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (run_id) DO NOTHING`,
    [input.runId, input.kind, input.workflowId, planned.map((p) => p.sourceId), input.force],
  );
  return planned;
}

export async function startSourceRun(input: { runId: string; sourceId: string; country: Country }): Promise<void> {
  await getPool().query(
    `INSERT INTO source_run (run_id, source_id, country) VALUES ($1, $2, $3) ON CONFLICT (run_id, source_id) DO NOTHING`,
    [input.runId, input.sourceId, input.country],
  );
}

export async function finishSourceRun(input: { runId: string; sourceId: string; outcome: 'unchanged' | 'failed'; error?: string }): Promise<void> {
  await getPool().query(
    `UPDATE source_run SET outcome = $3, error = $4, finished_at = now() WHERE run_id = $1 AND source_id = $2 AND outcome = 'running'`,
    [input.runId, input.sourceId, input.outcome, input.error ?? null],
  );
}

interface SourceRunRow {
  run_id: string;
  source_id: string;
  outcome: string;
  rows_read: number;
  rows_staged: number;
  rows_rejected: number;
  rows_repaired: number;
  inserted: number;
  updated: number;
  deleted: number;
  error: string | null;
  duration_ms: number;
}

export function toSummary(row: SourceRunRow): SourceRunSummary {
  return {
    runId: row.run_id,
    sourceId: row.source_id,
    outcome: row.outcome as SourceRunSummary['outcome'],
    rowsRead: row.rows_read,
    rowsStaged: row.rows_staged,
    rowsRejected: row.rows_rejected,
    rowsRepaired: row.rows_repaired,
    inserted: row.inserted,
    updated: row.updated,
    deleted: row.deleted,
    durationMs: Math.round(row.duration_ms),
    ...(row.error ? { error: row.error } : {}),
  };
}

export const SOURCE_RUN_COLUMNS = `run_id, source_id, outcome, rows_read, rows_staged, rows_rejected, rows_repaired, inserted, updated, deleted, error,
  extract(epoch FROM coalesce(finished_at, now()) - started_at) * 1000 AS duration_ms`;

export async function getSourceRunSummary(input: { runId: string; sourceId: string }): Promise<SourceRunSummary> {
  const result = await getPool().query<SourceRunRow>(`SELECT ${SOURCE_RUN_COLUMNS} FROM source_run WHERE run_id = $1 AND source_id = $2`, [
    input.runId,
    input.sourceId,
  ]);
  if (!result.rowCount) throw new Error(`no ledger entry for ${input.sourceId} in run ${input.runId}`);
  return toSummary(result.rows[0]);
}

/**
 * Closes the run: succeeded when no source failed, failed when all did, partial otherwise. A
 * planned source with no entry (its run was abandoned before it started) counts as failed.
 */
export async function finishRun(input: { runId: string }): Promise<RunSummary> {
  const pool = getPool();
  const sources = await pool.query<SourceRunRow>(`SELECT ${SOURCE_RUN_COLUMNS} FROM source_run WHERE run_id = $1 ORDER BY source_id`, [input.runId]);
  const summaries = sources.rows.map(toSummary);
  const planned = (await pool.query<{ n: number }>(`SELECT cardinality(sources) AS n FROM run WHERE run_id = $1`, [input.runId])).rows[0]?.n ?? 0;
  const total = Math.max(planned, summaries.length);
  const failed = summaries.filter((s) => s.outcome === 'failed').length + (total - summaries.length);
  const outcome: RunOutcome = failed === 0 ? 'succeeded' : failed === total ? 'failed' : 'partial';
  const run = await pool.query<{ kind: RunSummary['kind']; duration_ms: number }>(
    `UPDATE run SET outcome = $2, finished_at = now() WHERE run_id = $1
     RETURNING kind, extract(epoch FROM finished_at - started_at) * 1000 AS duration_ms`,
    [input.runId, outcome],
  );
  return { runId: input.runId, kind: run.rows[0].kind, outcome, durationMs: Math.round(run.rows[0].duration_ms), sources: summaries };
}

/** `db`: an activity that already holds connections passes one, so it never waits on the pool for another. */
export async function recordDuration(
  runId: string,
  sourceId: string,
  phase: string,
  ms: number,
  fields: Record<string, unknown> = {},
  db: Pick<pg.Pool, 'query'> = getPool(),
): Promise<void> {
  const names = Object.keys(fields);
  const sets = names.map((name, i) => `${name} = $${i + 5}`);
  await db.query(
    `UPDATE source_run SET durations_ms = durations_ms || jsonb_build_object($3::text, $4::numeric)${sets.length ? `, ${sets.join(', ')}` : ''}
     WHERE run_id = $1 AND source_id = $2`,
    [runId, sourceId, phase, Math.round(ms), ...names.map((name) => fields[name])],
  );
}
