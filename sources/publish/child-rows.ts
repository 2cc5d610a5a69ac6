import type pg from 'pg';
import type { ChangeCounts } from '../source-adapter.js';
import { withHashJoins, withKeyLookups } from './merge-table.js';

/**
 * Rows of a child table that follow a row of a live table (a building's status history and unit
 * links, a building detail's floors, a zoning plan's documents, a registered transfer's parties).
 * A publish rewrites the children of the parents it wrote (inserted or changed: their
 * `published_run_id` is the run's) and drops those of the parents it removed; the others stay as
 * they are.
 *
 * A snapshot compares every child of the country with the parents, by hash anti-join. A night
 * that staged only its changed records reaches the children of its staged and removed parents by
 * key: the anti-join read every child and parent of the country, so a night cost as much as the
 * register was large, not as the night had changed (docs/scaling.md, "A night's children by key").
 */
export interface ChildTable {
  /** The child table, e.g. `building_status_history`. */
  table: string;
  /** The live table of its parents, e.g. `building`. */
  parent: string;
  /** The columns naming the parent, the same in both tables (besides `country`). */
  key: string[];
}

export interface ChildRewrite {
  country: string;
  runId: string;
  /**
   * A night that staged only its changed records: the sets of parents' keys whose children it may
   * rewrite or drop (those it staged and those it removed, say), each a table or a parenthesized
   * subquery with the `key` columns.
   */
  night?: string[];
}

/**
 * Drops the children of the parents this run wrote or removed, then inserts the written parents'
 * children with `insertSql` ($1 the country, $2 the run; it joins the parents whose
 * `published_run_id` is the run's). Runs in the caller's transaction, after the parents' merge.
 */
export async function rewriteChildren(client: pg.PoolClient, child: ChildTable, rewrite: ChildRewrite, insertSql: string): Promise<ChangeCounts> {
  const deleted = await deleteStaleChildren(client, child, rewrite);
  // The insert joins the parents this run wrote, which the statistics do not know: hash joins over
  // a snapshot; a night's few staged rows by key.
  const added = await (rewrite.night ? withKeyLookups : withHashJoins)(client, () => client.query(insertSql, [rewrite.country, rewrite.runId]));
  return { inserted: added.rowCount ?? 0, updated: 0, deleted };
}

async function deleteStaleChildren(client: pg.PoolClient, { table, parent, key }: ChildTable, { country, runId, night }: ChildRewrite): Promise<number> {
  const matches = (left: string, right: string) => key.map((column) => `${left}.${column} = ${right}.${column}`).join(' AND ');
  const stale = `NOT EXISTS (SELECT 1 FROM ${parent} p WHERE p.country = c.country AND ${matches('p', 'c')} AND p.published_run_id <> $2)`;
  if (!night) {
    const removed = await withHashJoins(client, () => client.query(`DELETE FROM ${table} c WHERE c.country = $1 AND ${stale}`, [country, runId]));
    return removed.rowCount ?? 0;
  }
  let deleted = 0;
  for (const keys of night) {
    const removed = await withKeyLookups(client, () =>
      client.query(`DELETE FROM ${table} c USING ${keys} k WHERE c.country = $1 AND ${matches('c', 'k')} AND ${stale}`, [country, runId]));
    deleted += removed.rowCount ?? 0;
  }
  return deleted;
}
