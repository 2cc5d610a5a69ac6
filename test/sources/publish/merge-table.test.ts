import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { closePools, getPool } from '../../../lib/db.js';
import { mergeTable, withHashJoins, withKeyLookups } from '../../../sources/publish/merge-table.js';
import { createTestDatabase } from '../../support/database.js';

/**
 * The insert's column expressions can be correlated subqueries (a Swedish address's covering
 * property): they must be planned with the planner's own settings. Under nested loops off, that
 * subquery hash-joined a whole table per row (30 ms instead of 0.075 ms per address).
 */
describe('mergeTable', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = getPool(database.url);
    await pool.query(`CREATE TABLE merge_probe (country text NOT NULL, k text NOT NULL, v text, nestloop text,
      row_hash uuid NOT NULL, published_run_id text, updated_at timestamptz, PRIMARY KEY (country, k))`);
    await pool.query(`CREATE UNLOGGED TABLE merge_staging (src_pos bigint, k text, v text, row_hash uuid)`);
  });
  afterAll(async () => {
    await closePools();
    await database.drop();
  });

  async function publish(rows: [string, string][], runId: string) {
    await pool.query('TRUNCATE merge_staging');
    for (const [i, [k, v]] of rows.entries()) {
      await pool.query(`INSERT INTO merge_staging VALUES ($1, $2, $3, md5($2 || $3)::uuid)`, [i + 1, k, v]);
    }
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const merge = { liveTable: 'merge_probe', keyColumn: 'k', columns: { v: 's.v', nestloop: `current_setting('enable_nestloop')` } };
      const counts = await mergeTable(client, 'merge_staging', merge, { country: 'SE', municipalities: null }, runId);
      await client.query('COMMIT');
      return counts;
    } finally {
      client.release();
    }
  }

  it('evaluates inserted rows under the planner settings of the session, on a first load and after', async () => {
    expect(await publish([['a', '1'], ['b', '2']], 'r1')).toEqual({ inserted: 2, updated: 0, deleted: 0 });
    expect(await publish([['a', '1'], ['c', '3']], 'r2')).toEqual({ inserted: 1, updated: 0, deleted: 1 });
    const rows = await pool.query(`SELECT k, v, nestloop FROM merge_probe ORDER BY k`);
    expect(rows.rows).toEqual([
      { k: 'a', v: '1', nestloop: 'on' },
      { k: 'c', v: '3', nestloop: 'on' },
    ]);
  });

  it('a country first load beside the other country inserts every staged row and deletes none of the other', async () => {
    await pool.query(`INSERT INTO merge_probe VALUES ('NO', 'a', 'x', 'n', md5('x')::uuid, 'r0', now())`);
    const counts = await publish([['a', '1'], ['c', '3']], 'r3');
    expect(counts.deleted).toBe(0);
    expect((await pool.query(`SELECT count(*)::int AS n FROM merge_probe WHERE country = 'NO'`)).rows[0].n).toBe(1);
  });

  it.each([['withHashJoins', withHashJoins], ['withKeyLookups', withKeyLookups]] as const)(
    '%s: a statement that fails surfaces its own error, and the join methods are back once it succeeds',
    async (_name, joinMethods) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const settings = () => client.query(`SELECT current_setting('enable_nestloop') AS nestloop, current_setting('enable_hashjoin') AS hashjoin`).then((r) => r.rows[0]);
        await joinMethods(client, settings);
        expect(await settings()).toEqual({ nestloop: 'on', hashjoin: 'on' });
        // Before, enabling them again ran on the aborted transaction, and its error replaced this one.
        const duplicate = joinMethods(client, () => client.query(`INSERT INTO merge_probe SELECT * FROM merge_probe LIMIT 1`));
        await expect(duplicate).rejects.toThrow(/duplicate key value violates unique constraint "merge_probe_pkey"/);
      } finally {
        await client.query('ROLLBACK');
        client.release();
      }
    },
  );
});
