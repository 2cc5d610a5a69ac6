import type pg from 'pg';
import type { ChangeCounts, PublishScope } from '../source-adapter.js';
import { withHashJoins } from './merge-table.js';

/**
 * The key-and-hash merge of merge-table.ts for live tables it cannot serve: a key of several
 * columns (a zoning plan is `municipality_code, plan_id`), a key column named differently in
 * staging (`municipality.code`), or a table several sources share, each owning a partition
 * (`area` rows of one `area_kind`). Same three statements: update changed hashes, insert new
 * keys, delete keys in scope the snapshot lacks.
 */
export interface KeyedMerge {
  liveTable: string;
  /** Live key column → staging expression over `s`. */
  keys: Record<string, string>;
  /** Live column → SQL expression over the staging row `s`. */
  columns: Record<string, string>;
  /** Live columns fixed for this source (its partition of a shared table), as values. */
  partition?: Record<string, string>;
  /** The live column the publish scope's municipalities filter (default `municipality_code`). */
  scopeColumn?: string;
}

export async function mergeKeyed(client: pg.PoolClient, stagingTable: string, merge: KeyedMerge, scope: PublishScope, runId: string): Promise<ChangeCounts> {
  const partition = Object.entries(merge.partition ?? {});
  const params: unknown[] = [scope.country, runId, ...partition.map(([, value]) => value)];
  const partitionSql = partition.map(([column], i) => ` AND live.${column} = $${3 + i}`).join('');
  const keyMatch = Object.entries(merge.keys).map(([live, staged]) => `live.${live} = ${staged}`).join(' AND ');
  const names = Object.keys(merge.columns);

  const updated = await client.query(
    `UPDATE ${merge.liveTable} AS live
     SET ${names.map((name) => `${name} = ${merge.columns[name]}`).join(', ')}, row_hash = s.row_hash, published_run_id = $2, updated_at = now()
     FROM ${stagingTable} s
     WHERE live.country = $1${partitionSql} AND ${keyMatch} AND live.row_hash IS DISTINCT FROM s.row_hash`,
    params,
  );
  const insertColumns = ['country', ...partition.map(([column]) => column), ...Object.keys(merge.keys), ...names, 'row_hash', 'published_run_id', 'updated_at'];
  const insertValues = ['$1', ...partition.map((_, i) => `$${3 + i}`), ...Object.values(merge.keys), ...names.map((name) => merge.columns[name]), 's.row_hash', '$2', 'now()'];
  const inserted = await client.query(
    `INSERT INTO ${merge.liveTable} (${insertColumns.join(', ')})
     SELECT ${insertValues.join(', ')} FROM ${stagingTable} s
     WHERE NOT EXISTS (SELECT 1 FROM ${merge.liveTable} live WHERE live.country = $1${partitionSql} AND ${keyMatch})`,
    params,
  );
  const scopeColumn = merge.scopeColumn ?? 'municipality_code';
  const deleteParams: unknown[] = [scope.country, ...partition.map(([, value]) => value)];
  const deletePartition = partition.map(([column], i) => ` AND live.${column} = $${2 + i}`).join('');
  let scopeSql = '';
  if (scope.municipalities) {
    deleteParams.push(scope.municipalities);
    scopeSql = ` AND live.${scopeColumn} = ANY($${deleteParams.length}::text[])`;
  }
  const removed = await withHashJoins(client, () =>
    client.query(
      `DELETE FROM ${merge.liveTable} live
       WHERE live.country = $1${deletePartition}${scopeSql}
         AND NOT EXISTS (SELECT 1 FROM ${stagingTable} s WHERE ${keyMatch})`,
      deleteParams,
    ),
  );
  return { inserted: inserted.rowCount ?? 0, updated: updated.rowCount ?? 0, deleted: removed.rowCount ?? 0 };
}

/** Live rows of the source's partition in scope, for the row-drop check. */
export async function countKeyed(client: pg.PoolClient, merge: Pick<KeyedMerge, 'liveTable' | 'partition' | 'scopeColumn'>, scope: PublishScope): Promise<number> {
  const partition = Object.entries(merge.partition ?? {});
  const params: unknown[] = [scope.country, ...partition.map(([, value]) => value)];
  let sql = `SELECT count(*)::int AS n FROM ${merge.liveTable} live WHERE live.country = $1`;
  sql += partition.map(([column], i) => ` AND live.${column} = $${2 + i}`).join('');
  if (scope.municipalities) {
    params.push(scope.municipalities);
    sql += ` AND live.${merge.scopeColumn ?? 'municipality_code'} = ANY($${params.length}::text[])`;
  }
  return (await client.query<{ n: number }>(sql, params)).rows[0].n;
}
