import type pg from 'pg';

/**
 * Planner settings for a publish that explodes and merges a whole register in one transaction
 * (SET LOCAL: they end with it, so a pooled connection keeps its defaults).
 * - JIT off: every large statement of such a publish paid 0.3 to 1.2 s compiling expressions
 *   (jsonb_to_recordset, md5 of a row's text) that run once per row and gain nothing from it.
 * - work_mem 64 MB: the person snapshot's DISTINCT ON sort and the anti-joins' hash tables spilled
 *   to temporary files at the 4 MB default; 64 MB per sort or hash node keeps memory bounded.
 */
export async function tuneRegisterPublish(client: pg.PoolClient): Promise<void> {
  await client.query(`SELECT set_config('jit', 'off', true), set_config('work_mem', '64MB', true)`);
}
