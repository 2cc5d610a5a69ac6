import type pg from 'pg';
import { SOURCE_RUN_COLUMNS, toSummary } from '../activities/ledger.js';
import type { SourceRunSummary } from '../activities/types.js';

/**
 * Read queries over the run ledger (tables run, source_run, source_reject), shared by the
 * `nordprop runs`/`rejects` commands and the ops console (api/ops/), so both say the same thing.
 */

type Db = Pick<pg.Pool, 'query'>;

/** The phases a source run (or a derived dataset) goes through, in the order they run. */
export const PHASES = ['download', 'stage', 'validate', 'compute', 'publish'];

/** A source run's phase durations in the order they ran (then any phase this list does not know). */
export function phasesInOrder(durations: Record<string, number> | null): [string, number][] {
  const rank = (phase: string) => (PHASES.includes(phase) ? PHASES.indexOf(phase) : PHASES.length);
  return Object.entries(durations ?? {}).sort(([a], [b]) => rank(a) - rank(b));
}

export interface RunListItem {
  runId: string;
  kind: string;
  outcome: string;
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number;
  sources: string[];
  forced: boolean;
  rowsRead: number;
  rowsRejected: number;
  rowsChanged: number;
}

/** Runs newest first, with their sources' rows read, rejected and changed summed. */
export async function listRuns(db: Db, filter: { limit: number; since?: Date; outcomes?: string[] }): Promise<RunListItem[]> {
  const result = await db.query(
    `SELECT r.run_id, r.kind, r.outcome, r.started_at, r.finished_at, r.sources, r.forced,
            extract(epoch FROM coalesce(r.finished_at, now()) - r.started_at) * 1000 AS duration_ms,
            coalesce(sum(s.rows_read), 0) AS rows_read, coalesce(sum(s.rows_rejected), 0) AS rows_rejected,
            coalesce(sum(s.inserted + s.updated + s.deleted), 0) AS changed
     FROM run r LEFT JOIN source_run s USING (run_id)
     WHERE ($2::timestamptz IS NULL OR r.started_at >= $2) AND ($3::text[] IS NULL OR r.outcome = ANY($3))
     GROUP BY r.run_id ORDER BY r.started_at DESC LIMIT $1`,
    [filter.limit, filter.since ?? null, filter.outcomes ?? null],
  );
  return result.rows.map((row) => ({
    runId: row.run_id, kind: row.kind, outcome: row.outcome, startedAt: row.started_at, finishedAt: row.finished_at,
    durationMs: Math.round(row.duration_ms), sources: row.sources, forced: row.forced,
    rowsRead: row.rows_read, rowsRejected: row.rows_rejected, rowsChanged: row.changed,
  }));
}

export interface SourceHistoryItem extends SourceRunSummary {
  kind: string;
  runOutcome: string;
  startedAt: Date;
  durationsMs: Record<string, number>;
}

/**
 * One source's runs (a source id or a derived dataset's ledger id), newest first. `sourceOutcomes`
 * are matched against the source's outcome in the run, `runOutcomes` against the run's; a row
 * matching either is kept. Neither given: every run.
 */
export async function sourceHistory(
  db: Db,
  filter: { sourceId: string; limit: number; since?: Date; sourceOutcomes?: string[]; runOutcomes?: string[] },
): Promise<SourceHistoryItem[]> {
  const filtered = filter.sourceOutcomes !== undefined || filter.runOutcomes !== undefined;
  const result = await db.query(
    `SELECT s.*, r.kind, r.outcome AS run_outcome
     FROM (SELECT ${SOURCE_RUN_COLUMNS}, started_at, durations_ms FROM source_run
           WHERE source_id = $1 AND ($3::timestamptz IS NULL OR started_at >= $3)) s
     JOIN run r USING (run_id)
     WHERE $4::text[] IS NULL OR s.outcome = ANY($4) OR r.outcome = ANY($5::text[])
     ORDER BY s.started_at DESC LIMIT $2`,
    [filter.sourceId, filter.limit, filter.since ?? null, filtered ? (filter.sourceOutcomes ?? []) : null, filter.runOutcomes ?? []],
  );
  return result.rows.map((row) => ({
    ...toSummary(row),
    kind: row.kind,
    runOutcome: row.run_outcome,
    startedAt: row.started_at as Date,
    durationsMs: row.durations_ms as Record<string, number>,
  }));
}

export interface LedgerRun {
  runId: string;
  kind: string;
  outcome: string;
  forced: boolean;
  workflowId: string | null;
  sources: string[];
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number;
}

export async function getRun(db: Db, runId: string): Promise<LedgerRun | undefined> {
  const result = await db.query(
    `SELECT *, extract(epoch FROM coalesce(finished_at, now()) - started_at) * 1000 AS duration_ms FROM run WHERE run_id = $1`,
    [runId],
  );
  const row = result.rows[0];
  return (
    row && {
      runId: row.run_id, kind: row.kind, outcome: row.outcome, forced: row.forced, workflowId: row.workflow_id, sources: row.sources,
      startedAt: row.started_at, finishedAt: row.finished_at, durationMs: Math.round(row.duration_ms),
    }
  );
}

export interface TableChanges {
  inserted: number;
  updated: number;
  deleted: number;
}

export interface RunSourceDetail extends SourceRunSummary {
  input: string | null;
  inputSha256: string | null;
  inputBytes: number | null;
  startedAt: Date;
  finishedAt: Date | null;
  /** Phase → milliseconds, in the order the phases ran. */
  durationsMs: Record<string, number>;
  /** What the publish changed per live table (empty when it did not publish). */
  tables: Record<string, TableChanges>;
  details: Record<string, unknown>;
}

/** Every source (or dataset) of a run, by id, with its input, phases and per-table counts. */
export async function runSources(db: Db, runId: string): Promise<RunSourceDetail[]> {
  const result = await db.query(
    `SELECT ${SOURCE_RUN_COLUMNS}, input, input_sha256, input_bytes, started_at, finished_at, durations_ms, details
     FROM source_run WHERE run_id = $1 ORDER BY source_id`,
    [runId],
  );
  return result.rows.map((row) => ({
    ...toSummary(row),
    input: row.input,
    inputSha256: row.input_sha256,
    inputBytes: row.input_bytes,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    durationsMs: Object.fromEntries(phasesInOrder(row.durations_ms)),
    tables: (row.details?.tables ?? {}) as Record<string, TableChanges>,
    details: row.details ?? {},
  }));
}

export interface RejectFilter {
  runId?: string;
  sourceId?: string;
  /** Part of the reason, any case. */
  reason?: string;
}

export interface RejectRow {
  id: number;
  runId: string;
  sourceId: string;
  position: number | null;
  disposition: string;
  reason: string;
  raw: string | null;
  createdAt: Date;
}

const REJECT_WHERE = `($1::text IS NULL OR run_id = $1) AND ($2::text IS NULL OR source_id = $2)
                      AND ($3::text IS NULL OR reason ILIKE '%' || $3 || '%' ESCAPE '\\')`;

function rejectParameters(filter: RejectFilter): (string | null)[] {
  return [filter.runId ?? null, filter.sourceId ?? null, filter.reason?.replace(/[\\%_]/g, '\\$&') ?? null];
}

/**
 * Rows of source_reject matching the filter. One run: in file order per source; otherwise the
 * newest first. `offset` pages through them.
 */
export async function listRejects(db: Db, filter: RejectFilter & { limit: number; offset?: number }): Promise<RejectRow[]> {
  const result = await db.query(
    `SELECT id, run_id, source_id, position, disposition, reason, raw, created_at FROM source_reject WHERE ${REJECT_WHERE}
     ORDER BY ${filter.runId ? 'source_id, position, id' : 'id DESC'} LIMIT $4 OFFSET $5`,
    [...rejectParameters(filter), filter.limit, filter.offset ?? 0],
  );
  return result.rows.map((row) => ({
    id: Number(row.id), runId: row.run_id, sourceId: row.source_id, position: row.position === null ? null : Number(row.position),
    disposition: row.disposition, reason: row.reason, raw: row.raw, createdAt: row.created_at,
  }));
}

export async function countRejects(db: Db, filter: RejectFilter): Promise<number> {
  return Number((await db.query(`SELECT count(*) AS n FROM source_reject WHERE ${REJECT_WHERE}`, rejectParameters(filter))).rows[0].n);
}

/** The sources of a run that have rejected or repaired rows, with how many each. */
export async function rejectCountsBySource(db: Db, runId: string): Promise<{ sourceId: string; rows: number }[]> {
  const result = await db.query(`SELECT source_id, count(*) AS n FROM source_reject WHERE run_id = $1 GROUP BY source_id ORDER BY source_id`, [runId]);
  return result.rows.map((row) => ({ sourceId: row.source_id, rows: Number(row.n) }));
}

export interface NightCell {
  /** YYYY-MM-DD in the time zone asked for. */
  night: string;
  sourceId: string;
  /** The source's outcome in its latest run of that night. */
  outcome: string;
  runId: string;
  runKind: string;
  /** How many runs of the source started that night (the cell shows the latest). */
  runs: number;
  error: string | null;
}

/**
 * The latest run of every source and dataset on each of the last `nights` days (counted in
 * `timeZone`, the schedule's), for the grid of the console.
 */
export async function nightGrid(db: Db, options: { nights: number; timeZone: string }): Promise<{ nights: string[]; cells: NightCell[] }> {
  const today = (await db.query(`SELECT (now() AT TIME ZONE $1)::date::text AS today`, [options.timeZone])).rows[0].today as string;
  const result = await db.query(
    `SELECT night::text, source_id, outcome, run_id, kind, runs, error FROM (
       SELECT (s.started_at AT TIME ZONE $1)::date AS night, s.source_id, s.outcome, s.run_id, r.kind, s.error,
              count(*) OVER (PARTITION BY (s.started_at AT TIME ZONE $1)::date, s.source_id) AS runs,
              row_number() OVER (PARTITION BY (s.started_at AT TIME ZONE $1)::date, s.source_id ORDER BY s.started_at DESC) AS latest
       FROM source_run s JOIN run r USING (run_id)
       WHERE s.started_at >= (($2::date - ($3::int - 1))::timestamp AT TIME ZONE $1)
     ) ranked WHERE latest = 1`,
    [options.timeZone, today, options.nights],
  );
  const nights: string[] = [];
  const day = new Date(`${today}T00:00:00Z`);
  for (let i = 0; i < options.nights; i++) nights.push(new Date(day.getTime() - i * 86_400_000).toISOString().slice(0, 10));
  return {
    nights,
    cells: result.rows.map((row) => ({
      night: row.night, sourceId: row.source_id, outcome: row.outcome, runId: row.run_id, runKind: row.kind, runs: Number(row.runs), error: row.error,
    })),
  };
}

/** Runs the ledger holds as running, newest first, with their sources' ledger rows. */
export async function runningRuns(db: Db): Promise<(LedgerRun & { sourceRuns: RunSourceDetail[] })[]> {
  const ids = (await db.query(`SELECT run_id FROM run WHERE outcome = 'running' ORDER BY started_at DESC`)).rows.map((row) => row.run_id as string);
  const runs = [];
  for (const runId of ids) {
    const run = await getRun(db, runId);
    if (run) runs.push({ ...run, sourceRuns: await runSources(db, runId) });
  }
  return runs;
}
