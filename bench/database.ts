import pg from 'pg';
import { quoteIdent } from '../lib/db.js';
import { createDatabase, databaseUrlFor, dropDatabase } from '../lib/database-admin.js';
import { migrate } from '../lib/migrate.js';

/** The benchmark's own database: created fresh and migrated once, emptied before each measured load. */

export const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export function databaseUrl(name: string): string {
  return databaseUrlFor(ADMIN_URL, name);
}

export const dropBenchDatabase = (name: string): Promise<void> => dropDatabase(databaseUrl(name));

export async function recreateDatabase(name: string): Promise<string> {
  const url = databaseUrl(name);
  await dropDatabase(url);
  await createDatabase(url);
  await migrate(url);
  return url;
}

/** The live relations each source publishes into (some may be views over the others, depending on the schema version). */
export const LIVE_TABLES: Record<string, string[]> = {
  'no-address': ['address'],
  'no-cadastre': ['parcel_property', 'parcel', 'property'],
  // Measured only in a Sweden-alone run (--country SE), where these tables hold Swedish rows only.
  'se-cadastre': ['parcel_property', 'parcel', 'property_register'],
};

/** Those of `names` that are tables in the public schema (views and missing names left out). */
export async function baseTables(pool: pg.Pool, names: string[]): Promise<string[]> {
  const result = await pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname = ANY($1)`,
    [names],
  );
  const found = new Set(result.rows.map((row) => row.name));
  return names.filter((name) => found.has(name));
}

/**
 * Empties the source's live tables and forgets its runs, so the next load is a first load
 * (every row inserted) and the unchanged-input short cut cannot apply. A CHECKPOINT then
 * writes out the previous load's dirty pages, which would otherwise be flushed during the next
 * measurement.
 */
export async function resetSource(pool: pg.Pool, sourceId: string): Promise<void> {
  const known = LIVE_TABLES[sourceId];
  if (!known) throw new Error(`no live tables known for ${sourceId}`);
  const tables = await baseTables(pool, known);
  await pool.query(`TRUNCATE ${tables.join(', ')}`);
  await pool.query(`DELETE FROM source_reject WHERE source_id = $1`, [sourceId]);
  await pool.query(`DELETE FROM source_run WHERE source_id = $1`, [sourceId]);
  await pool.query(`DELETE FROM run r WHERE NOT EXISTS (SELECT 1 FROM source_run s WHERE s.run_id = r.run_id)`);
  const leftovers = await pool.query<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'staging' AND tablename LIKE $1`,
    [`${sourceId.replace(/[^a-z0-9]/g, '_')}\\_%`],
  );
  for (const { name } of leftovers.rows) await pool.query(`DROP TABLE IF EXISTS staging.${quoteIdent(name)}`);
  await settle(pool);
}

/** Flushes dirty buffers so one measurement does not pay for the previous one's writes. */
export async function settle(pool: pg.Pool): Promise<void> {
  await pool.query('CHECKPOINT');
}

export interface LedgerEntry {
  outcome: string;
  rowsRead: number;
  rowsStaged: number;
  rowsRejected: number;
  rowsRepaired: number;
  inserted: number;
  updated: number;
  deleted: number;
  /** Phase → milliseconds, as the activities recorded them. */
  durationsMs: Record<string, number>;
  /** started_at → finished_at of the source run in the ledger. */
  ledgerSeconds: number;
  error: string | null;
}

export async function ledgerEntry(pool: pg.Pool, runId: string, sourceId: string): Promise<LedgerEntry> {
  const result = await pool.query(
    `SELECT outcome, rows_read, rows_staged, rows_rejected, rows_repaired, inserted, updated, deleted, durations_ms, error,
            extract(epoch FROM coalesce(finished_at, now()) - started_at)::float8 AS seconds
     FROM source_run WHERE run_id = $1 AND source_id = $2`,
    [runId, sourceId],
  );
  const row = result.rows[0];
  if (!row) throw new Error(`no ledger entry for ${sourceId} in run ${runId}`);
  return {
    outcome: row.outcome,
    rowsRead: Number(row.rows_read),
    rowsStaged: Number(row.rows_staged),
    rowsRejected: Number(row.rows_rejected),
    rowsRepaired: Number(row.rows_repaired),
    inserted: Number(row.inserted),
    updated: Number(row.updated),
    deleted: Number(row.deleted),
    durationsMs: Object.fromEntries(Object.entries(row.durations_ms as Record<string, unknown>).map(([k, v]) => [k, Number(v)])),
    ledgerSeconds: Number(row.seconds),
    error: row.error,
  };
}
