import type pg from 'pg';

/**
 * The run ledger changes with every run; PostGIS's catalog views list every geometry column of
 * the database, the staging tables of running work included; everything else in `public` is
 * the store.
 */
const LEDGER_TABLES = ['run', 'source_run', 'source_reject', 'schema_migrations', 'spatial_ref_sys', 'geometry_columns', 'geography_columns'];

/** A digest of every live row of the store's tables and views, to prove a run changed nothing. */
export async function liveDigest(pool: pg.Pool): Promise<Record<string, string>> {
  const relations = await pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v') AND NOT c.relname = ANY($1) ORDER BY 1`,
    [LEDGER_TABLES],
  );
  return tablesDigest(pool, relations.rows.map((row) => row.name));
}

/**
 * Count and md5 over every row of one table (of one country, when given): equal digests mean
 * nothing was written. With `columns`, over those columns only (e.g. without the run and time a
 * row was written, to compare what two different runs published).
 */
export async function tableDigest(pool: pg.Pool, table: string, country?: string, columns?: string): Promise<string> {
  const where = country ? ' WHERE country = $1' : '';
  const rows = columns ? `(SELECT ${columns} FROM ${table}${where})` : `${table}`;
  const result = await pool.query(
    `SELECT count(*) AS n, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS md5 FROM ${rows} t${columns ? '' : where}`,
    country ? [country] : [],
  );
  return `${result.rows[0].n}:${result.rows[0].md5}`;
}

/** tableDigest of each of `tables`, by table name. */
export async function tablesDigest(pool: pg.Pool, tables: readonly string[], country?: string): Promise<Record<string, string>> {
  const digest: Record<string, string> = {};
  for (const table of tables) digest[table] = await tableDigest(pool, table, country);
  return digest;
}

export async function liveCount(pool: pg.Pool, table: string, country?: string): Promise<number> {
  const where = country ? ` WHERE country = '${country}'` : '';
  return Number((await pool.query(`SELECT count(*) AS n FROM ${table}${where}`)).rows[0].n);
}
