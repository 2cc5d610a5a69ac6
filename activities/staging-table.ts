import type pg from 'pg';
import { ApplicationFailure } from '@temporalio/activity';
import { quoteIdent } from '../lib/db.js';
import type { SourceAdapter } from '../sources/source-adapter.js';

/** Each source run stages into its own table: `staging."<source>_<run>"`. */
export function stagingTableName(sourceId: string, runId: string): string {
  const name = `${sourceId}_${runId}`.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 63);
  return `staging.${quoteIdent(name)}`;
}

/** A line-record source's run also hashes its file's lines into `staging."r_<source>_<run>"` (activities/record-hashes.ts). */
export function recordsTableName(sourceId: string, runId: string): string {
  const name = `r_${sourceId}_${runId}`.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 63);
  return `staging.${quoteIdent(name)}`;
}

/**
 * And, on a night that stages only changed lines, how its records differ from those its last
 * publish had into `staging."c_<source>_<run>"` (activities/record-hashes.ts).
 */
export function recordChangesTableName(sourceId: string, runId: string): string {
  const name = `c_${sourceId}_${runId}`.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 63);
  return `staging.${quoteIdent(name)}`;
}

/** Drops a source run's staging tables (after publishing, or when the run failed or was abandoned). */
export async function dropStagingTables(db: Pick<pg.Pool, 'query'>, sourceId: string, runId: string): Promise<void> {
  await db.query(`DROP TABLE IF EXISTS ${stagingTableName(sourceId, runId)}, ${recordsTableName(sourceId, runId)}, ${recordChangesTableName(sourceId, runId)}`);
}

export function createStagingSql(source: SourceAdapter, table: string): string {
  const columns = source.stagingColumns.map((column) => `${quoteIdent(column.name)} ${column.type}`);
  // UNLOGGED: a crash loses only a staging table, which a retry rebuilds anyway.
  return `CREATE UNLOGGED TABLE IF NOT EXISTS ${table} (src_pos bigint NOT NULL, ${columns.join(', ')}, row_hash uuid NOT NULL)`;
}

export const stagingColumnList = (source: SourceAdapter) => ['src_pos', ...source.stagingColumns.map((c) => quoteIdent(c.name)), 'row_hash'].join(', ');

/** What a staging table held when it was checked: its row count and an order-free digest of its rows. */
export interface StagingFingerprint {
  rows: number;
  digest: string;
}

/** The columns a source staging table's fingerprint covers: every row's file position and content hash. */
export const SOURCE_STAGING_DIGEST = ['src_pos', 'row_hash'];

type Queryable = Pick<pg.Pool, 'query'>;

/**
 * Count and an order-free digest (a sum of 64-bit hashes) of `table`'s rows over `columns`: one
 * streaming pass, no sort, so it costs the same at any size. Undefined when the table is gone.
 */
export async function stagingFingerprint(db: Queryable, table: string, columns: readonly string[] = SOURCE_STAGING_DIGEST): Promise<StagingFingerprint | undefined> {
  const exists = await db.query<{ present: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS present`, [table]);
  if (!exists.rows[0].present) return undefined;
  const row = columns.map((column) => `t.${quoteIdent(column)}`).join(', ');
  const result = await db.query<{ rows: number; digest: string }>(
    `SELECT count(*)::bigint AS rows, coalesce(sum(hashtextextended(row(${row})::text, 0)::numeric), 0)::text AS digest FROM ${table} t`,
  );
  return result.rows[0];
}

/**
 * When the database server last started. UNLOGGED staging tables survive a clean restart but
 * not crash recovery, which this cannot tell apart: staged rows are trusted on the same start only.
 */
export async function serverStartedAt(db: Queryable): Promise<string> {
  return (await db.query<{ at: string }>(`SELECT pg_postmaster_start_time()::text AS at`)).rows[0].at;
}

/** Thrown when a staging table no longer holds what was staged or validated: the source is staged again. */
export const STAGING_LOST = 'StagingLost';

/** `retryable`: the activity's own retry stages again (a derived dataset recomputes); else the workflow restages. */
export function stagingLost(message: string, retryable = false): ApplicationFailure {
  return ApplicationFailure.create({ message, type: STAGING_LOST, nonRetryable: !retryable });
}

/**
 * Refuses to go on from a staging table that is not what was checked before. Crash recovery
 * empties UNLOGGED tables: a publish that merged the emptied table deleted the whole live
 * register and reported success. Run inside the publish transaction, nothing can change it after.
 */
export async function assertStagingIntact(
  db: Queryable,
  table: string,
  expected: StagingFingerprint | undefined,
  options: { columns?: readonly string[]; retryable?: boolean } = {},
): Promise<void> {
  const actual = await stagingFingerprint(db, table, options.columns);
  if (expected && actual && actual.rows === expected.rows && actual.digest === expected.digest) return;
  const found = actual ? `holds ${actual.rows} rows${actual.rows === expected?.rows ? ' of other content' : ''}` : 'is gone';
  throw stagingLost(
    `staging table ${table} ${found} where ${expected?.rows ?? 'an unknown number of'} rows were checked (a database restart empties staging tables); live data was not touched`,
    options.retryable,
  );
}
