import type pg from 'pg';
import type { ChangeCounts, PublishScope } from '../source-adapter.js';

/**
 * The one merge every single-table source needs: upsert the staged rows whose hash differs
 * from live (or that live lacks), then delete live rows in scope that the snapshot no longer
 * has. Unchanged rows are never written, so publishing the same snapshot twice writes nothing.
 */
export interface TableMerge {
  liveTable: string;
  keyColumn: string;
  /** Live column → SQL expression over the staging row `s`. */
  columns: Record<string, string>;
}

export function scopeFilter(alias: string, scope: PublishScope, firstParam: number): { sql: string; params: unknown[] } {
  if (!scope.municipalities) return { sql: `${alias}.country = $${firstParam}`, params: [scope.country] };
  return {
    sql: `${alias}.country = $${firstParam} AND ${alias}.municipality_code = ANY($${firstParam + 1}::text[])`,
    params: [scope.country, scope.municipalities],
  };
}

export async function mergeTable(
  client: pg.PoolClient,
  stagingTable: string,
  merge: TableMerge,
  scope: PublishScope,
  runId: string,
): Promise<ChangeCounts> {
  const { liveTable, keyColumn, columns } = merge;
  const names = Object.keys(columns);
  const upsert = await client.query<{ inserted: number; updated: number }>(
    `WITH changed AS (
       INSERT INTO ${liveTable} AS live (country, ${keyColumn}, ${names.join(', ')}, row_hash, published_run_id, updated_at)
       SELECT $1, s.${keyColumn}, ${names.map((name) => columns[name]).join(', ')}, s.row_hash, $2, now()
       FROM ${stagingTable} s
       LEFT JOIN ${liveTable} cur ON cur.country = $1 AND cur.${keyColumn} = s.${keyColumn}
       WHERE cur.row_hash IS DISTINCT FROM s.row_hash
       ON CONFLICT (country, ${keyColumn}) DO UPDATE SET
         ${names.map((name) => `${name} = EXCLUDED.${name}`).join(', ')},
         row_hash = EXCLUDED.row_hash, published_run_id = EXCLUDED.published_run_id, updated_at = now()
       RETURNING (xmax = 0) AS is_insert
     )
     SELECT count(*) FILTER (WHERE is_insert) AS inserted, count(*) FILTER (WHERE NOT is_insert) AS updated FROM changed`,
    [scope.country, runId],
  );
  const filter = scopeFilter('live', scope, 1);
  const removed = await client.query(
    `DELETE FROM ${liveTable} live
     WHERE ${filter.sql}
       AND NOT EXISTS (SELECT 1 FROM ${stagingTable} s WHERE s.${keyColumn} = live.${keyColumn})`,
    filter.params,
  );
  return { inserted: upsert.rows[0].inserted, updated: upsert.rows[0].updated, deleted: removed.rowCount ?? 0 };
}

export async function countLiveRows(client: pg.PoolClient, liveTable: string, scope: PublishScope): Promise<number> {
  const filter = scopeFilter('live', scope, 1);
  const result = await client.query<{ n: number }>(`SELECT count(*) AS n FROM ${liveTable} live WHERE ${filter.sql}`, filter.params);
  return result.rows[0].n;
}
