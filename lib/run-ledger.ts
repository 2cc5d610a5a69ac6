import type pg from 'pg';
import type { ChangeCounts } from './domain/change-counts.js';
import type { Country } from './domain/country.js';
import type { RunKind, RunOutcome, RunSummary, SourceRunSummary } from './domain/run-summary.js';

/**
 * Every statement over the run ledger (tables run and source_run, and the reads of
 * source_reject): one row per run and per source (or derived dataset) in it, written by the
 * activities as a run proceeds and read by the `nordprop runs`/`rejects` commands and the ops
 * console (api/ops/), so all say the same thing. On the ground floor because the derive step
 * (derive/inputs-fingerprint.ts) reads it too. A function taking `db` runs on whatever it is
 * given: a pool, or a client inside the caller's transaction.
 */

type Db = Pick<pg.Pool, 'query'>;

interface SourceRunRow {
  run_id: string;
  source_id: string;
  outcome: string;
  rows_read: number;
  rows_staged: number;
  rows_rejected: number;
  rows_repaired: number;
  rows_unchanged: number | null;
  inserted: number;
  updated: number;
  deleted: number;
  error: string | null;
  duration_ms: number;
}

const SOURCE_RUN_COLUMNS = `run_id, source_id, outcome, rows_read, rows_staged, rows_rejected, rows_repaired, rows_unchanged, inserted, updated, deleted, error,
  extract(epoch FROM coalesce(finished_at, now()) - started_at) * 1000 AS duration_ms`;

function toSummary(row: SourceRunRow): SourceRunSummary {
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
    ...(row.rows_unchanged !== null ? { rowsUnchanged: Number(row.rows_unchanged) } : {}),
    ...(row.error ? { error: row.error } : {}),
  };
}

// ---- Writing a run

/** Opens a run, `running`; a retried plan finds it there and leaves it. */
export async function insertRun(db: Db, run: { runId: string; kind: RunKind; workflowId: string; sources: string[]; forced: boolean }): Promise<void> {
  await db.query(
    `INSERT INTO run (run_id, kind, workflow_id, sources, forced) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (run_id) DO NOTHING`,
    [run.runId, run.kind, run.workflowId, run.sources, run.forced],
  );
}

/** How many sources the run planned (0 for a run the ledger does not have). */
export async function plannedSourceCount(db: Db, runId: string): Promise<number> {
  return (await db.query<{ n: number }>(`SELECT cardinality(sources) AS n FROM run WHERE run_id = $1`, [runId])).rows[0]?.n ?? 0;
}

/** Closes a run with its outcome; its kind and how long it took. */
export async function closeRun(db: Db, runId: string, outcome: RunOutcome): Promise<{ kind: RunKind; durationMs: number }> {
  const run = await db.query<{ kind: RunKind; duration_ms: number }>(
    `UPDATE run SET outcome = $2, finished_at = now() WHERE run_id = $1
     RETURNING kind, extract(epoch FROM finished_at - started_at) * 1000 AS duration_ms`,
    [runId, outcome],
  );
  return { kind: run.rows[0].kind, durationMs: Math.round(run.rows[0].duration_ms) };
}

/** Runs still `running`, oldest first, with their workflow's id (when the ledger has it). */
export async function openRuns(db: Db): Promise<{ runId: string; workflowId: string | null }[]> {
  const result = await db.query<{ run_id: string; workflow_id: string | null }>(`SELECT run_id, workflow_id FROM run WHERE outcome = 'running' ORDER BY started_at`);
  return result.rows.map((row) => ({ runId: row.run_id, workflowId: row.workflow_id }));
}

export async function runExists(db: Db, runId: string): Promise<boolean> {
  return Boolean((await db.query(`SELECT 1 FROM run WHERE run_id = $1`, [runId])).rowCount);
}

// ---- Writing a source's (or a derived dataset's) entry in a run

/** Opens a source's entry, `running`; `input` says what it reads. A retry leaves an existing entry. */
export async function insertSourceRun(db: Db, entry: { runId: string; sourceId: string; country: Country; input?: string }): Promise<void> {
  await db.query(
    `INSERT INTO source_run (run_id, source_id, country, input) VALUES ($1, $2, $3, $4) ON CONFLICT (run_id, source_id) DO NOTHING`,
    [entry.runId, entry.sourceId, entry.country, entry.input ?? null],
  );
}

/** Closes a still running entry without publishing: unchanged, or failed with its error. */
export async function closeSourceRun(db: Db, entry: { runId: string; sourceId: string; outcome: 'unchanged' | 'failed'; error?: string }): Promise<void> {
  await db.query(
    `UPDATE source_run SET outcome = $3, error = $4, finished_at = now() WHERE run_id = $1 AND source_id = $2 AND outcome = 'running'`,
    [entry.runId, entry.sourceId, entry.outcome, entry.error ?? null],
  );
}

/** Closes a still running entry as unchanged, adding `details` (a derived dataset's inputs, …). */
export async function closeSourceRunUnchanged(db: Db, entry: { runId: string; sourceId: string; details: Record<string, unknown> }): Promise<void> {
  await db.query(
    `UPDATE source_run SET outcome = 'unchanged', finished_at = clock_timestamp(), details = details || $3::jsonb
     WHERE run_id = $1 AND source_id = $2 AND outcome = 'running'`,
    [entry.runId, entry.sourceId, JSON.stringify(entry.details)],
  );
}

/**
 * The entry, locked for the rest of the caller's transaction (`client` inside it): a publish
 * holds it so that a retry finds the entry published, with its counts, or not at all. Also the
 * position an incremental feed's fetch recorded.
 */
export async function lockSourceRun(
  client: pg.PoolClient,
  runId: string,
  sourceId: string,
): Promise<(ChangeCounts & { outcome: string; position: Record<string, unknown> | null }) | undefined> {
  const result = await client.query<ChangeCounts & { outcome: string; position: Record<string, unknown> | null }>(
    `SELECT outcome, inserted, updated, deleted, details->'increment'->'position' AS position FROM source_run WHERE run_id = $1 AND source_id = $2 FOR UPDATE`,
    [runId, sourceId],
  );
  return result.rows[0];
}

/**
 * Closes the entry as published with what changed, adding `details` (per-table counts, scope, a
 * dataset's stats, …). finished_at is clock_timestamp(): inside the publish's long transaction
 * now() would be its start.
 */
export async function markSourceRunPublished(
  client: pg.PoolClient,
  entry: { runId: string; sourceId: string; counts: ChangeCounts; details: Record<string, unknown> },
): Promise<void> {
  await client.query(
    `UPDATE source_run SET outcome = 'published', inserted = $3, updated = $4, deleted = $5, details = details || $6::jsonb,
       finished_at = clock_timestamp()
     WHERE run_id = $1 AND source_id = $2`,
    [entry.runId, entry.sourceId, entry.counts.inserted, entry.counts.updated, entry.counts.deleted, JSON.stringify(entry.details)],
  );
}

/** Marks every entry of the run still running failed with `error`; the sources it closed. */
export async function failRunningSourceRuns(db: Db, runId: string, error: string): Promise<string[]> {
  const closed = await db.query<{ source_id: string }>(
    `UPDATE source_run SET outcome = 'failed', error = $2, finished_at = now() WHERE run_id = $1 AND outcome = 'running' RETURNING source_id`,
    [runId, error],
  );
  return closed.rows.map((row) => row.source_id);
}

/**
 * Adds a phase's duration to the entry, with `fields` (column → value: rows counted, the input
 * read, …). Column names come from the code, never from input.
 */
export async function recordPhaseDuration(
  db: Db,
  entry: { runId: string; sourceId: string; phase: string; ms: number; fields?: Record<string, unknown>; details?: Record<string, unknown> },
): Promise<void> {
  const fields = entry.fields ?? {};
  const names = Object.keys(fields);
  const sets = names.map((name, i) => `${name} = $${i + 6}`);
  await db.query(
    `UPDATE source_run SET durations_ms = durations_ms || jsonb_build_object($3::text, $4::numeric), details = details || $5::jsonb${sets.length ? `, ${sets.join(', ')}` : ''}
     WHERE run_id = $1 AND source_id = $2`,
    [entry.runId, entry.sourceId, entry.phase, Math.round(entry.ms), JSON.stringify(entry.details ?? {}), ...names.map((name) => fields[name])],
  );
}

/** Records what an incremental feed fetched (its changes and the position reached) on the entry. */
export async function recordIncrementFetched(db: Db, runId: string, sourceId: string, fetched: unknown): Promise<void> {
  await db.query(
    `UPDATE source_run SET details = details || jsonb_build_object('increment', $3::jsonb) WHERE run_id = $1 AND source_id = $2`,
    [runId, sourceId, JSON.stringify(fetched)],
  );
}

// ---- What the activities read back

export async function readSourceRunSummary(db: Db, runId: string, sourceId: string): Promise<SourceRunSummary | undefined> {
  const result = await db.query<SourceRunRow>(`SELECT ${SOURCE_RUN_COLUMNS} FROM source_run WHERE run_id = $1 AND source_id = $2`, [runId, sourceId]);
  return result.rows[0] && toSummary(result.rows[0]);
}

/** Every entry of the run, by source id. */
export async function readSourceRunSummaries(db: Db, runId: string): Promise<SourceRunSummary[]> {
  const result = await db.query<SourceRunRow>(`SELECT ${SOURCE_RUN_COLUMNS} FROM source_run WHERE run_id = $1 ORDER BY source_id`, [runId]);
  return result.rows.map(toSummary);
}

/** The run as the ledger holds it (closed or still running), with its entries; none for a run it does not have. */
export async function readRunSummary(db: Db, runId: string): Promise<RunSummary | undefined> {
  const run = await db.query(`SELECT kind, outcome, extract(epoch FROM coalesce(finished_at, now()) - started_at) * 1000 AS duration_ms FROM run WHERE run_id = $1`, [runId]);
  const r = run.rows[0];
  if (!r) return undefined;
  return { runId, kind: r.kind, outcome: r.outcome, durationMs: Math.round(r.duration_ms), sources: await readSourceRunSummaries(db, runId) };
}

export interface ReusableArtifact {
  input: string | null;
  input_sha256: string;
  etag: string | null;
  last_modified: string | null;
  artifact_path: string | null;
}

/** What a source's run downloaded: the artifact on disk and the server's Last-Modified, as recorded at download. */
export async function sourceRunDownload(db: Db, runId: string, sourceId: string): Promise<{ artifactPath: string | null; lastModified: string | null } | undefined> {
  const result = await db.query<{ artifact_path: string | null; last_modified: string | null }>(
    `SELECT artifact_path, last_modified FROM source_run WHERE run_id = $1 AND source_id = $2`,
    [runId, sourceId],
  );
  const row = result.rows[0];
  return row && { artifactPath: row.artifact_path, lastModified: row.last_modified };
}

/** The source's last 100 downloads that ended published or unchanged, newest first. */
export async function recentArtifacts(db: Db, sourceId: string): Promise<ReusableArtifact[]> {
  const result = await db.query<ReusableArtifact>(
    `SELECT input, input_sha256, etag, last_modified, artifact_path FROM source_run
     WHERE source_id = $1 AND outcome IN ('published', 'unchanged') AND input_sha256 IS NOT NULL
     ORDER BY finished_at DESC LIMIT 100`,
    [sourceId],
  );
  return result.rows;
}

/** The inputs fingerprint of the dataset's latest computation (or skip) in another run. */
export async function lastDerivedInputs(db: Db, ledgerId: string, runId: string): Promise<string | undefined> {
  const result = await db.query<{ inputs: string | null }>(
    `SELECT details->>'inputs' AS inputs FROM source_run
     WHERE source_id = $1 AND run_id <> $2 AND outcome IN ('published', 'unchanged')
     ORDER BY finished_at DESC LIMIT 1`,
    [ledgerId, runId],
  );
  return result.rows[0]?.inputs ?? undefined;
}

/**
 * Per derived dataset (by ledger id), how long its last computation took, compute and publish
 * in milliseconds: what the derive workflow orders the datasets by. A dataset never computed
 * has no entry.
 */
export async function lastDerivedDurations(db: Db, ledgerIds: string[]): Promise<Map<string, number>> {
  const result = await db.query<{ source_id: string; ms: number }>(
    `SELECT DISTINCT ON (source_id) source_id,
            (coalesce((durations_ms->>'compute')::float8, 0) + coalesce((durations_ms->>'publish')::float8, 0)) AS ms
     FROM source_run
     WHERE source_id = ANY($1::text[]) AND outcome = 'published' AND durations_ms ? 'compute'
     ORDER BY source_id, finished_at DESC`,
    [ledgerIds],
  );
  return new Map(result.rows.map((row) => [row.source_id, Number(row.ms)]));
}

/**
 * A digest of when each source of the country last published a change, and each of the given
 * derived datasets (by ledger id); null when none has.
 */
export async function lastChangesDigest(db: Db, country: Country, dependencyLedgerIds: string[]): Promise<string | null> {
  const changes = await db.query<{ digest: string | null }>(
    `SELECT md5(string_agg(source_id || '@' || last_change, ',' ORDER BY source_id)) AS digest
     FROM (
       SELECT source_id, max(finished_at)::text AS last_change
       FROM source_run
       WHERE country = $1 AND outcome = 'published' AND inserted + updated + deleted > 0
         AND (source_id NOT LIKE 'derive-%' OR source_id = ANY($2::text[]))
       GROUP BY source_id
     ) changed`,
    [country, dependencyLedgerIds],
  );
  return changes.rows[0].digest;
}

// ---- What the commands and the ops console read

/** Whether the ledger has any entry of this source (or derived dataset). */
/** The source's last published run: publishes of a source are serialized, so the latest to finish. */
export async function lastPublishedRun(db: Db, sourceId: string): Promise<string | undefined> {
  const result = await db.query<{ run_id: string }>(
    `SELECT run_id FROM source_run WHERE source_id = $1 AND outcome = 'published' ORDER BY finished_at DESC LIMIT 1`,
    [sourceId],
  );
  return result.rows[0]?.run_id;
}

/** Of the (run, source) entries given, those still `running`, as `run/source`. */
export async function runningSourceRuns(db: Db, entries: { runId: string; sourceId: string }[]): Promise<Set<string>> {
  if (!entries.length) return new Set();
  const result = await db.query<{ run_id: string; source_id: string }>(
    `SELECT run_id, source_id FROM source_run
     WHERE (run_id, source_id) IN (SELECT * FROM unnest($1::text[], $2::text[])) AND outcome = 'running'`,
    [entries.map((entry) => entry.runId), entries.map((entry) => entry.sourceId)],
  );
  return new Set(result.rows.map((row) => `${row.run_id}/${row.source_id}`));
}

export async function sourceHasRuns(db: Db, sourceId: string): Promise<boolean> {
  return Boolean((await db.query(`SELECT 1 FROM source_run WHERE source_id = $1 LIMIT 1`, [sourceId])).rowCount);
}

/** The stats each of these datasets' latest publish recorded (rows as the ledger has them). */
export async function latestPublishedStats(db: Db, ledgerIds: string[]): Promise<{ source_id: string; stats: Record<string, unknown>; finished_at: Date }[]> {
  const result = await db.query<{ source_id: string; stats: Record<string, unknown>; finished_at: Date }>(
    `SELECT DISTINCT ON (source_id) source_id, details->'stats' AS stats, finished_at FROM source_run
     WHERE source_id = ANY($1::text[]) AND outcome = 'published' ORDER BY source_id, finished_at DESC`,
    [ledgerIds],
  );
  return result.rows;
}

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
