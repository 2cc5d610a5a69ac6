import type pg from 'pg';
import type { ChangeCounts, PublishScope } from '../source-adapter.js';
import { isEmpty, withIndexesBuiltAfter } from './indexes-after.js';
import { withPlannerMethodsOff } from './planner-methods.js';
import type { StepTimer } from './step-timer.js';

/**
 * The one merge every single-table source needs: update the live rows whose staged hash
 * differs, insert the keys live lacks, delete live rows in scope that the snapshot no longer
 * has. Unchanged rows are never written, so publishing the same snapshot twice writes nothing.
 * Three plain statements rather than INSERT … ON CONFLICT: a first load inserts a million rows
 * without a speculative-insertion round per row, and each statement counts its own rows.
 * Publishes of one source are serialized by the caller, so nothing else writes these keys.
 */
export interface TableMerge {
  liveTable: string;
  keyColumn: string;
  /** Live column → SQL expression over the staging row `s`. */
  columns: Record<string, string>;
  /**
   * A condition on `live` (the source's fixed columns) that with country and the key makes the
   * live table's primary key: company's is (org_scheme, org_id). An increment looks up its live
   * rows by key, and without it each lookup read every company (12 s to delete 1,877 of 300,000).
   */
  keyScope?: string;
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
  /**
   * An increment's keys it removes, as a table (`removedKeys`) or a query (`removedKeysQuery`);
   * staging then holds the changed rows alone, and the update and the delete look up live rows by
   * key: by the live table's primary key, country, `keyScope` and the key.
   */
  options: { timer?: StepTimer; removedKeys?: string; removedKeysQuery?: string } = {},
): Promise<ChangeCounts> {
  const { timer } = options;
  const removedKeys = options.removedKeys ?? (options.removedKeysQuery && `(${options.removedKeysQuery})`);
  const { liveTable, keyColumn, columns } = merge;
  const key = (other: string) => `live.country = $1${merge.keyScope ? ` AND ${merge.keyScope}` : ''} AND live.${keyColumn} = ${other}.${keyColumn}`;
  const names = Object.keys(columns);
  // Each statement is a step of the ledger's publishStepsMs (`<table>.update` …) when the caller times them.
  const timed = <T>(step: string, work: () => Promise<T>) => (timer ? timer.timed(`${liveTable}.${step}`, work) : work());
  const update = () => client.query(
    `UPDATE ${liveTable} AS live
     SET ${names.map((name) => `${name} = ${columns[name]}`).join(', ')},
         row_hash = s.row_hash, published_run_id = $2, updated_at = now()
     FROM ${stagingTable} s
     WHERE ${key('s')} AND live.row_hash <> s.row_hash`,
    [scope.country, runId],
  );
  // An increment stages the changed rows alone (a few percent of live): each is looked up by its
  // key. Planned freely, the update hashed the whole live table first (se-cadastre's night at
  // 0.05 x national: 65-67 ms of hashing to update 1,351 parcels, 197 ms in all).
  const updated = await timed('update', () => (removedKeys ? withKeyLookups(client, update) : update()));
  const insert = (antiJoin: boolean) =>
    client.query(
      `INSERT INTO ${liveTable} (country, ${keyColumn}, ${names.join(', ')}, row_hash, published_run_id, updated_at)
       SELECT $1, s.${keyColumn}, ${names.map((name) => columns[name]).join(', ')}, s.row_hash, $2, now()
       FROM ${stagingTable} s${antiJoin ? `
       WHERE NOT EXISTS (SELECT 1 FROM ${liveTable} live WHERE ${key('s')})` : ''}`,
      [scope.country, runId],
    );
  const firstLoad = await isEmpty(client, liveTable);
  // A country's first load into a table the other country already fills: nothing of its own to delete either.
  const firstOfCountry = firstLoad || (await isEmpty(client, liveTable, scope.country));
  // The insert runs with the planner's own settings: its column expressions may be subqueries
  // (a Swedish address's covering property) that need nested loops over indexes; with nested
  // loops off, that one took 30 ms per row instead of 0.075 ms. When live holds nothing of the
  // country there is no anti-join to plan at all (on a table analyzed empty, the planner took
  // a nested loop over the heap being filled: the national Swedish property register never
  // finished); otherwise the anti-join probes live's key index.
  const inserted = firstLoad
    ? await withIndexesBuiltAfter(client, liveTable, () => timed('insert', () => insert(false)), timer && ((index, build) => timed(index, build)))
    : await timed('insert', () => insert(!firstOfCountry));
  // Into an empty table, every live row came from this snapshot: nothing to delete.
  if (firstOfCountry) return { inserted: inserted.rowCount ?? 0, updated: updated.rowCount ?? 0, deleted: 0 };
  const filter = scopeFilter('live', scope, 1);
  // An increment names what it removes; a snapshot removes what it lacks. A table of removed keys
  // is looked up key by key, as the update's rows are (hashed, se-building's night hashed all
  // 400,000 Swedish buildings to delete 4,939: 204 ms); a query is planned freely, since its own
  // joins (an anti-join of a snapshot) may need hashing.
  const deleteRemoved = () => client.query(`DELETE FROM ${liveTable} live USING ${removedKeys} r WHERE ${filter.sql} AND ${key('r')}`, filter.params);
  const removed = await timed('delete', () => removedKeys
    ? (options.removedKeysQuery ? deleteRemoved() : withKeyLookups(client, deleteRemoved))
    : withHashJoins(client, () =>
      client.query(
        `DELETE FROM ${liveTable} live
         WHERE ${filter.sql}
           AND NOT EXISTS (SELECT 1 FROM ${stagingTable} s WHERE s.${keyColumn} = live.${keyColumn})`,
        filter.params,
      ),
    ));
  return { inserted: inserted.rowCount ?? 0, updated: updated.rowCount ?? 0, deleted: removed.rowCount ?? 0 };
}

/**
 * Runs an anti-join DELETE (live rows missing from the snapshot), or a join of the rows this run
 * wrote (`published_run_id = <run>`), with nested loops off. A hash join is right at any size;
 * but right after an insert the planner's statistics can say a table is empty when it is not,
 * and they never know the new run's id: the planner then expects one such row, and picks a
 * nested loop that scans the other side (an unindexed staging table) once per row: quadratic.
 * A national Swedish cadastre into a table already holding Norway's parcels ran for minutes
 * without end; a changed night's 3,268 Swedish areas re-linked to their properties in 1.9 s at
 * 0.05 x national, 10.7 M rows compared (2 % of a national register would be 4.9 G). Only for
 * statements whose every join is of these kinds (a LATERAL function scan aside, which has no
 * other plan): the setting applies to the whole statement, correlated subqueries included.
 */
export function withHashJoins<T>(client: pg.PoolClient, work: () => Promise<T>): Promise<T> {
  return withPlannerMethodsOff(client, ['nestloop'], work);
}

/**
 * Hash joins alone: also no merge join, which the planner takes when it cannot estimate a join
 * key (a composite key's text) and then sorts both sides whole, or for a FULL JOIN.
 */
export function withHashJoinsOnly<T>(client: pg.PoolClient, work: () => Promise<T>): Promise<T> {
  return withPlannerMethodsOff(client, ['nestloop', 'mergejoin'], work);
}

/**
 * The opposite, for a night's statements over a few keys of large tables: nested loops over
 * their indexes, hash and merge joins off. Statistics of a small sample's tables made the planner
 * hash every row of a table to find a thousand of them (86 ms of every se-transactions night at
 * 0.05 x for a person update that changed nothing); only for statements whose every join has an
 * index on its key.
 */
export function withKeyLookups<T>(client: pg.PoolClient, work: () => Promise<T>): Promise<T> {
  return withPlannerMethodsOff(client, ['hashjoin', 'mergejoin'], work);
}

export async function countLiveRows(client: pg.PoolClient, liveTable: string, scope: PublishScope): Promise<number> {
  const filter = scopeFilter('live', scope, 1);
  const result = await client.query<{ n: number }>(`SELECT count(*) AS n FROM ${liveTable} live WHERE ${filter.sql}`, filter.params);
  return result.rows[0].n;
}
