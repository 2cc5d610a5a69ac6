import type pg from 'pg';

/** The run ledger changes with every run; everything else in `public` is the store. */
const LEDGER_TABLES = ['run', 'source_run', 'source_reject', 'schema_migrations', 'spatial_ref_sys'];

/** A digest of every live row of the store's tables and views, to prove a run changed nothing. */
export async function liveDigest(pool: pg.Pool): Promise<Record<string, string>> {
  const digest: Record<string, string> = {};
  const relations = await pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v') AND NOT c.relname = ANY($1) ORDER BY 1`,
    [LEDGER_TABLES],
  );
  for (const { name: table } of relations.rows) {
    const result = await pool.query(`SELECT count(*) AS n, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS md5 FROM ${table} t`);
    digest[table] = `${result.rows[0].n}:${result.rows[0].md5}`;
  }
  return digest;
}

export async function liveCount(pool: pg.Pool, table: string, country?: string): Promise<number> {
  const where = country ? ` WHERE country = '${country}'` : '';
  return Number((await pool.query(`SELECT count(*) AS n FROM ${table}${where}`)).rows[0].n);
}
