import type pg from 'pg';
import { withPlannerMethodsOff } from './planner-methods.js';

/**
 * A first load (or a backfill into an empty table) builds the secondary indexes once after
 * inserting instead of updating them row by row: for 300,000 parcels the GiST index alone
 * halves the insert. The DDL is part of the publish transaction, so a failure restores the
 * indexes, and readers of the (empty) table wait for the commit instead of seeing a half load.
 * Unique indexes stay: they check the rows as they come.
 */
export async function withIndexesBuiltAfter<T>(
  client: pg.PoolClient,
  table: string,
  work: () => Promise<T>,
  timeBuild: (index: string, build: () => Promise<unknown>) => Promise<unknown> = (_index, build) => build(),
): Promise<T> {
  const indexes = await client.query<{ name: string; definition: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
     FROM pg_index i WHERE i.indrelid = $1::regclass AND NOT i.indisprimary AND NOT i.indisunique`,
    [table],
  );
  for (const index of indexes.rows) await client.query(`DROP INDEX ${index.name}`);
  const result = await work();
  for (const index of indexes.rows) await timeBuild(index.name, () => client.query(index.definition));
  return result;
}

/**
 * Whether `table` holds no row at all (of `country`, when given). A country's rows are found by
 * the table's index (every live table's key starts with its country): the planner, expecting
 * them spread through the table, read it from the start, through all of the country loaded
 * first (50–60 ms a Swedish publish at 0.25 x national, for each table it asked of).
 */
export async function isEmpty(client: pg.PoolClient, table: string, country?: string): Promise<boolean> {
  const probe = () => client.query<{ empty: boolean }>(`SELECT NOT EXISTS (SELECT 1 FROM ${table}${country ? ' WHERE country = $1' : ''}) AS empty`, country ? [country] : []);
  return (await (country ? withPlannerMethodsOff(client, ['seqscan'], probe) : probe())).rows[0].empty;
}
