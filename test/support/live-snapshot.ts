import type pg from 'pg';

/** A digest of every live row of the store's tables, to prove a failed run changed nothing. */
export async function liveDigest(pool: pg.Pool): Promise<Record<string, string>> {
  const digest: Record<string, string> = {};
  for (const table of ['address', 'parcel', 'parcel_property', 'property']) {
    const result = await pool.query(`SELECT count(*) AS n, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS md5 FROM ${table} t`);
    digest[table] = `${result.rows[0].n}:${result.rows[0].md5}`;
  }
  return digest;
}

export async function liveCount(pool: pg.Pool, table: string): Promise<number> {
  return (await pool.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n;
}
