import type pg from 'pg';

/**
 * Settings for the pipeline's long set-based transactions: every source's publish and every
 * derived dataset's computation and merge (SET LOCAL: they end with the transaction, so a
 * pooled connection keeps its defaults; the API's short statements never see them).
 * - work_mem 64 MB: at the 4 MB default every large sort and hash spilled to temporary files in
 *   batches; 64 MB per sort or hash node is still a bound (larger inputs spill).
 * JIT is off for every pipeline session already (lib/db.ts).
 */
export async function tuneBulkTransaction(client: pg.PoolClient): Promise<void> {
  await client.query(`SELECT set_config('work_mem', '64MB', true)`);
}
